package normalize

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// TestTaskCheckBoxMatchesGoldmark: normalize's task list parser (which keeps
// goldmark's extension package out of the program) gives the tree goldmark's
// TaskList extension gives, for checkboxes in every position and form.
func TestTaskCheckBoxMatchesGoldmark(t *testing.T) {
	inputs := []string{
		"- [ ] open\n- [x] done\n- [X] Done too\n",
		"- [ ]no space after\n- [x]\n- [ ]\n",
		"- [\t] tab inside\n- [y] not a box\n- [xx] not a box\n- [] empty\n",
		"* [ ] star\n+ [x] plus\n1. [ ] ordered\n2) [x] paren\n",
		"- text [ ] later on the line\n- **bold** [x]\n",
		"- [ ] item\n  - [x] nested\n    - [ ] deeper\n",
		"- > [ ] in a quote\n> - [x] quoted list\n",
		"- ```\n  [ ] in code\n  ```\n- [ ] after code\n",
		"- [ ]   many spaces\n- [x]\ttab after\n",
		"[ ] not in a list\n\n- \n  [ ] lazy start\n",
		"- [ ] [link](http://example.com)\n- [x] [[wiki]] link\n- [ ][ref]\n\n[ref]: http://example.com\n",
		"- [ ] first line\n  [x] second line\n",
		"- [ ] ünïcödé ✅ 2026-01-02 📅 2026-02-03\n",
		"1. [ ] a\n\n   [x] second paragraph\n",
		"- [\u00a0] no-break space\n- [\r] carriage return\n",
	}
	want := goldmark.New(goldmark.WithExtensions(extension.TaskList)).Parser()
	for i, in := range inputs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			src := []byte(in)
			w := dump(t, want.Parse(text.NewReader(src)), src)
			g := dump(t, meetingMD().Parse(text.NewReader(src)), src)
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("%q: tree differs from goldmark's TaskList (-want +got):\n%s", in, diff)
			}
		})
	}
}

// FuzzTaskCheckBox compares normalize's task list parser with goldmark's
// TaskList extension on any input.
func FuzzTaskCheckBox(f *testing.F) {
	for _, s := range []string{"- [ ] a\n", "- [x]b", "- [\t]\n  - [X] c", "1. [ ]"} {
		f.Add(s)
	}
	want := goldmark.New(goldmark.WithExtensions(extension.TaskList)).Parser()
	f.Fuzz(func(t *testing.T, in string) {
		src := []byte(in)
		w := dump(t, want.Parse(text.NewReader(src)), src)
		g := dump(t, meetingMD().Parse(text.NewReader(src)), src)
		if w != g {
			t.Errorf("%q: tree differs from goldmark's TaskList:\n%s", in, cmp.Diff(w, g))
		}
	})
}

// dump prints the tree: each node's kind, a checkbox's state, a text's
// bytes and a block's lines, indented by depth. (goldmark's own Dump prints
// attributes in map order.)
func dump(t *testing.T, n ast.Node, src []byte) string {
	t.Helper()
	var b strings.Builder
	err := ast.Walk(n, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		depth := 0
		for p := n.Parent(); p != nil; p = p.Parent() {
			depth++
		}
		fmt.Fprintf(&b, "%s%s", strings.Repeat("  ", depth), n.Kind())
		switch n := n.(type) {
		case *extast.TaskCheckBox:
			fmt.Fprintf(&b, " checked=%v", n.IsChecked)
		case *ast.Text:
			fmt.Fprintf(&b, " %q", n.Segment.Value(src))
		}
		if n.Type() == ast.TypeBlock {
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				fmt.Fprintf(&b, " |%q", seg.Value(src))
			}
		}
		b.WriteByte('\n')
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
