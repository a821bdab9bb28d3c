package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cortexmem/cortex/memories"
)

// mcpRecord is one line of the MCP memory server's memory.jsonl. Files of
// older versions lack "type" on some lines: the shape tells then.
type mcpRecord struct {
	Type         string          `json:"type"`
	Name         string          `json:"name"`
	EntityType   string          `json:"entityType"`
	Observations json.RawMessage `json:"observations"`
	From         string          `json:"from"`
	To           string          `json:"to"`
	RelationType string          `json:"relationType"`
}

type mcpEntity struct {
	name         string
	title        string
	types        []string
	observations []string
	seen         map[string]bool // the observations, to merge repeated ones
}

type mcpRelation struct{ from, to, typ string }

// parseMCPMemory reads the MCP memory server's knowledge graph: one memory an
// entity, its observations as a list and its relations, both ways, as links
// to the other entities. An entity named on several lines is one memory with
// the observations of all of them.
func parseMCPMemory(path string, data []byte) ([]Item, []Skip) {
	data = stripBOM(data)
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, []Skip{{Source: path, Reason: "empty"}}
	}
	var skips []Skip
	entities := map[string]*mcpEntity{}
	var order []*mcpEntity
	var relations []mcpRelation
	seenRelation := map[mcpRelation]bool{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		bad := func(reason string) {
			skips = append(skips, Skip{Source: fmt.Sprintf("%s:%d", path, i+1), Reason: reason})
		}
		if d := depth(line); d > maxJSONDepth {
			bad(fmt.Sprintf("nested %d levels deep; at most %d are read", d, maxJSONDepth))
			continue
		}
		var rec mcpRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			bad(recordReason(line, err))
			continue
		}
		switch {
		case rec.Type == "entity" || rec.Type == "" && rec.Name != "" && (rec.EntityType != "" || rec.Observations != nil):
			name := strings.TrimSpace(rec.Name)
			title := titleOf(name, titleMax)
			if title == "" {
				bad("an entity without a name")
				continue
			}
			obs, err := observations(rec.Observations)
			if err != "" {
				bad(err)
				continue
			}
			e := entities[name]
			if e == nil {
				e = &mcpEntity{name: name, title: title, seen: map[string]bool{}}
				entities[name] = e
				order = append(order, e)
			}
			if t := strings.TrimSpace(rec.EntityType); t != "" && len(e.types) < memories.MaxTags && !slices.Contains(e.types, t) {
				e.types = append(e.types, t)
			}
			for _, o := range obs {
				if !e.seen[o] {
					e.seen[o] = true
					e.observations = append(e.observations, o)
				}
			}
		case rec.Type == "relation" || rec.Type == "" && (rec.From != "" || rec.To != ""):
			r := mcpRelation{strings.TrimSpace(rec.From), strings.TrimSpace(rec.To), titleOf(rec.RelationType, titleMax)}
			switch {
			case titleOf(r.from, titleMax) == "" || titleOf(r.to, titleMax) == "":
				bad("a relation without from or to")
			case r.typ == "":
				bad("a relation without a relationType")
			case !seenRelation[r]:
				seenRelation[r] = true
				relations = append(relations, r)
			}
		case rec.Type != "":
			bad(fmt.Sprintf("type %q is neither an entity nor a relation", rec.Type))
		default:
			bad("neither an entity nor a relation")
		}
	}

	// The relations of each entity, in the order of the file.
	out := map[string][]int{}
	in := map[string][]int{}
	for i, r := range relations {
		out[r.from] = append(out[r.from], i)
		if r.to != r.from {
			in[r.to] = append(in[r.to], i)
		}
	}
	title := func(name string) string {
		if e := entities[name]; e != nil {
			return e.title
		}
		return titleOf(name, titleMax)
	}

	var items []Item
	for _, e := range order {
		source := path + "#" + e.title
		var b strings.Builder
		for _, o := range e.observations {
			b.WriteString(listItem(o))
			b.WriteByte('\n')
		}
		if len(out[e.name])+len(in[e.name]) > 0 {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString("## Relations\n\n")
			for _, i := range out[e.name] {
				fmt.Fprintf(&b, "- %s → %s\n", relations[i].typ, wikilink(title(relations[i].to)))
			}
			for _, i := range in[e.name] {
				fmt.Fprintf(&b, "- %s ← %s\n", relations[i].typ, wikilink(title(relations[i].from)))
			}
		} else if len(e.observations) == 0 {
			skips = append(skips, Skip{Source: source, Reason: "no observations"})
			continue
		}
		content := strings.TrimSpace(b.String())
		if n := meaningful(content); n < MinSectionChars {
			skips = append(skips, Skip{Source: source, Reason: tooShort(n)})
			continue
		}
		is, ss := split(Item{
			Title:    e.title,
			Tags:     tagsOf(e.types),
			Type:     memories.TypeFact,
			Source:   source,
			Kind:     KindMCPMemory,
			LinkName: wikilinkReplacer.Replace(e.title), // as the relations of others name it
		}, content)
		items = append(items, is...)
		skips = append(skips, ss...)
	}
	return items, skips
}

// observations reads an entity's observations: a list (or, leniently, one
// string) of texts; numbers and other values are kept as written. The
// second result says why they cannot be read.
func observations(raw json.RawMessage) ([]string, string) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, ""
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		var one string
		if json.Unmarshal(raw, &one) != nil {
			return nil, "observations is not a list"
		}
		list = []json.RawMessage{raw}
	}
	var out []string
	for _, r := range list {
		var s string
		if json.Unmarshal(r, &s) != nil {
			s = string(r)
		}
		if s = cleanText(s); s != "" && string(r) != "null" {
			out = append(out, s)
		}
	}
	return out, ""
}

// recordReason says why a line is not a record.
func recordReason(line []byte, err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return "not a JSON object"
		}
		return fmt.Sprintf("%s is a JSON %s, not a string", te.Field, te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := se.Offset - 1 // the offset is of the byte after the bad one
		if se.Offset == 0 || strings.HasPrefix(se.Error(), "unexpected end") {
			off = se.Offset
		}
		col := 1 + utf8.RuneCount(line[:min(max(off, 0), int64(len(line)))])
		return fmt.Sprintf("invalid JSON at column %d: %s", col, se.Error())
	}
	return "invalid JSON: " + err.Error()
}

// wikilinkReplacer keeps a title from breaking the [[…]] around it.
var wikilinkReplacer = strings.NewReplacer("[", "(", "]", ")", "|", "/")

// wikilink is an Obsidian link to the memory titled title.
func wikilink(title string) string { return "[[" + wikilinkReplacer.Replace(title) + "]]" }
