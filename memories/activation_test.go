package memories

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fakeAccess is an in-memory access log.
type fakeAccess struct {
	recorded []Access
	stats    map[string]AccessStat
	err      error
	asked    [][]string
}

func (a *fakeAccess) Record(_ context.Context, as []Access) error {
	if a.err != nil {
		return a.err
	}
	a.recorded = append(a.recorded, as...)
	return nil
}

func (a *fakeAccess) Stats(_ context.Context, ids []string) (map[string]AccessStat, error) {
	a.asked = append(a.asked, ids)
	if a.err != nil {
		return nil, a.err
	}
	out := map[string]AccessStat{}
	for id, st := range a.stats {
		if ids == nil || slices.Contains(ids, id) {
			out[id] = st
		}
	}
	return out, nil
}

func TestActivationOf(t *testing.T) {
	def := DefaultActivation()
	day := 24 * time.Hour
	tests := []struct {
		name string
		a    Activation
		st   AccessStat
		ago  time.Duration // since the last access
		want float64
	}{
		{"never accessed", def, AccessStat{}, 0, 0},
		{"one recall just now", def, AccessStat{Counts: map[string]int{AccessRecall: 1}}, 0, 0.1},
		{"three recalls just now", def, AccessStat{Counts: map[string]int{AccessRecall: 3}}, 0, 0.3},
		// 0.1 × 3 × e^(−0.05 × 10)
		{"three recalls ten days ago", def, AccessStat{Counts: map[string]int{AccessRecall: 3}}, 10 * day, 0.3 * math.Exp(-0.5)},
		// session start weighs 0.05: 0.1×2 + 0.05×4 = 0.4, a day later × e^−0.05
		{"per-source weights", def, AccessStat{Counts: map[string]int{AccessRecall: 2, AccessSessionStart: 4}}, day, 0.4 * math.Exp(-0.05)},
		{"an unknown source takes the base weight", def, AccessStat{Counts: map[string]int{"other": 2}}, 0, 0.2},
		{"capped at 1", def, AccessStat{Counts: map[string]int{AccessRecall: 40}}, 0, 1},
		{"a future access counts as now", def, AccessStat{Counts: map[string]int{AccessRecall: 1}}, -day, 0.1},
		{"no decay", Activation{Weight: 0.2}, AccessStat{Counts: map[string]int{AccessContext: 2}}, 300 * day, 0.4},
		{"zero weights", Activation{Decay: 0.05}, AccessStat{Counts: map[string]int{AccessRecall: 9}}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := tt.st
			st.Last = testNow.Add(-tt.ago)
			if got := tt.a.Of(st, testNow); !approx(got, tt.want) {
				t.Errorf("got %g, want %g", got, tt.want)
			}
		})
	}
}

func TestActivationDecaysOverTime(t *testing.T) {
	a := DefaultActivation()
	st := AccessStat{Counts: map[string]int{AccessRecall: 5}, Last: testNow}
	prev := 2.0
	for d := 0; d <= 120; d += 10 {
		got := a.Of(st, testNow.AddDate(0, 0, d))
		if got >= prev && d > 0 {
			t.Errorf("day %d: %g, not below day %d's %g", d, got, d-10, prev)
		}
		if want := 0.5 * math.Exp(-0.05*float64(d)); !approx(got, want) {
			t.Errorf("day %d: %g, want %g", d, got, want)
		}
		prev = got
	}
}

func TestActivationCheck(t *testing.T) {
	for _, tt := range []struct {
		a   Activation
		arg string
	}{
		{Activation{Weight: -1}, "recall.activation.weight"},
		{Activation{Weight: math.NaN()}, "recall.activation.weight"},
		{Activation{Decay: math.Inf(1)}, "recall.activation.decay"},
		{Activation{Sources: map[string]float64{"recall": -0.1}}, "recall.activation.sources.recall"},
	} {
		checkArgError(t, tt.a.Check(), tt.arg, "must be a number")
	}
	if err := DefaultActivation().Check(); err != nil {
		t.Errorf("default: %v", err)
	}
}

