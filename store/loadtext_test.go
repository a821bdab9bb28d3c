package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
)

// loadedText is what a comparison reads of a note, or why it could not.
type loadedText struct {
	Title, Body string
	Missing     bool // fs.ErrNotExist
	Err         bool // any other error
}

func textOf(title, body string, err error) loadedText {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return loadedText{Missing: true}
	case err != nil:
		return loadedText{Err: true}
	}
	return loadedText{Title: title, Body: body}
}

// TestLoadTextMatchesLoad: the duplicate check reads its candidates with
// LoadText, which skips decoding a note's properties when its bytes are
// those of its catalog record. Over the notes of the dedup corpus (saved
// through the real save path) and notes written by hand in every shape the
// parser takes — a byte-order mark, CRLF, no properties, empty properties,
// no title, a title on two lines, an indented "---", broken properties, a
// note edited in place after it was indexed, one deleted — it must give
// exactly the title and body Load gives, so every dedup score (and so every
// decision) is the one it was.
func TestLoadTextMatchesLoad(t *testing.T) {
	e := newOwedEnv(t)
	s, _ := e.open()
	svc := memories.NewService(s, memories.WithChecks(memories.Checks{}))
	ctx := context.Background()
	data, err := os.ReadFile(filepath.Join("..", "fixtures", "dedup", "dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Pairs []struct {
			Old, New struct{ Title, Body string }
		} `json:"pairs"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	for i, p := range f.Pairs {
		for j, side := range []struct{ Title, Body string }{p.Old, p.New} {
			req := memories.SaveRequest{Title: side.Title, Content: side.Body, Project: fmt.Sprintf("p%d", (i+j)%7)}
			if j == 1 {
				req.Title = "" // a title made from the body
			}
			if _, err := svc.Save(ctx, req); err != nil {
				t.Fatalf("pair %d: %v", i, err)
			}
		}
	}
	hand := map[string]string{
		"bom.md":        "\xef\xbb\xbf---\ntitle: With a mark\n---\nThe body after a byte-order mark.\n",
		"crlf.md":       "---\r\ntitle: Windows lines\r\ntags: [a]\r\n---\r\nBody line one.\r\nBody line two.\r\n",
		"plain.md":      "No properties at all, the first line is the title.\nAnd a second line.\n",
		"empty.md":      "---\n---\nEmpty properties, title from the body.\n",
		"untitled.md":   "---\ntags: [x]\n---\n\n# A heading as title\n\nText.\n",
		"twoline.md":    "---\ntitle: |\n  first line\n  second line\n---\nBody.\n",
		"indented.md":   "---\ntitle: Indented\nnote: |\n  ---\n  inside\n---\nBody after an indented delimiter.\n",
		"broken.md":     "---\ntitle: [unclosed\n---\nBody.\n",
		"unclosed.md":   "---\ntitle: never closed\nBody.\n",
		"edited.md":     "---\ntitle: Before the edit\n---\nOld body.\n",
		"deleted.md":    "---\ntitle: Soon gone\n---\nBody.\n",
		"onlyprops.md":  "---\ntitle: Nothing below\n---",
		"bomplain.md":   "\xef\xbb\xbfA plain note with a mark.\n",
		"dashbody.md":   "---\ntitle: Dashes\n---\n---\nA body that starts with a rule.\n",
		"quoted.md":     "---\ntitle: \"Quoted: with a colon\"\n---\nBody.\n",
		"spaces.md":     "---   \ntitle: Trailing spaces on the delimiter\n---  \nBody.\n",
		"blankfirst.md": "\n---\ntitle: not properties\n---\nBody.\n",
	}
	for name, content := range hand {
		if err := os.MkdirAll(filepath.Join(e.root, "cortex", "memories", "hand"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.root, "cortex", "memories", "hand", name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	compared := 0
	err = s.View(ctx, func(snap memories.Snapshot) error {
		sn := snap.(*snapshot)
		// Changed after the snapshot's check, so that its catalog is behind: an edit
		// of the same size, a deletion.
		if err := os.WriteFile(filepath.Join(e.root, "cortex", "memories", "hand", "edited.md"), []byte("---\ntitle: Before the edix\n---\nOld bodx.\n"), 0o600); err != nil {
			return err
		}
		if err := os.Remove(filepath.Join(e.root, "cortex", "memories", "hand", "deleted.md")); err != nil {
			return err
		}
		return sn.cat.Records(func(r *index.Record) error {
			compared++
			title, body, err := sn.LoadText(ctx, r.Path)
			got := textOf(title, body, err)
			m, err := sn.Load(ctx, r.Path)
			var want loadedText
			if err != nil {
				want = textOf("", "", err)
			} else {
				want = textOf(m.Title, m.Body, nil)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s: LoadText differs from Load (-want +got):\n%s", r.Path, d)
			}
			if err == nil {
				// The scores the check computes from each.
				fp := dedup.New("A memory about the body and the title")
				if a, b := dedup.Compare(fp, dedup.New(m.Title+"\n"+m.Body)), dedup.Compare(fp, dedup.New(got.Title+"\n"+got.Body)); a != b {
					t.Errorf("%s: score %+v, was %+v", r.Path, b, a)
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if compared < 2*len(f.Pairs)+len(hand) {
		t.Fatalf("compared %d notes, want at least %d", compared, 2*len(f.Pairs)+len(hand))
	}
}
