package vault

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// TestSupersedeProperties: supersedes and superseded_by are links Obsidian
// follows, aliased with the id that is the identity (issue: they were bare
// ids, so the history could not be followed in Obsidian); notes written
// before, with bare ids, read as they did.
func TestSupersedeProperties(t *testing.T) {
	v := &Vault{Root: "/vault", Dir: "/vault/cortex"}
	m := &memories.Memory{
		ID: "01hv00000000000000000000bb", Title: "Pool is 40", Project: "infra", Status: memories.StatusActive,
		Created: indexBase, Updated: indexBase, Body: "The pool is 40.",
		Supersedes: "01hv00000000000000000000aa", SupersedesNote: "memories/infra/pool-is-20-01hv0000.md",
	}
	n, err := v.NewNote(m)
	if err != nil {
		t.Fatal(err)
	}
	data, err := n.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if want := "\nsupersedes: \"[[cortex/memories/infra/pool-is-20-01hv0000|01hv00000000000000000000aa]]\"\n"; !strings.Contains(string(data), want) {
		t.Errorf("note:\n%s\nwant the line %q", data, want)
	}
	back, err := ParseNote(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Memory("x.md", time.Time{}).Supersedes; got != m.Supersedes {
		t.Errorf("read back supersedes %q, want %q", got, m.Supersedes)
	}

	tests := []struct {
		name, frontmatter string
		supersedes, by    string
	}{
		{"bare ids (older notes)", "supersedes: 01HV00000000000000000000AA\nsuperseded_by: 01hv00000000000000000000cc\n",
			"01hv00000000000000000000aa", "01hv00000000000000000000cc"},
		{"links", "supersedes: \"[[cortex/memories/a/x|01hv00000000000000000000aa]]\"\nsuperseded_by: \"[[y|01hv00000000000000000000cc]]\"\n",
			"01hv00000000000000000000aa", "01hv00000000000000000000cc"},
		{"a link renamed in Obsidian keeps its alias", "superseded_by: \"[[renamed note|01hv00000000000000000000cc]]\"\n",
			"", "01hv00000000000000000000cc"},
		{"a link without an id names no memory", "superseded_by: \"[[some note|Some note]]\"\n", "", ""},
		{"a link a person wrote without an alias", "superseded_by: \"[[some-note]]\"\n", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := ParseNote([]byte("---\n" + tt.frontmatter + "---\nbody\n"))
			if err != nil {
				t.Fatal(err)
			}
			got := n.Memory("x.md", time.Time{})
			if diff := cmp.Diff([2]string{tt.supersedes, tt.by}, [2]string{got.Supersedes, got.SupersededBy}); diff != "" {
				t.Errorf("supersedes, superseded_by (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSupersedeValueWithoutNote: with no note path known, the property is the
// bare id, as before.
func TestSupersedeValueWithoutNote(t *testing.T) {
	n, err := NewNote(&memories.Memory{ID: "01hv00000000000000000000bb", Title: "t", SupersededBy: "01hv00000000000000000000cc", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := n.Bytes()
	if !strings.Contains(string(data), "\nsuperseded_by: 01hv00000000000000000000cc\n") {
		t.Errorf("note:\n%s", data)
	}
}

func TestLinkTargets(t *testing.T) {
	tests := []struct {
		v          *Vault
		rel, want  string
		wantNoteOK bool
	}{
		{&Vault{Root: "/v", Dir: "/v/cortex"}, "memories/a/x.md", "cortex/memories/a/x", true},
		{&Vault{Root: "/v", Dir: "/v/cortex"}, "memories/a/X.MD", "cortex/memories/a/X", true},
		{&Vault{Root: "/v", Dir: "/v/deep/cortex"}, "memories/a/x.md", "deep/cortex/memories/a/x", true},
		{&Vault{Root: "/v", Dir: "/v"}, "memories/a/x.md", "memories/a/x", true},
	}
	for _, tt := range tests {
		got := tt.v.LinkTarget(tt.rel)
		if got != tt.want {
			t.Errorf("%s: LinkTarget(%q) = %q, want %q", tt.v.Dir, tt.rel, got, tt.want)
		}
		if p, ok := tt.v.NotePath(got); !ok || !strings.EqualFold(p, tt.rel) {
			t.Errorf("%s: NotePath(%q) = %q, %v; want %q", tt.v.Dir, got, p, ok, tt.rel)
		}
	}
	v := &Vault{Root: "/v", Dir: "/v/cortex"}
	for _, target := range []string{"elsewhere/x", "cortex/../x", "cortex/", "x"} {
		if p, ok := v.NotePath(target); ok {
			t.Errorf("NotePath(%q) = %q, want none", target, p)
		}
	}
}

func TestParseLink(t *testing.T) {
	tests := []struct {
		in            string
		target, alias string
		ok            bool
	}{
		{"[[a]]", "a", "", true},
		{" [[a/b|Alias]] ", "a/b", "Alias", true},
		{"[[a#heading|x]]", "a#heading", "x", true},
		{"[[a]] and [[b]]", "", "", false},
		{"a", "", "", false},
		{"[[a", "", "", false},
	}
	for _, tt := range tests {
		target, alias, ok := ParseLink(tt.in)
		if target != tt.target || alias != tt.alias || ok != tt.ok {
			t.Errorf("ParseLink(%q) = %q, %q, %v; want %q, %q, %v", tt.in, target, alias, ok, tt.target, tt.alias, tt.ok)
		}
	}
}