func TestRecallUsesActivation(t *testing.T) {
	// Two memories alike in every other way; the one recalled often ranks
	// first, and the explanation shows why.
	a := mem(numbered(1), "Cache rule", "about the cache")
	b := mem(numbered(2), "Cache rule", "about the cache")
	log := &fakeAccess{stats: map[string]AccessStat{
		numbered(2): {Counts: map[string]int{AccessRecall: 4}, Last: testNow.Add(-48 * time.Hour)},
	}}
	f := newFake(t, a, b)
	svc, _ := newTestService(f, WithAccessLog(log))
	res, err := svc.Recall(context.Background(), RecallRequest{Query: "cache"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recalledIDs(res), []string{numbered(2), numbered(1)}); diff != "" {
		t.Fatalf("order (-got +want):\n%s", diff)
	}
	wantAct := 0.4 * math.Exp(-0.1)
	top := res.Results[0]
	if !approx(top.Signals.Activation, wantAct) || res.Results[1].Signals.Activation != 0 {
		t.Errorf("activations %g, %g; want %g, 0", top.Signals.Activation, res.Results[1].Signals.Activation, wantAct)
	}
	w := top.Weights
	if sum := w.Relevance*top.Signals.Relevance + w.Recency*top.Signals.Recency + w.Activation*top.Signals.Activation + w.Importance*top.Signals.Importance; !approx(sum, top.Score) {
		t.Errorf("weights × signals = %g, score %g", sum, top.Score)
	}
	// The stats were asked for the candidates only, and both results were
	// recorded as recalled, at the service's time.
	if diff := cmp.Diff(log.asked, [][]string{{numbered(1), numbered(2)}}, sortStrings()); diff != "" {
		t.Errorf("stats asked for (-got +want):\n%s", diff)
	}
	want := []Access{{ID: numbered(2), Time: testNow, Source: AccessRecall}, {ID: numbered(1), Time: testNow, Source: AccessRecall}}
	if diff := cmp.Diff(log.recorded, want); diff != "" {
		t.Errorf("recorded (-got +want):\n%s", diff)
	}
}

func sortStrings() cmp.Option {
	return cmp.Transformer("sorted", func(in []string) []string {
		out := slices.Clone(in)
		slices.Sort(out)
		return out
	})
}

func TestRecallRecordsTheSourceAsked(t *testing.T) {
	log := &fakeAccess{}
	f := newFake(t, mem(numbered(1), "Cache rule", "about the cache"))
	svc, _ := newTestService(f, WithAccessLog(log))
	if _, err := svc.Recall(context.Background(), RecallRequest{Project: "web", Source: AccessSessionStart}); err != nil {
		t.Fatal(err)
	}
	if len(log.recorded) != 1 || log.recorded[0].Source != AccessSessionStart {
		t.Errorf("recorded %+v, want one session_start access", log.recorded)
	}
	// Nothing found, nothing recorded.
	log.recorded = nil
	if _, err := svc.Recall(context.Background(), RecallRequest{Query: "zebra"}); err != nil {
		t.Fatal(err)
	}
	if len(log.recorded) != 0 {
		t.Errorf("recorded %+v for an empty result", log.recorded)
	}
}

func TestRecallSurvivesABrokenAccessLog(t *testing.T) {
	log := &fakeAccess{err: errors.New("disk full")}
	var warnings []string
	f := newFake(t, mem(numbered(1), "Cache rule", "about the cache"))
	svc, _ := newTestService(f, WithAccessLog(log), WithWarn(func(s string) { warnings = append(warnings, s) }))
	res, err := svc.Recall(context.Background(), RecallRequest{Query: "cache"})
	if err != nil || len(res.Results) != 1 {
		t.Fatalf("recall with a broken access log: %v, %+v", err, res)
	}
	if len(warnings) != 2 { // reading the stats, then recording
		t.Errorf("warnings %q, want two", warnings)
	}
}

func TestRecallWithoutQueryFindsActivatedOldMemories(t *testing.T) {
	// Sixty recent memories fill the date-ordered candidates; an old one that is
	// recalled every day still makes the top ten, and one of another project
	// does not.
	var ms []*Memory
	for i := 1; i <= 60; i++ {
		ms = append(ms, mem(numbered(i), "Recent note", "recent", updated(time.Duration(i)*time.Hour)))
	}
	old := mem(numbered(100), "Old favourite", "old", updated(90*24*time.Hour), importance(5))
	elsewhere := mem(numbered(101), "Elsewhere", "old", updated(90*24*time.Hour), project("api"))
	ms = append(ms, old, elsewhere)
	log := &fakeAccess{stats: map[string]AccessStat{
		old.ID:       {Counts: map[string]int{AccessRecall: 30}, Last: testNow.Add(-time.Hour)},
		elsewhere.ID: {Counts: map[string]int{AccessRecall: 30}, Last: testNow.Add(-time.Hour)},
	}}
	f := newFake(t, ms...)
	svc, _ := newTestService(f, WithAccessLog(log))
	res, err := svc.Recall(context.Background(), RecallRequest{Project: "web"})
	if err != nil {
		t.Fatal(err)
	}
	ids := recalledIDs(res)
	if !slices.Contains(ids, old.ID) || slices.Contains(ids, elsewhere.ID) {
		t.Errorf("results %v: want %s and not %s", ids, old.ID, elsewhere.ID)
	}
	if res.Results[0].Memory.ID != old.ID {
		t.Errorf("first is %s, want the activated %s", res.Results[0].Memory.ID, old.ID)
	}
}

// TestActivationSumOrderFixed: the sources' weighted counts are added in one
// order, so the same accesses give the same bits every time (0.1 + 0.2 + 0.3
// and 0.3 + 0.2 + 0.1 differ in the last bit, and a map's order varies).
func TestActivationSumOrderFixed(t *testing.T) {
	a := Activation{Weight: 0.1, Sources: map[string]float64{"a": 0.1, "b": 0.2, "c": 0.3}}
	now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	st := AccessStat{Counts: map[string]int{"c": 1, "a": 1, "b": 1}, Last: now}
	want := 0.0 // the sources in name order, in float64 arithmetic
	for _, w := range []float64{0.1, 0.2, 0.3} {
		want += w
	}
	for i := range 200 {
		if got := a.Of(st, now); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("run %d: Of = %.17g, want %.17g (the sources in name order)", i, got, want)
		}
	}
}

