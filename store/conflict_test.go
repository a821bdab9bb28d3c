package store_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/memories"
)

// conflictLoader is the snapshot's method the duplicate check calls.
type conflictLoader interface {
	LoadFingerprintOrConflict(ctx context.Context, path string, build func(title, body string) *dedup.Fingerprint, conflicts func(title, body string) bool) (*dedup.Fingerprint, bool, error)
}

// TestConflictOnlyOfTheCountedText: a snapshot tells a key conflict from
// the note's text only while that text is the one its catalog record (and
// so the word counts the check made) describes; a note changed on disk
// since, even to a text of the same length, is fingerprinted as
// LoadFingerprint does, and compared whole.
func TestConflictOnlyOfTheCountedText(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(note []byte) []byte
	}{
		{"unchanged", nil},
		{"same length", func(note []byte) []byte { return bytes.Replace(note, []byte("8080"), []byte("9090"), 1) }},
		{"longer", func(note []byte) []byte { return bytes.Replace(note, []byte("8080"), []byte("18080"), 1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "vault")
			st, svc := openStore(t, root, filepath.Join(dir, "state"), true)
			ctx := context.Background()
			res, err := svc.Save(ctx, memories.SaveRequest{Title: "API port", Content: "The API server listens on port 8080 behind the gateway.", Project: "shop"})
			if err != nil {
				t.Fatal(err)
			}
			abs := st.Vault().Abs(res.Path)
			if tc.edit != nil {
				note, err := os.ReadFile(abs)
				if err != nil {
					t.Fatal(err)
				}
				edited := tc.edit(note)
				if bytes.Equal(edited, note) {
					t.Fatal("the edit changed nothing")
				}
				if err := os.WriteFile(abs, edited, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			build := func(title, body string) *dedup.Fingerprint { return dedup.New(title + "\n" + body) }
			var conflict bool
			var fp *dedup.Fingerprint
			err = st.View(ctx, func(snap memories.Snapshot) error {
				cl, ok := snap.(conflictLoader)
				if !ok {
					t.Fatalf("a %T is not a conflictLoader", snap)
				}
				var err error
				fp, conflict, err = cl.LoadFingerprintOrConflict(ctx, res.Path, build, func(string, string) bool { return true })
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if tc.edit == nil {
				if !conflict || fp != nil {
					t.Fatalf("unchanged note: conflict %v, fingerprint %v; want the conflict told from its text", conflict, fp)
				}
				return
			}
			if conflict || fp == nil {
				t.Fatalf("changed note: conflict %v, fingerprint %v; want it fingerprinted whole", conflict, fp)
			}
		})
	}
}
