package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cortexmem/cortex/importer"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// TestImportKeepsItsWordsForTheFirstSave: an import keeps the word sets and
// keys of the notes it writes, made from the fingerprints its own check
// compared, so that the first save after it makes the project's word index
// without reading them; before, that save read and fingerprinted every
// imported note (1.1 s after 10,000 real-shaped notes, 18 s after
// 100,000). Each set kept is the one the check makes of the note as
// written, that of a note whose body the import changed after
// fingerprinting it (a link pointed at another imported note) too.
func TestImportKeepsItsWordsForTheFirstSave(t *testing.T) {
	for _, resident := range []bool{false, true} {
		t.Run(fmt.Sprintf("resident=%v", resident), func(t *testing.T) { testImportKeepsItsWords(t, resident) })
	}
}

func testImportKeepsItsWords(t *testing.T, resident bool) {
	ctx := context.Background()
	e := newOwedEnv(t)
	// More than keptRecentMax: a resident store appends the batch's sets
	// unread, as a one-shot one does.
	const n = keptRecentMax + 6
	src := writeSources(t, e, n, func(i int) string {
		text := fmt.Sprintf("# Service %d\n\nThe queue of service %d retries on port %d after %d ms; its dashboard is `svc%d.grafana`.\n", i, i, 9000+i, 40*i+7, i)
		if i == 0 {
			text += "\nSee [[note-01]] for the retries.\n"
		}
		return text
	})
	st, _ := e.open()
	if resident {
		st, _ = openResident(t, e)
	}
	svc := memories.NewService(st, memories.WithImporter(&importer.Source{Options: importer.Options{AllowedRoots: []string{src}}}))
	res, err := svc.Import(ctx, memories.ImportRequest{Path: src, Project: "zoo"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Imported != n {
		t.Fatalf("imported %d memories, want %d (%+v)", res.Imported, n, res.Rejected)
	}
	kept := readWords(st.recentPath("zoo")).m
	var linked []string
	for _, m := range res.Memories {
		data, err := os.ReadFile(filepath.Join(e.root, "cortex", filepath.FromSlash(m.Path)))
		if err != nil {
			t.Fatal(err)
		}
		if body, _ := vault.NoteBody(data); strings.Contains(string(body), "[[") {
			linked = append(linked, m.Path)
		}
		got, ok := kept[m.Path]
		if !ok {
			t.Errorf("%s keeps no word set", m.Path)
			continue
		}
		if err := keptAsRead(got, m.Title, data); err != nil {
			t.Errorf("%s: %v", m.Path, err)
		}
	}
	if len(linked) != 1 {
		t.Fatalf("the import pointed the links of %d notes at others (%v), want 1", len(linked), linked)
	}
	reads := st.wordReads.Load()
	if _, err := svc.Save(ctx, memories.SaveRequest{Content: "Deploys of the ledger wait for the nightly settlement to finish first.", Project: "zoo"}); err != nil {
		t.Fatal(err)
	}
	if got := st.wordReads.Load() - reads; got != 0 {
		t.Errorf("the first save after the import read %d notes for their word sets, want 0", got)
	}
	// The sets kept decide as sets made from the notes would: a copy of an
	// imported note is refused as its duplicate.
	dup := res.Memories[n/2]
	data, err := os.ReadFile(filepath.Join(e.root, "cortex", filepath.FromSlash(dup.Path)))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := vault.NoteBody(data)
	_, err = svc.Save(ctx, memories.SaveRequest{Title: dup.Title, Content: strings.TrimSpace(string(body)), Project: "zoo"})
	var rej *memories.RejectedError
	if !errors.As(err, &rej) || rej.Existing == nil || rej.Existing.ID != dup.ID {
		t.Errorf("saving a copy of imported %s: err = %v, want a refusal as its duplicate", dup.Path, err)
	}
}

// TestKeepWordsWarnsWhenItCannotWrite: the recent file is a cache; one that
// cannot be written (here a folder stands in its place) is warned of, the
// import and the saves after it go on, and the next save reads the notes
// for their sets instead.
func TestKeepWordsWarnsWhenItCannotWrite(t *testing.T) {
	for _, resident := range []bool{false, true} {
		t.Run(fmt.Sprintf("resident=%v", resident), func(t *testing.T) {
			ctx := context.Background()
			e := newOwedEnv(t)
			const n = 6
			src := writeSources(t, e, n, func(i int) string {
				return fmt.Sprintf("# Service %d\n\nThe queue of service %d retries on port %d after %d ms.\n", i, i, 9100+i, 30*i+5)
			})
			st, _ := e.open()
			if resident {
				st, _ = openResident(t, e)
			}
			if err := os.MkdirAll(st.recentPath("zoo"), 0o755); err != nil {
				t.Fatal(err)
			}
			svc := memories.NewService(st, memories.WithImporter(&importer.Source{Options: importer.Options{AllowedRoots: []string{src}}}))
			res, err := svc.Import(ctx, memories.ImportRequest{Path: src, Project: "zoo"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Imported != n {
				t.Fatalf("imported %d memories, want %d", res.Imported, n)
			}
			e.mu.Lock()
			warned := slices.ContainsFunc(e.warnings, func(w string) bool { return strings.Contains(w, "could not keep the duplicate check's word sets") })
			e.mu.Unlock()
			if !warned {
				t.Errorf("no warning of the sets not kept; warnings: %q", e.warnings)
			}
			reads := st.wordReads.Load()
			if _, err := svc.Save(ctx, memories.SaveRequest{Content: "Deploys of the ledger wait for the nightly settlement to finish first.", Project: "zoo"}); err != nil {
				t.Fatal(err)
			}
			if got := st.wordReads.Load() - reads; got != n {
				t.Errorf("the first save read %d notes for their word sets, want the %d imported (none was kept)", got, n)
			}
		})
	}
}

// writeSources makes e's vault folder and, in a folder of its own, n
// markdown notes to import, the i-th with text(i); it returns that folder.
func writeSources(t *testing.T, e *owedEnv, n int, text func(i int) string) string {
	t.Helper()
	if err := os.MkdirAll(e.root, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "notes")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("note-%02d.md", i)), []byte(text(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return src
}
