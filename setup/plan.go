package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// Plan is what setup would write for one client: a change per file, worked
// out from the files as they are now, and nothing written yet.
type Plan struct {
	Client  *Client
	Options Options
	Changes []*Change
	// Notes are what the person has to do or know afterwards.
	Notes []string
}

// Change is one file's new content.
type Change struct {
	Path    string
	Existed bool
	Before  []byte
	After   []byte
	// Remove says the file goes: cortex's entries were all it held.
	Remove bool
	// Actions say in words what changes ("add the Stop hook (stop)").
	Actions []string

	t target
}

// Changed reports whether the file would change.
func (c *Change) Changed() bool {
	if c.Remove {
		return true
	}
	if !c.Existed {
		return c.After != nil
	}
	return !bytes.Equal(c.Before, c.After)
}

// Changed reports whether any file would change.
func (p *Plan) Changed() bool {
	for _, c := range p.Changes {
		if c.Changed() {
			return true
		}
	}
	return false
}

// Prepare works out the plan for client c. A file setup cannot read, or an
// entry in the way, fails the whole plan: nothing is written for any file.
func Prepare(e Env, c *Client, o Options) (*Plan, error) {
	if !filepath.IsAbs(o.Binary) {
		return nil, fmt.Errorf("the cortex binary's path %q is not absolute", o.Binary)
	}
	p := &Plan{Client: c, Options: o}
	for _, t := range c.targets(e) {
		ch, notes, err := prepareFile(t, c, o)
		if err != nil {
			return nil, err
		}
		p.Changes = append(p.Changes, ch)
		p.Notes = append(p.Notes, notes...)
	}
	if c.notes != nil && p.Changed() {
		p.Notes = append(p.Notes, c.notes(o)...)
	}
	return p, nil
}

// readFile reads a configuration file; a missing one reads as empty.
func readFile(path string) (data []byte, existed bool, err error) {
	data, err = os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	return data, true, nil
}

func prepareFile(t target, c *Client, o Options) (*Change, []string, error) {
	before, existed, err := readFile(t.path)
	if err != nil {
		return nil, nil, err
	}
	ch := &Change{Path: t.path, Existed: existed, Before: before, t: t}
	notes, err := ch.compute(c, o)
	return ch, notes, err
}

// compute works out After from Before.
func (ch *Change) compute(c *Client, o Options) ([]string, error) {
	var (
		after   []byte
		remove  bool
		actions []string
		notes   []string
		err     error
	)
	switch ch.t.format {
	case formatTOML:
		after, remove, actions, notes, err = patchTOML(ch.Path, ch.Before, ch.Existed, o.Binary, o.Uninstall)
	default:
		after, remove, actions, notes, err = patchJSON(ch.Path, ch.Before, ch.Existed, ch.t, c, o)
	}
	if err != nil {
		return nil, err
	}
	if !ch.Existed && len(actions) == 0 {
		after = nil // nothing to add: no file is created
	}
	ch.After, ch.Remove, ch.Actions = after, remove, actions
	return notes, nil
}

// Diff is the change as a unified diff, "" when the file does not change.
func (c *Change) Diff() string {
	if !c.Changed() {
		return ""
	}
	from, to := c.Path, c.Path
	if !c.Existed {
		from = "/dev/null"
	}
	after := string(c.After)
	if c.Remove {
		to, after = "/dev/null", ""
	}
	d := difflib.UnifiedDiff{
		A: lines(string(c.Before)), B: lines(after),
		FromFile: from, ToFile: to, Context: 3,
	}
	s, err := difflib.GetUnifiedDiffString(d)
	if err != nil {
		return fmt.Sprintf("(no diff: %v)\n", err) // writes to a strings.Builder do not fail
	}
	return s
}

// lines splits text into lines that keep their newlines; a last line without
// one is marked as diff marks it.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.SplitAfter(s, "\n")
	if n := len(out); out[n-1] == "" {
		return out[:n-1]
	}
	out[len(out)-1] += "\n\\ No newline at end of file\n"
	return out
}
