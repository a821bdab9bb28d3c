package memories

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestEventsAreStampedWhenMade: every line of the audit log carries the time
// the change was made, never the date of the note it is about — an imported
// note keeps its source's date, a mined one its transcript's.
func TestEventsAreStampedWhenMade(t *testing.T) {
	old := time.Date(2019, 3, 1, 8, 0, 0, 0, time.UTC)
	want := testNow.UTC().Truncate(time.Second)
	dated := func(r *SaveRequest) { r.Created = old }
	minedNote := func(id, body string) MinedNote {
		return MinedNote{Memory: &Memory{ID: id, Title: "Use tabs in hello.txt", Type: TypeDecision, Project: "p", Source: SourceMined,
			Path: "decisions/p/use-tabs-" + id + ".md", Body: body, Created: old, Updated: old, Status: StatusActive, Importance: 3}}
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, s *Service)
		ops  []string
	}{
		{"save", func(t *testing.T, s *Service) {
			if _, err := s.Save(ctx, SaveRequest{Content: "The walrus tank filter is rinsed every second Tuesday.", Created: old}); err != nil {
				t.Fatal(err)
			}
		}, []string{OpSave}},
		{"import, and a duplicate refused", func(t *testing.T, s *Service) {
			s.importer = &fakeImporter{set: &ImportSet{Files: 2, Candidates: []ImportCandidate{
				cand("notes/a.md", "The walrus tank filter is rinsed every second Tuesday.", "h-a", dated),
				cand("notes/b.md", "The walrus tank filter is rinsed every second Tuesday.", "h-b", dated),
			}}}
			if _, err := s.Import(ctx, ImportRequest{Path: "notes"}); err != nil {
				t.Fatal(err)
			}
		}, []string{OpReject, OpImport}},
		{"mine, then mine more", func(t *testing.T, s *Service) {
			id := "01jd0000000000000000000001"
			if _, err := s.Mine(ctx, MineRequest{Notes: []MinedNote{minedNote(id, "Use tabs instead of spaces in hello.txt.")}}); err != nil {
				t.Fatal(err)
			}
			res, err := s.Mine(ctx, MineRequest{Notes: []MinedNote{minedNote(id, "Use tabs instead of spaces in hello.txt, and in README.txt.")}})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Items[0].Outcome; got != MineUpdated {
				t.Fatalf("second mine: %s, want %s", got, MineUpdated)
			}
		}, []string{OpMine, OpUpdate}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			s, _ := newTestService(f)
			tc.run(t, s)
			var ops []string
			for _, ev := range append(f.events, f.logged...) {
				ops = append(ops, ev.Op)
				if !ev.Time.Equal(want) {
					t.Errorf("%s event stamped %s, want the time of the change %s", ev.Op, ev.Time, want)
				}
			}
			if diff := cmp.Diff(ops, tc.ops); diff != "" {
				t.Errorf("events (-got +want):\n%s", diff)
			}
		})
	}
}
