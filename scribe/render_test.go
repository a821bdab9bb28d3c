package scribe_test

import (
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/scribe"
)

// codeInMarkdown matches fenced blocks and inline code spans, where
// Obsidian makes no links.
var codeInMarkdown = regexp.MustCompile("(?s)```.*?```|(`+)[^`]*?(`+)")

// wikiLinks finds the targets of Obsidian links and embeds.
var wikiLinks = regexp.MustCompile(`!?\[\[([^\[\]|#]*)`)

// TestRenderedLinksResolve: the [[…]] a person typed, or the assistant
// wrote, are shown as written, not made links to notes the vault does not
// have; every link outside code in a rendered note goes to a note of the
// batch.
func TestRenderedLinksResolve(t *testing.T) {
	s := session{id: "s-links", t0: t0, steps: []string{
		"say: Use [[wikilinks]] for cross references in the docs, rather than markdown links. [[S:turn1]]",
		"reply: Sure: ![[diagram.png]] goes in as an embed, and `[[as code]]` stays code.",
		"edit: docs/guide.md",
	}}
	evs := s.events()
	notes := scribe.Render(pipeline.New(pipeline.WithoutRedaction()).Prepare(evs), scribe.Sessions(evs))
	names := map[string]bool{}
	for _, n := range notes {
		names[strings.TrimSuffix(path.Base(n.Memory.Path), ".md")] = true
	}
	var all strings.Builder
	for _, n := range notes {
		body := n.Memory.Body
		all.WriteString(body)
		outside := codeInMarkdown.ReplaceAllString(body, "")
		for _, m := range wikiLinks.FindAllStringSubmatch(outside, -1) {
			if !names[m[1]] {
				t.Errorf("%s links to %q, which is no note of the batch:\n%s", n.Memory.Path, m[0], body)
			}
		}
		for _, f := range n.Memory.Fields {
			for _, v := range append([]string{f.Value}, f.List...) {
				if m := wikiLinks.FindStringSubmatch(v); m != nil && !names[m[1]] {
					t.Errorf("%s: property %s links to %q", n.Memory.Path, f.Key, m[0])
				}
			}
		}
	}
	for _, want := range []string{"`[[wikilinks]]`", "`[[S:turn1]]`", "`![[diagram.png]]`", "`[[as code]]`", "# Use `[[wikilinks]]` for cross"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("no note shows %s", want)
		}
	}
}
