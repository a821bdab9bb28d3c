package vault

import (
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNoteLinks(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []NoteLink
	}{
		{name: "none", text: "plain text\n"},
		{
			name: "properties and body",
			text: "---\nid: x\nrelated:\n  - \"[[a-01hv0000]]\"\n  - \"[[b|B]]\"\nsuperseded_by: \"[[cortex/memories/p/c|01hv]]\"\n---\n\nSee [[d#Heading|D]] and ![[e.png]].\n",
			want: []NoteLink{
				{Line: 4, Key: "related", Link: "[[a-01hv0000]]", Target: "a-01hv0000"},
				{Line: 5, Key: "related", Link: "[[b|B]]", Target: "b"},
				{Line: 6, Key: "superseded_by", Link: "[[cortex/memories/p/c|01hv]]", Target: "cortex/memories/p/c"},
				{Line: 9, Link: "[[d#Heading|D]]", Target: "d"},
				{Line: 9, Link: "![[e.png]]", Target: "e.png"},
			},
		},
		{
			name: "code is no link",
			text: "`[[a]]` and ``x [[b]] x`` but [[c]]\n```go\n[[d]]\n```\n~~~\n[[e]]\n```\n[[f]]\n~~~\n[[g]]\n    ```\n[[h]]\n",
			want: []NoteLink{
				{Line: 1, Link: "[[c]]", Target: "c"},
				{Line: 10, Link: "[[g]]", Target: "g"},
				{Line: 12, Link: "[[h]]", Target: "h"},
			},
		},
		{
			name: "a heading of the same note, an escaped pipe in a table",
			text: "[[#Top]] and | [[x\\|X]] |\n",
			want: []NoteLink{{Line: 1, Link: "[[x\\|X]]", Target: "x"}},
		},
		{
			name: "no frontmatter: a rule later is body",
			text: "title\n---\n[[a]]\n",
			want: []NoteLink{{Line: 3, Link: "[[a]]", Target: "a"}},
		},
		{
			name: "crlf and a byte order mark",
			text: "\ufeff---\r\ntags: [x]\r\n---\r\n[[a]]\r\n",
			want: []NoteLink{{Line: 4, Link: "[[a]]", Target: "a"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NoteLinks("n.md", []byte(tt.text))
			for i := range tt.want {
				tt.want[i].Note = "n.md"
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("links (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzNoteLinks(f *testing.F) {
	f.Add([]byte("---\nrelated:\n  - \"[[a]]\"\n---\n[[b|c]] `[[d]]`\n```\n[[e]]\n```\n"))
	f.Add([]byte("[[]] [[#x]] ![[y.png]] [[[z]]]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := strings.Count(string(data), "\n") + 1
		for _, l := range NoteLinks("n.md", data) {
			if l.Line < 1 || l.Line > lines {
				t.Fatalf("link %+v on line %d of %d", l, l.Line, lines)
			}
			if l.Target == "" || !strings.Contains(string(data), l.Link) {
				t.Fatalf("link %+v is not in the note", l)
			}
		}
	})
}

// TestCheckLinks: links resolve as Obsidian resolves them, anywhere in the
// vault; the ones that lead nowhere, or to one of several files of one name,
// are named.
func TestCheckLinks(t *testing.T) {
	v := newVault(t)
	writeTree(t, v.Root, map[string]string{
		"Projects/Roadmap.md":           "# Roadmap\n",
		"Projects/setup.md":             "one setup\n",
		"Areas/setup.md":                "another setup\n",
		"assets/diagram.png":            "png",
		".obsidian/hidden.md":           "not a target\n",
		"cortex/memories/p/a-01hv00.md": "---\nrelated:\n  - \"[[b-01hv01]]\"\n  - \"[[gone-01hv02]]\"\n---\n[[roadmap]] [[Roadmap.md]] [[Projects/Roadmap|R]] ![[diagram.png]] [[../b-01hv01]] [[hidden]] [[setup]] [[Areas/setup]] [[#Top]]\n",
		"cortex/memories/p/b-01hv01.md": "---\nsupersedes: \"[[cortex/memories/p/a-01hv00|01hv00]]\"\nsuperseded_by: \"[[cortex/memories/p/moved|01hv03]]\"\n---\n[[./a-01hv00]] [[memories/p/a-01hv00]]\n",
		"cortex/_index.md":              "[[not checked]]\n",
	})
	got, err := v.CheckLinks()
	if err != nil {
		t.Fatal(err)
	}
	want := &LinkCheck{
		Notes: 2, Links: 14,
		Dangling: []NoteLink{
			{Note: "memories/p/a-01hv00.md", Line: 4, Key: "related", Link: "[[gone-01hv02]]", Target: "gone-01hv02"},
			{Note: "memories/p/a-01hv00.md", Line: 6, Link: "[[../b-01hv01]]", Target: "../b-01hv01"},
			{Note: "memories/p/a-01hv00.md", Line: 6, Link: "[[hidden]]", Target: "hidden"},
			{Note: "memories/p/b-01hv01.md", Line: 3, Key: "superseded_by", Link: "[[cortex/memories/p/moved|01hv03]]", Target: "cortex/memories/p/moved"},
		},
		Ambiguous: []NoteLink{
			{Note: "memories/p/a-01hv00.md", Line: 6, Link: "[[setup]]", Target: "setup"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CheckLinks (-want +got):\n%s", diff)
	}
}

// TestSymlinksReport: each symbolic link of cortex's folder, and what cortex
// makes of it.
func TestSymlinksReport(t *testing.T) {
	v, secret := linkVault(t)
	if err := os.Symlink(filepath.Join(v.Root, "other"), v.Abs("memories/folder")); err != nil {
		t.Fatal(err)
	}
	got, err := v.Symlinks()
	if err != nil {
		t.Fatal(err)
	}
	want := []LinkedNote{
		{Path: "memories/folder", Target: filepath.Join(v.Root, "other"), Reason: "a folder: not followed"},
		{Path: "memories/p/inside.md", Target: filepath.Join(v.Root, "other", "note.md"), Read: true, Reason: "read as a note, never rewritten"},
		{Path: "memories/p/nowhere.md", Target: filepath.Join(filepath.Dir(v.Root), "missing.md"), Reason: "leads nowhere: not read"},
		{Path: "memories/p/secret.md", Target: secret, Reason: "leads outside the vault: not read"},
		{Path: "memories/p/sibling.md", Target: v.Abs("memories/p/plain.md"), Read: true, Reason: "read as a note, never rewritten"},
		{Path: "memories/p/twice.md", Target: secret, Reason: "leads outside the vault: not read"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Symlinks (-want +got):\n%s", diff)
	}
}

// TestResolveByTheEndOfAPath: a link by the end of a path ([[p/a]] for
// x/p/a.md) resolves exactly as a pass over every file's path would, in one
// look-up.
func TestResolveByTheEndOfAPath(t *testing.T) {
	parts := []string{"a", "b", "p", "a.md", "", ".", "..", "x y"}
	r := rand.New(rand.NewPCG(1, 2))
	pathOf := func() string {
		n := 1 + r.IntN(4)
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte('/')
			}
			b.WriteString(parts[r.IntN(len(parts))])
		}
		return b.String()
	}
	for round := 0; round < 200; round++ {
		s := &vaultFileSet{paths: map[string]bool{}, names: map[string]int{}, tails: map[string]bool{}}
		var all []string
		for i := r.IntN(6); i > 0; i-- {
			p := pathOf()
			s.addPath(p)
			all = append(all, p)
		}
		for i := 0; i < 50; i++ {
			target := pathOf() + "/" + pathOf()
			want := resolveByPass(s, all, "cortex", target)
			if got := s.resolve("cortex", target); got != want {
				t.Fatalf("paths %q: resolve(%q) = %d, want %d", all, target, got, want)
			}
		}
	}
}

// resolveByPass is resolve as it was before tails: a pass over every path
// for a link by the end of a path.
func resolveByPass(s *vaultFileSet, all []string, from, target string) int {
	t := strings.ToLower(strings.TrimSuffix(target, "/"))
	switch {
	case strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../"):
		if s.paths[path.Join(strings.ToLower(from), t)] {
			return 1
		}
		return 0
	case strings.Contains(t, "/"):
		if s.paths[strings.TrimPrefix(path.Clean(t), "/")] {
			return 1
		}
		for _, p := range all {
			if strings.HasSuffix(p, "/"+t) {
				return 1
			}
		}
		return 0
	}
	return s.names[t]
}