// TestRecallWithoutQueryActivatesBeyondTheListingOnly: without a query, the
// most activated memories are added to the candidates, which a catalog lists
// by date. When the listing holds every memory that passes the filters (a
// project's few conventions), none is left to add, and the activated
// memories of other types are not looked at one by one (the briefing's
// playbook asks so twice, and looking was half of a briefing's time). When
// it is cut short, an activated old memory still makes the results.
func TestRecallWithoutQueryActivatesBeyondTheListingOnly(t *testing.T) {
	var ms []*Memory
	stats := map[string]AccessStat{}
	for i := 1; i <= 80; i++ {
		m := mem(numbered(i), "Note", "a note", updated(time.Duration(i)*time.Hour))
		if i%20 == 0 {
			m.Type = TypeConvention
		}
		ms = append(ms, m)
		stats[m.ID] = AccessStat{Counts: map[string]int{AccessRecall: 1 + i%7}, Last: testNow.Add(-time.Hour)}
	}
	old := mem(numbered(100), "Old favourite", "old", updated(90*24*time.Hour), typ(TypeConvention))
	ms = append(ms, old)
	stats[old.ID] = AccessStat{Counts: map[string]int{AccessRecall: 30}, Last: testNow.Add(-time.Hour)}
	for _, selects := range []bool{false, true} {
		f := newFake(t, ms...)
		f.selects = selects
		svc, _ := newTestService(f, WithAccessLog(&fakeAccess{stats: stats}))
		res, err := svc.Recall(context.Background(), RecallRequest{Project: "web", Type: string(TypeConvention), NoAccess: true})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{old.ID, numbered(20), numbered(40), numbered(60), numbered(80)}
		if diff := cmp.Diff(want, recalledIDs(res), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
			t.Errorf("selects %v: conventions (-want +got):\n%s", selects, diff)
		}
		if selects && f.gets != 0 {
			t.Errorf("the catalog listed every convention, and recall still looked up %d activated memories", f.gets)
		}
		// A listing cut short: the old favourite comes from its activation.
		res, err = svc.Recall(context.Background(), RecallRequest{Project: "web", Limit: 10, NoAccess: true})
		if err != nil {
			t.Fatal(err)
		}
		if ids := recalledIDs(res); !slices.Contains(ids, old.ID) {
			t.Errorf("selects %v: results %v, want the activated %s among them", selects, ids, old.ID)
		}
	}
}

