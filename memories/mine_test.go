package memories

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMineRefusesBadNotes: a note without an id or a .md path, or an id
// given twice, fails the whole batch before anything is written.
func TestMineRefusesBadNotes(t *testing.T) {
	good := func(id string) *Memory {
		return &Memory{ID: id, Title: "t", Type: TypeEpisode, Project: "p", Source: SourceMined, Path: "episodes/p/" + id + ".md", Body: "b"}
	}
	noPath := good("01jd0000000000000000000002")
	noPath.Path = ""
	for _, tc := range []struct {
		name  string
		notes []*Memory
		want  string
	}{
		{"no id", []*Memory{{Path: "x.md"}}, "note 0: must have an id and a .md path"},
		{"no path", []*Memory{good("01jd0000000000000000000001"), noPath}, "note 1: must have an id and a .md path"},
		{"id twice", []*Memory{good("01jd0000000000000000000001"), good("01jd0000000000000000000001")}, "note 1: id 01jd0000000000000000000001 is given twice"},
		{"nil", []*Memory{nil}, "note 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			s, _ := newTestService(f)
			var req MineRequest
			for _, m := range tc.notes {
				req.Notes = append(req.Notes, MinedNote{Memory: m})
			}
			_, err := s.Mine(context.Background(), req)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one containing %q", err, tc.want)
			}
			if f.wrote() {
				t.Error("a refused batch wrote something")
			}
		})
	}
}

// minedDecision is a decision note as the transcript pipeline renders it.
func minedDecision(body string) *Memory {
	return &Memory{
		ID: "01jd0000000000000000000010", Title: "Use tabs in the Makefile", Type: TypeDecision, Project: "app",
		Source: SourceMined, Status: StatusActive, Importance: DefaultImportance,
		Created: testNow.Truncate(1e9), Updated: testNow.Truncate(1e9),
		Path: "decisions/app/use-tabs-in-the-makefile-01jd0000.md", Body: body,
		Fields: []Field{{Key: "chosen", List: []string{"tabs"}}},
	}
}

// TestMineKeepsPersonsEdits: a mined note a person edited — its body or the
// properties they edit in Obsidian — is left as they made it by every later
// run, whether the transcript's render of it changed or not; a note nobody
// edited follows the transcript.
func TestMineKeepsPersonsEdits(t *testing.T) {
	const body = "# Use tabs in the Makefile\n\n- Chosen: tabs\n"
	edits := []struct {
		name string
		edit func(m *Memory)
	}{
		{"a line added to the body", func(m *Memory) { m.Body += "\nMy own note: make needs tabs.\n" }},
		{"a tag added", func(m *Memory) { m.Tags = append(m.Tags, "build") }},
		{"the title changed", func(m *Memory) { m.Title = "Tabs in Makefiles" }},
		{"moved to another project", func(m *Memory) { m.Project = "tooling" }},
		{"retyped", func(m *Memory) { m.Type = TypeConvention }},
	}
	renders := []struct {
		name string
		body string
	}{
		{"render unchanged", body},
		{"render changed", body + "\n## Produced\n\n- [[2026-03-02-makefile-01jd0001|Edit Makefile]]\n"},
	}
	for _, ed := range edits {
		for _, rd := range renders {
			t.Run(ed.name+", "+rd.name, func(t *testing.T) {
				f := newFake(t)
				s, _ := newTestService(f)
				ctx := context.Background()
				first, err := s.Mine(ctx, MineRequest{Notes: []MinedNote{{Memory: minedDecision(body)}}})
				if err != nil {
					t.Fatal(err)
				}
				path := first.Items[0].Path
				theirs := f.stored(path)
				ed.edit(theirs)
				want := cloneMemory(theirs)
				f.patches = nil

				res, err := s.Mine(ctx, MineRequest{Notes: []MinedNote{{Memory: minedDecision(rd.body)}}})
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Items[0].Outcome; got != MineKept {
					t.Errorf("outcome %s, want %s", got, MineKept)
				}
				if len(f.patches) > 0 {
					t.Errorf("the person's note was rewritten: %+v", f.patches)
				}
				if diff := cmp.Diff(want, f.stored(path)); diff != "" {
					t.Errorf("the person's note changed (-theirs +now):\n%s", diff)
				}
			})
		}
	}
	t.Run("not edited, render changed", func(t *testing.T) {
		f := newFake(t)
		s, _ := newTestService(f)
		ctx := context.Background()
		first, err := s.Mine(ctx, MineRequest{Notes: []MinedNote{{Memory: minedDecision(body)}}})
		if err != nil {
			t.Fatal(err)
		}
		grown := renders[1].body
		res, err := s.Mine(ctx, MineRequest{Notes: []MinedNote{{Memory: minedDecision(grown)}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Items[0].Outcome; got != MineUpdated {
			t.Errorf("outcome %s, want %s", got, MineUpdated)
		}
		if got := f.stored(first.Items[0].Path).Body; got != grown {
			t.Errorf("body %q, want the new render %q", got, grown)
		}
	})
}

// TestMineReadsOldHashes: a note written when source_hash covered the body
// alone is still cortex's while its body is (it follows the transcript),
// and the person's once they edited the body.
func TestMineReadsOldHashes(t *testing.T) {
	const body = "# Use tabs in the Makefile\n\n- Chosen: tabs\n"
	for _, tc := range []struct {
		name   string
		edited bool
		want   string
	}{
		{"body as cortex wrote it", false, MineUpdated},
		{"body edited", true, MineKept},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := minedDecision(body)
			old.Provenance.SourceHash = bodyHash(body)
			if tc.edited {
				old.Body += "\nMine.\n"
			}
			f := newFake(t, old)
			s, _ := newTestService(f)
			res, err := s.Mine(context.Background(), MineRequest{Notes: []MinedNote{{Memory: minedDecision(body + "\nMore.\n")}}})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Items[0].Outcome; got != tc.want {
				t.Errorf("outcome %s, want %s", got, tc.want)
			}
		})
	}
}
