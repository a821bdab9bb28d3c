package pipeline

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cortexmem/cortex/security"
	"github.com/cortexmem/cortex/transcript"
)

// Redactor rewrites text so that no secret is left in it.
type Redactor interface {
	Redact(text string) string
}

// Pattern is an extra redaction rule from config: what Pattern (Go regular
// expression syntax) matches becomes [REDACTED:<Name>].
type Pattern struct {
	Name    string `json:"name" yaml:"name"`
	Pattern string `json:"pattern" yaml:"pattern"`
}

// CredentialRedactor replaces every credential the security package's rules
// find with [REDACTED:<rule>], then whatever the extra patterns match.
type CredentialRedactor struct {
	extra []namedRE
}

type namedRE struct {
	name string
	re   *regexp.Regexp
}

var patternName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`) })

// NewCredentialRedactor returns the default redactor with extra patterns
// added; the error names the pattern and what is wrong with it.
func NewCredentialRedactor(extra []Pattern) (*CredentialRedactor, error) {
	r := &CredentialRedactor{}
	for i, p := range extra {
		where := fmt.Sprintf("redaction pattern %d", i+1)
		if p.Name != "" {
			where = fmt.Sprintf("redaction pattern %q", p.Name)
		}
		if !patternName().MatchString(p.Name) {
			return nil, fmt.Errorf("%s: name: must be lower-case letters, digits, '.', '_' or '-'", where)
		}
		if strings.TrimSpace(p.Pattern) == "" {
			return nil, fmt.Errorf("%s: pattern: must not be empty", where)
		}
		re, err := regexp.Compile(p.Pattern)
		if err != nil {
			return nil, fmt.Errorf("%s: pattern: %w", where, err)
		}
		if re.MatchString("") {
			return nil, errors.New(where + ": pattern: matches empty text")
		}
		r.extra = append(r.extra, namedRE{p.Name, re})
	}
	return r, nil
}

// Redact implements Redactor.
func (r *CredentialRedactor) Redact(text string) string {
	if text == "" {
		return text
	}
	out, _ := security.Redact(text)
	for _, p := range r.extra {
		out = p.re.ReplaceAllLiteralString(out, "[REDACTED:"+p.name+"]")
	}
	return out
}

// Redact rewrites every string of every node with r, in place.
func Redact(nodes []Node, r Redactor) {
	if r == nil {
		return
	}
	for i := range nodes {
		n := &nodes[i]
		n.SessionID = r.Redact(n.SessionID)
		switch {
		case n.Conversation != nil:
			c := n.Conversation
			c.EventID = r.Redact(c.EventID)
			redactProject(&c.Project, r)
			redactProvenance(&c.Provenance, r)
			for j := range c.Turns {
				c.Turns[j].EventID = r.Redact(c.Turns[j].EventID)
				c.Turns[j].Text = r.Redact(c.Turns[j].Text)
			}
			for j := range c.Markers {
				c.Markers[j].Text = r.Redact(c.Markers[j].Text)
			}
		case n.Decision != nil:
			d := n.Decision
			d.EventID = r.Redact(d.EventID)
			redactProject(&d.Project, r)
			redactProvenance(&d.Provenance, r)
			d.Epitome = r.Redact(d.Epitome)
			for j := range d.Chosen {
				d.Chosen[j] = r.Redact(d.Chosen[j])
			}
			for j := range d.Rejected {
				d.Rejected[j] = r.Redact(d.Rejected[j])
			}
		case n.Episode != nil:
			e := n.Episode
			e.EventID = r.Redact(e.EventID)
			redactProject(&e.Project, r)
			redactProvenance(&e.Provenance, r)
			e.GitRef = r.Redact(e.GitRef)
			e.Path = r.Redact(e.Path)
			e.MovePath = r.Redact(e.MovePath)
			e.Unified = r.Redact(e.Unified)
		case n.Binding != nil:
			p := &n.Binding.Prov
			p.Session = r.Redact(p.Session)
			p.UsedEvent = r.Redact(p.UsedEvent)
			p.Generated = r.Redact(p.Generated)
		}
	}
}

func redactProject(p *transcript.Project, r Redactor) {
	p.Cwd = r.Redact(p.Cwd)
	p.RepoRoot = r.Redact(p.RepoRoot)
	p.Repository = r.Redact(p.Repository)
	p.GitBranch = r.Redact(p.GitBranch)
}

func redactProvenance(p *transcript.Provenance, r Redactor) {
	p.File = r.Redact(p.File)
}

// StripContent drops what people wrote and code from every node — turns'
// text, epitomes, options, diffs, marker words — and keeps the structure:
// ids, kinds, offsets, paths, counts, links.
func StripContent(nodes []Node) {
	for i := range nodes {
		n := &nodes[i]
		switch {
		case n.Conversation != nil:
			for j := range n.Conversation.Turns {
				n.Conversation.Turns[j].Text = ""
			}
			for j := range n.Conversation.Markers {
				n.Conversation.Markers[j].Text = ""
			}
		case n.Decision != nil:
			n.Decision.Epitome = ""
			n.Decision.Chosen = nil
			n.Decision.Rejected = nil
		case n.Episode != nil:
			n.Episode.Unified = ""
		}
	}
}