// TestAddActivatedIsTheOrderedWalk: addActivated picks the first activated
// memories by a bounded heap and sorts the rest only when too few of those
// pass: what it adds is, in order, what a walk of every activated memory
// sorted (the highest first, ties by id) adds, whether the ones that pass
// are among the first picked, past them, or both.
func TestAddActivatedIsTheOrderedWalk(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		// convention says which of the n memories, in order of activation, pass
		// the filter.
		convention func(i int) bool
	}{
		{"all among the first", 400, func(i int) bool { return i%3 == 0 }},
		{"all past the first", 400, func(i int) bool { return i >= activatedLooks+10 }},
		{"a few, then past the first", 600, func(i int) bool { return i < 5 || i%50 == 7 && i > activatedLooks }},
		{"none", 300, func(int) bool { return false }},
		{"fewer than the heap holds", 40, func(i int) bool { return i%2 == 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ms []*Memory
			stats := map[string]AccessStat{}
			type act struct {
				id string
				a  float64
			}
			var acts []act
			svc0, _ := newTestService(newFake(t))
			for i := range tc.n {
				m := mem(numbered(i+1), "Note", "a note")
				if tc.convention(i) {
					m.Type = TypeConvention
				}
				ms = append(ms, m)
				// Ties of three: the order between them is by id.
				st := AccessStat{Counts: map[string]int{AccessRecall: 1 + (tc.n-i)/3}, Last: testNow.Add(-time.Hour)}
				stats[m.ID] = st
				acts = append(acts, act{m.ID, svc0.ranking.Activation.Of(st, testNow)})
			}
			slices.SortFunc(acts, func(x, y act) int {
				if x.a != y.a {
					if x.a > y.a {
						return -1
					}
					return 1
				}
				return strings.Compare(x.id, y.id)
			})
			f := newFake(t, ms...)
			q := SearchRequest{Type: TypeConvention}
			have := []Hit{{Entry: Entry{ID: acts[len(acts)-1].id}}} // a candidate already: not added again
			var want []string
			for _, a := range acts {
				if len(want) == activeCandidates {
					break
				}
				if e := f.mems[fakePath(&Memory{ID: a.id, Project: "web"})]; e.Type == TypeConvention && a.id != have[0].ID {
					want = append(want, a.id)
				}
			}
			svc, _ := newTestService(f, WithAccessLog(&fakeAccess{stats: stats}))
			var got []string
			err := f.View(context.Background(), func(snap Snapshot) error {
				hits, err := svc.addActivated(context.Background(), snap, q, slices.Clone(have))
				for _, h := range hits[1:] {
					got = append(got, h.ID)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("added (-want +got):\n%s", diff)
			}
		})
	}
}
