package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGitInit: cortex's lines are added after what a person wrote, once;
// a line the person already has is not repeated.
func TestGitInit(t *testing.T) {
	tests := []struct {
		name      string
		ignore    string // the .gitignore before; "-" for none
		wantAdded []int
		want      string
	}{
		{name: "none", ignore: "-", wantAdded: []int{5, 2}, want: strings.Join(GitIgnore, "\n") + "\n"},
		{name: "a person's rules, no final newline", ignore: "*.pdf", wantAdded: []int{5, 2},
			want: "*.pdf\n\n" + strings.Join(GitIgnore, "\n") + "\n"},
		{name: "the map ignored already", ignore: "/_index.md\r\n", wantAdded: []int{4, 2},
			want: "/_index.md\r\n\n" + strings.Join(GitIgnore[3:], "\n") + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := New(t.TempDir(), "cortex")
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(v.Dir, ".gitignore")
			if tt.ignore != "-" {
				if err := os.MkdirAll(v.Dir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(tt.ignore), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for run, want := range [][]int{tt.wantAdded, {0, 0}} {
				files, err := v.GitInit()
				if err != nil {
					t.Fatal(err)
				}
				var got []int
				for _, f := range files {
					got = append(got, f.Added)
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("run %d: lines added (-want +got):\n%s", run+1, d)
				}
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, string(data)); d != "" {
				t.Errorf(".gitignore (-want +got):\n%s", d)
			}
			attrs, err := os.ReadFile(filepath.Join(v.Dir, ".gitattributes"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(attrs), "\n/_index.md merge=union\n") {
				t.Errorf(".gitattributes = %q, want the map merged by union", attrs)
			}
		})
	}
}
