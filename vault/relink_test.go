package vault

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRelinkerRelationLinks(t *testing.T) {
	v := &Vault{Root: "/v", Dir: "/v/cortex"}
	tests := []struct {
		name  string
		moves []Move
		notes []string // after the moves
		in    string   // the related property's items
		want  string
		n     int
	}{
		{"renamed: by name and by path", []Move{{"memories/p/a.md", "memories/p/b.md"}}, []string{"memories/p/b.md"},
			`["[[a]]", "[[cortex/memories/p/a|A]]", "[[a#Heading|A]]", "[[A.md]]", "[[other]]"]`,
			`["[[b]]", "[[cortex/memories/p/b|A]]", "[[b#Heading|A]]", "[[b.md]]", "[[other]]"]`, 4},
		{"moved folder: a name still leads to it", []Move{{"memories/p/a.md", "memories/q/a.md"}}, []string{"memories/q/a.md"},
			`["[[a]]", "[[cortex/memories/p/a]]", "[[memories/p/a]]"]`,
			`["[[a]]", "[[cortex/memories/q/a]]", "[[cortex/memories/q/a]]"]`, 2},
		{"new name taken twice: the path", []Move{{"memories/p/a.md", "memories/p/b.md"}}, []string{"memories/p/b.md", "memories/q/b.md"},
			`["[[a]]"]`, `["[[cortex/memories/p/b]]"]`, 1},
		{"old name still a note's: left alone", []Move{{"memories/p/a.md", "memories/p/b.md"}}, []string{"memories/p/b.md", "memories/q/a.md"},
			`["[[a]]", "[[cortex/memories/p/a]]"]`, `["[[a]]", "[[cortex/memories/p/b]]"]`, 1},
		{"two notes of one name moved: by name is left alone", []Move{{"memories/p/a.md", "memories/p/b.md"}, {"memories/q/a.md", "memories/q/c.md"}},
			[]string{"memories/p/b.md", "memories/q/c.md"},
			`["[[a]]", "[[cortex/memories/q/a]]"]`, `["[[a]]", "[[cortex/memories/q/c]]"]`, 1},
		{"relative links are the person's", []Move{{"memories/p/a.md", "memories/p/b.md"}}, []string{"memories/p/b.md"},
			`["[[./a]]", "[[../p/a]]"]`, `["[[./a]]", "[[../p/a]]"]`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := ParseNote([]byte("---\nrelated: " + tt.in + "\nnotes: \"[[a]]\"\n---\nBody [[a]].\n"))
			if err != nil {
				t.Fatal(err)
			}
			r := v.NewRelinker(tt.moves, tt.notes)
			if got := r.Relink(n, "memories/p/x.md"); got != tt.n {
				t.Errorf("Relink = %d links, want %d", got, tt.n)
			}
			want, err := ParseNote([]byte("---\nrelated: " + tt.want + "\nnotes: \"[[a]]\"\n---\nBody [[a]].\n"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.Strings("related"), n.Strings("related")); diff != "" {
				t.Errorf("related (-want +got):\n%s", diff)
			}
			if got := n.String("notes") + string(n.Body); got != "[[a]]Body [[a]].\n" {
				t.Errorf("a property cortex does not own, or a person's body, changed: %q", got)
			}
		})
	}
}

func TestRelinkBodyLeavesCodeAlone(t *testing.T) {
	v := &Vault{Root: "/v", Dir: "/v/cortex"}
	r := v.NewRelinker([]Move{{"a.md", "b.md"}}, []string{"b.md"})
	in := "See [[a]], `[[a]]` and | [[a\\|A]] |\r\n```\n[[a]]\n```\n~~~~\n[[a]]\n~~~\nstill code [[a]]\n~~~~\nafter [[a#h]]\n"
	want := "See [[b]], `[[a]]` and | [[b\\|A]] |\r\n```\n[[a]]\n```\n~~~~\n[[a]]\n~~~\nstill code [[a]]\n~~~~\nafter [[b#h]]\n"
	got, n := r.relinkBody([]byte(in))
	if diff := cmp.Diff(want, string(got)); diff != "" || n != 3 {
		t.Errorf("relinkBody: %d links (want 3) (-want +got):\n%s", n, diff)
	}
}

func TestRelinkerMentions(t *testing.T) {
	v := &Vault{Root: "/v", Dir: "/v/cortex"}
	r := v.NewRelinker([]Move{{"memories/Old-Name.md", "memories/new.md"}}, []string{"memories/new.md"})
	for in, want := range map[string]bool{"[[old-name]]": true, "[[x]] OLD-NAME": true, "old-name without links": false, "[[new]]": false} {
		if got := r.Mentions([]byte(in)); got != want {
			t.Errorf("Mentions(%q) = %v, want %v", in, got, want)
		}
	}
}

// FuzzRelink: pointing links at moved notes never panics, keeps every line
// (and every line ending), changes nothing when it counts no change, keeps
// the number of links, and a note it changes still parses.
func FuzzRelink(f *testing.F) {
	for _, s := range []string{
		"---\nrelated: \"[[a]]\"\nsource: mined\nprovenance:\n  source_hash: x\n---\nSee [[a]], `[[a]]` and [[a#h|A]].\n```\n[[a]]\n```\n",
		"[[a\\|b]] | [[cortex/memories/p/a.md]] ![[a]] [[./a]] [[]] [[a",
		"---\nrelated:\n  - \"[[a]]\"\n  - [[a]]\n---\r\nbody [[A]]\r\n",
	} {
		f.Add(s)
	}
	v := &Vault{Root: "/v", Dir: "/v/cortex"}
	r := v.NewRelinker([]Move{{"memories/p/a.md", "memories/q/b.md"}}, []string{"memories/q/b.md"})
	f.Fuzz(func(t *testing.T, in string) {
		out, n := r.relinkBody([]byte(in))
		if n == 0 && string(out) != in {
			t.Fatalf("no link changed but the text did: %q → %q", in, out)
		}
		if got, want := strings.Count(string(out), "\n"), strings.Count(in, "\n"); got != want {
			t.Fatalf("%d lines became %d: %q → %q", want, got, in, out)
		}
		if got, want := len(NoteLinks("x.md", out)), len(NoteLinks("x.md", []byte(in))); got != want {
			t.Fatalf("%d links became %d: %q → %q", want, got, in, out)
		}
		note, err := ParseNote([]byte(in))
		if err != nil {
			return
		}
		if r.Relink(note, "memories/p/x.md") == 0 {
			return
		}
		data, err := note.Bytes()
		if err != nil {
			t.Fatalf("Bytes after Relink: %v", err)
		}
		if _, err := ParseNote(data); err != nil {
			t.Fatalf("the relinked note no longer parses: %v\n%q", err, data)
		}
	})
}
