package store_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cortexmem/cortex/memories"
)

// TestSaveDecidesFromTheNoteAsItIs: a save whose possible duplicate
// conflicts with it by the keys its word index keeps (a port the note
// lacks) tells the conflict from those keys, and a note edited in place
// since, which a store checking only its folders has not taken in (same
// size; its time left as the edit set it or put back to the one its record
// has), is decided from its text as it is: the duplicate it has become
// is refused, never saved as conflicting on its old keys.
func TestSaveDecidesFromTheNoteAsItIs(t *testing.T) {
	for _, tc := range []struct {
		name     string
		edit     bool
		timeBack bool
	}{
		{"unchanged", false, false},
		{"edited, same size", true, false},
		{"edited, same size and time", true, true},
	} {
		for _, resident := range []bool{false, true} {
			name := tc.name
			if resident {
				name += ", resident"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				st, svc := openStore(t, filepath.Join(dir, "vault"), filepath.Join(dir, "state"), resident)
				ctx := context.Background()
				old, err := svc.Save(ctx, memories.SaveRequest{Title: "API port",
					Content: "The API server listens on port 8080 behind the gateway. Restart it after changing the config file.", Project: "shop"})
				if err != nil {
					t.Fatal(err)
				}
				abs := st.Vault().Abs(old.Path)
				// Older than any racy window, so that nothing but its
				// text tells the edit.
				then := time.Now().Add(-time.Hour).Truncate(time.Second)
				if err := os.Chtimes(abs, then, then); err != nil {
					t.Fatal(err)
				}
				// The note in the catalog's base, and its keys in the word
				// index the next save makes.
				if _, err := st.Rebuild(ctx); err != nil {
					t.Fatal(err)
				}
				if _, err := svc.Save(ctx, memories.SaveRequest{Title: "Cache size", Content: "The cache holds 512 entries before it evicts the oldest one.", Project: "shop"}); err != nil {
					t.Fatal(err)
				}
				if tc.edit {
					note, err := os.ReadFile(abs)
					if err != nil {
						t.Fatal(err)
					}
					edited := bytes.Replace(note, []byte("8080"), []byte("9090"), 1)
					if len(edited) != len(note) || bytes.Equal(edited, note) {
						t.Fatal("the edit is not one of the same size")
					}
					if err := os.WriteFile(abs, edited, 0o644); err != nil {
						t.Fatal(err)
					}
					if tc.timeBack {
						if err := os.Chtimes(abs, then, then); err != nil {
							t.Fatal(err)
						}
					}
				}
				before := st.IndexKeys()
				_, err = svc.Save(ctx, memories.SaveRequest{Title: "API port", Content: "The API server listens on port 9090 behind the gateway.", Project: "shop"})
				var rej *memories.RejectedError
				switch {
				case !tc.edit && err != nil:
					t.Fatalf("a port the note lacks: refused (%v), want saved as a conflict", err)
				case !tc.edit && st.IndexKeys() == before:
					t.Fatal("the conflict was not told from the word index's keys")
				case tc.edit && !errors.As(err, &rej):
					t.Fatalf("the note edited to the same port: %v, want refused as its duplicate", err)
				case tc.edit && rej.Existing.ID != old.ID:
					t.Fatalf("refused as a duplicate of %s, want %s", rej.Existing.ID, old.ID)
				}
			})
		}
	}
}
