package memories

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of the briefing")

// visitorAccess is fakeAccess that also shows every memory's accesses one
// by one, as the access log does (AccessVisitor).
type visitorAccess struct{ *fakeAccess }

func (v visitorAccess) EachStat(ctx context.Context, fn func(string, AccessStat)) error {
	all, err := v.Stats(ctx, nil)
	if err != nil {
		return err
	}
	for id, st := range all {
		fn(id, st)
	}
	return nil
}

// tallierAccess is fakeAccess that also tallies every memory's accesses
// per source (AccessTallier), its sources listed out of name order so that
// the order of the sums is tested.
type tallierAccess struct{ *fakeAccess }

func (v tallierAccess) TallySources() []string {
	return []string{AccessSessionStart, "hook", AccessRecall, AccessContext}
}

func (v tallierAccess) EachTally(ctx context.Context, fn func(string, []int, time.Time)) error {
	all, err := v.Stats(ctx, nil)
	if err != nil {
		return err
	}
	srcs := v.TallySources()
	for id, st := range all {
		counts := make([]int, len(srcs))
		for src, n := range st.Counts {
			i := slices.Index(srcs, src)
			if i < 0 {
				return fmt.Errorf("source %q not tallied", src)
			}
			counts[i] = n
		}
		fn(id, counts, st.Last)
	}
	return nil
}

// briefVault is a vault of 900 memories over four projects with every
// section's material (open and done action items, due dates, decisions,
// areas, history records, superseded memories, ties of update times) and
// accesses for a third of them.
func briefVault(t *testing.T) (*fakeBackend, map[string]AccessStat) {
	t.Helper()
	r := rand.New(rand.NewPCG(15, 2026))
	projects := []string{"web", "api", "ops", DefaultProject}
	areas := []string{"", "", "security", "db", "infra"}
	types := []Type{TypeNote, TypeFact, TypeDecision, TypeAction, TypeConvention, TypeGotcha, TypeSession, TypeEpisode}
	day := 24 * time.Hour
	var ms []*Memory
	stats := map[string]AccessStat{}
	for n := 1; n <= 900; n++ {
		typ := types[r.IntN(len(types))]
		opts := []func(*Memory){
			project(projects[r.IntN(len(projects))]), area(areas[r.IntN(len(areas))]), func(m *Memory) { m.Type = typ },
			importance(1 + r.IntN(5)),
			// Whole days: many memories share an update time.
			updated(time.Duration(r.IntN(400)) * day),
			created(testNow.Add(-time.Duration(400+r.IntN(400)) * day)),
		}
		if typ == TypeAction {
			opts = append(opts, status([]Status{StatusOpen, StatusOpen, StatusDone}[r.IntN(3)]))
			if d := r.IntN(40) - 20; d != 0 {
				opts = append(opts, due(testNow.Add(time.Duration(d)*day).Format(time.DateOnly)))
			}
		} else if r.IntN(12) == 0 {
			opts = append(opts, status(StatusSuperseded))
		}
		id := numbered(n)
		ms = append(ms, mem(id, fmt.Sprintf("Memory %d", n), "body", opts...))
		if r.IntN(3) == 0 {
			stats[id] = AccessStat{
				Counts: map[string]int{AccessRecall: r.IntN(30), AccessSessionStart: r.IntN(10), "hook": r.IntN(3)},
				Last:   testNow.Add(-time.Duration(r.IntN(200)) * day),
			}
		}
	}
	return newFake(t, ms...), stats
}

// A briefing holds what it held before the catalog replaced the index's
// searches and the access log was read one memory at a time: the golden
// file was written by the briefing that searched the index and read a map
// of every memory's accesses.
func TestBriefUnchanged(t *testing.T) {
	f, stats := briefVault(t)
	var b strings.Builder
	for _, log := range []struct {
		name string
		log  AccessLog
	}{
		{"map", &fakeAccess{stats: stats}},
		{"visitor", visitorAccess{&fakeAccess{stats: stats}}},
		{"tally", tallierAccess{&fakeAccess{stats: stats}}},
	} {
		b.Reset()
		svc, _ := newTestService(f, WithAccessLog(log.log))
		for _, project := range []string{"web", "ops", DefaultProject, "nowhere"} {
			for _, limit := range []int{1, 3, 10, 25, 50} {
				br, err := svc.Brief(context.Background(), BriefRequest{Project: project, Limit: limit})
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "# %s, limit %d: areas %v, %d considered\n", project, limit, br.Areas, br.Considered)
				for _, it := range br.Items() {
					fmt.Fprintf(&b, "%s %s %q score %.6f activation %.6f recency %.6f due %q overdue %v\n", it.Section, it.Memory.ID,
						it.Why, it.Score, it.Signals.Activation, it.Signals.Recency, it.Due, it.Overdue)
				}
			}
		}
		golden := filepath.Join("testdata", "brief_unchanged.golden")
		if *updateGolden && log.name == "map" {
			if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), b.String()); diff != "" {
			t.Errorf("briefings with the %s access log (-golden +got):\n%s", log.name, diff)
		}
	}
}
