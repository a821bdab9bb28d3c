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
	LoadFingerprintOrConflict(ctx context.Context, path string, build func(title, body string) *dedup.Fingerprint, keys func(title, body string) dedup.Keys, conflicts func(dedup.Keys) bool, known *memories.KnownKeys) (*dedup.Fingerprint, bool, error)
}

// TestConflictOnlyOfTheCountedText: a snapshot tells a key conflict from
// the note's text only while that text is the one its catalog record (and
// so the word counts the check made) describes; a note changed on disk
// since, even to a text of the same length, is fingerprinted as
// LoadFingerprint does, and compared whole. A resident store keeps the
// keys of a note found to conflict and tells the next conflict from them,
// but not once the note is changed.
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
			build := func(title, body string) *dedup.Fingerprint { return dedup.New(title + "\n" + body) }
			keys := func(title, body string) dedup.Keys { return dedup.KeysOf(title + "\n" + body) }
			// A port the note lacks, whatever the edit: a conflict by keys.
			newer := dedup.New("API port\nThe API server listens on port 9999 behind the gateway.")
			conflicts := func(k dedup.Keys) bool { return k.Lack(newer) }
			load := func() (*dedup.Fingerprint, bool) {
				t.Helper()
				var conflict bool
				var fp *dedup.Fingerprint
				err := st.View(ctx, func(snap memories.Snapshot) error {
					cl, ok := snap.(conflictLoader)
					if !ok {
						t.Fatalf("a %T is not a conflictLoader", snap)
					}
					var err error
					fp, conflict, err = cl.LoadFingerprintOrConflict(ctx, res.Path, build, keys, conflicts, nil)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				return fp, conflict
			}
			// Read, then told from the keys kept.
			for i := range 2 {
				if fp, conflict := load(); !conflict || fp != nil {
					t.Fatalf("unchanged note, load %d: conflict %v, fingerprint %v; want the conflict told from its text", i, conflict, fp)
				}
			}
			if hits := st.KeyHits(); hits != 1 {
				t.Fatalf("%d conflicts told from kept keys, want 1 (the second load)", hits)
			}
			if tc.edit == nil {
				return
			}
			abs := st.Vault().Abs(res.Path)
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
			if fp, conflict := load(); conflict || fp == nil {
				t.Fatalf("changed note: conflict %v, fingerprint %v; want it fingerprinted whole", conflict, fp)
			}
		})
	}
}
