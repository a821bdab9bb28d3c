package memories

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func due(d string) func(*Memory) { return func(m *Memory) { m.Due = d } }

// briefIDs lists, per section, the ids a briefing offers.
func briefIDs(b *Briefing) map[string][]string {
	out := map[string][]string{}
	for _, s := range b.Sections {
		out[s.Name] = []string{}
		for _, it := range s.Items {
			out[s.Name] = append(out[s.Name], it.Memory.ID)
		}
	}
	return out
}

func TestBriefSections(t *testing.T) {
	day := 24 * time.Hour
	today := testNow.Format(time.DateOnly)
	yesterday := testNow.Add(-day).Format(time.DateOnly)
	nextWeek := testNow.Add(7 * day).Format(time.DateOnly)
	f := newFake(t,
		// Open action items of the project and general: overdue first.
		mem(numbered(1), "Renew the TLS certificate", "before it expires", typ(TypeAction), status(StatusOpen), due(nextWeek)),
		mem(numbered(2), "Rotate the staging keys", "overdue", typ(TypeAction), status(StatusOpen), due(yesterday)),
		mem(numbered(3), "Write the runbook", "no date", typ(TypeAction), status(StatusOpen)),
		mem(numbered(4), "Due today is not overdue", "due today", typ(TypeAction), status(StatusOpen), due(today), project("general")),
		mem(numbered(5), "Done already", "closed", typ(TypeAction), status(StatusDone), due(yesterday)),
		mem(numbered(6), "Another project's item", "not ours", typ(TypeAction), status(StatusOpen), due(yesterday), project("api")),
		// The project's memories: ranked by importance and recency.
		mem(numbered(10), "Use RS256 for JWTs", "HS256 shares the secret", typ(TypeDecision), importance(5), area("security"), updated(2*day)),
		mem(numbered(11), "Pool size is forty", "since the load test", typ(TypeGotcha), area("security")),
		mem(numbered(12), "Old decision", "from long ago", typ(TypeDecision), importance(1), updated(300*day), created(testNow.Add(-300*day))),
		mem(numbered(13), "A session record", "history", typ(TypeSession)),
		mem(numbered(14), "An edit episode", "history", typ(TypeEpisode)),
		mem(numbered(15), "Superseded", "gone", status(StatusSuperseded)),
		mem(numbered(16), "Staging is in eu-west-1", "the region", typ(TypeFact)),
		mem(numbered(17), "Deploys on Tuesdays", "never Fridays", typ(TypeConvention), updated(3*day)),
		// L1: the project's area in other projects, and general.
		mem(numbered(20), "Security area note", "from another project", project("api"), area("security")),
		mem(numbered(21), "General convention", "for every project", project("general"), typ(TypeConvention)),
		mem(numbered(22), "Unrelated project", "not in the area", project("api")),
	)
	svc, _ := newTestService(f)
	// A limit of 5: a quarter (2) for the open items, the decisions and the
	// area's and general memories each, the project's memories at least half
	// (3).
	b, err := svc.Brief(context.Background(), BriefRequest{Project: "Web", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		SectionOpen:      {numbered(2), numbered(4)},                 // overdue, then by due date
		SectionProject:   {numbered(10), numbered(11), numbered(16)}, // importance, then recency, then id
		SectionDecisions: {numbered(12)},                             // the latest decision not shown above
		SectionArea:      {numbered(20), numbered(21)},               // equal scores: by id
	}
	if diff := cmp.Diff(briefIDs(b), want); diff != "" {
		t.Errorf("sections (-got +want):\n%s", diff)
	}
	if got := []string{b.Sections[0].Name, b.Sections[1].Name, b.Sections[2].Name, b.Sections[3].Name}; !cmp.Equal(got,
		[]string{SectionOpen, SectionProject, SectionDecisions, SectionArea}) {
		t.Errorf("section order %v", got)
	}
	if b.Project != "web" || !cmp.Equal(b.Areas, []string{"security"}) {
		t.Errorf("project %q, areas %v", b.Project, b.Areas)
	}
	open := b.Sections[0].Items
	if !open[0].Overdue || open[0].Why != "overdue since "+yesterday || open[1].Overdue || open[1].Why != "open, due "+today {
		t.Errorf("open items: %+v / %+v", open[0], open[1])
	}
	if b.Considered == 0 {
		t.Error("nothing considered")
	}
}

// Activation lifts an old memory into the project section, and a briefing
// records no access itself: the hook records what it injects.
func TestBriefActivationAndNoAccess(t *testing.T) {
	var ms []*Memory
	for i := 1; i <= 60; i++ {
		ms = append(ms, mem(numbered(i), "Note", "body", updated(time.Duration(i)*time.Hour)))
	}
	ms = append(ms, mem(numbered(100), "Used every day", "old but useful", updated(400*24*time.Hour)))
	f := newFake(t, ms...)
	log := &fakeAccess{stats: map[string]AccessStat{numbered(100): {Counts: map[string]int{AccessRecall: 40}, Last: testNow}}}
	svc, _ := newTestService(f, WithAccessLog(log))
	b, err := svc.Brief(context.Background(), BriefRequest{Project: "web", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := briefIDs(b)[SectionProject]; len(got) == 0 || got[0] != numbered(100) {
		t.Errorf("project section %v, want the activated %s first", got, numbered(100))
	}
	if len(log.recorded) != 0 {
		t.Errorf("Brief recorded %d accesses", len(log.recorded))
	}
	if err := svc.RecordAccess(context.Background(), []string{numbered(100)}, AccessSessionStart); err != nil {
		t.Fatal(err)
	}
	want := []Access{{ID: numbered(100), Time: testNow, Source: AccessSessionStart}}
	if diff := cmp.Diff(log.recorded, want); diff != "" {
		t.Errorf("recorded (-got +want):\n%s", diff)
	}
	log.err = errors.New("disk full")
	if err := svc.RecordAccess(context.Background(), []string{numbered(1)}, AccessSessionStart); err == nil {
		t.Error("a failed access record is not reported")
	}
}

func TestBriefInvalid(t *testing.T) {
	svc, _ := newTestService(newFake(t))
	_, err := svc.Brief(context.Background(), BriefRequest{Project: "a/b"})
	checkArgError(t, err, "project")
	_, err = svc.Brief(context.Background(), BriefRequest{Limit: 99})
	checkArgError(t, err, "limit")
	// No project: general's memories only.
	b, err := svc.Brief(context.Background(), BriefRequest{})
	if err != nil || b.Project != DefaultProject {
		t.Errorf("Brief() = %v, %v; want general", b, err)
	}
}

func TestPromptRecall(t *testing.T) {
	f := newFake(t,
		mem(numbered(1), "JWT signing algorithm", "We sign JWT tokens with RS256 in production."),
		mem(numbered(2), "Token lifetime", "Access tokens expire after fifteen minutes; refresh tokens after a week."),
		mem(numbered(3), "Unrelated", "The office plant needs water on Mondays."),
	)
	log := &fakeAccess{}
	svc, _ := newTestService(f, WithAccessLog(log))
	got, err := svc.PromptRecall(context.Background(), "which algorithm signs our JWT tokens?", "web", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].Memory.ID != numbered(1) {
		t.Fatalf("matches %v, want %s first", got, numbered(1))
	}
	if got[0].Coverage < 0.6 {
		t.Errorf("coverage of the answer %.2f, want most of the prompt's key words", got[0].Coverage)
	}
	for _, m := range got[1:] {
		if m.Coverage >= got[0].Coverage {
			t.Errorf("%s covers %.2f, not less than the answer's %.2f", m.Memory.ID, m.Coverage, got[0].Coverage)
		}
	}
	if len(log.recorded) != 0 {
		t.Errorf("prompt recall recorded %d accesses", len(log.recorded))
	}
	if got, err := svc.PromptRecall(context.Background(), "the and of", "web", 5); err != nil || len(got) != 0 {
		t.Errorf("a prompt of stop words: %v, %v", got, err)
	}
}

// The latest decisions come from the newest memories already found when
// those hold all of the project's; when the newest were cut short and hold
// too few decisions, from the project's decisions: an old decision is found
// either way, and the briefing searches no index (the catalog holds all it
// lists by date).
func TestBriefDecisionsSearch(t *testing.T) {
	small := newFake(t,
		mem(numbered(1), "Recent note", "body"),
		mem(numbered(2), "Old decision", "body", typ(TypeDecision), updated(900*24*time.Hour)))
	svc, _ := newTestService(small)
	b, err := svc.Brief(context.Background(), BriefRequest{Project: "web", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := briefIDs(b)[SectionDecisions]; !cmp.Equal(got, []string{numbered(2)}) || len(small.searches) != 0 {
		t.Errorf("decisions %v after %d searches, want the old decision found without a search", got, len(small.searches))
	}

	var ms []*Memory
	for i := 1; i <= 2*minCandidates+10; i++ {
		ms = append(ms, mem(numbered(i), "Note", "body", updated(time.Duration(i)*time.Minute)))
	}
	ms = append(ms, mem(numbered(500), "A decision older than every note", "body", typ(TypeDecision), updated(900*24*time.Hour)))
	big := newFake(t, ms...)
	svc, _ = newTestService(big)
	b, err = svc.Brief(context.Background(), BriefRequest{Project: "web", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := briefIDs(b)[SectionDecisions]; !cmp.Equal(got, []string{numbered(500)}) || len(big.searches) != 0 {
		t.Errorf("decisions %v after %d searches, want the old decision found without a search", got, len(big.searches))
	}
}

// TestBriefReadsOnlyItsEntries: a briefing asks the catalog for the entries of
// its project and general, then of the project's areas, never for every
// entry: decoding a large catalog whole was most of what it cost.
func TestBriefReadsOnlyItsEntries(t *testing.T) {
	f := newFake(t,
		mem(numbered(1), "Use RS256 for JWTs", "HS256 shares the secret", typ(TypeDecision), area("security")),
		mem(numbered(2), "Deploys on Tuesdays", "never Fridays", typ(TypeConvention)),
		mem(numbered(3), "General convention", "for every project", project("general")),
		mem(numbered(4), "Security area note", "from another project", project("api"), area("security")),
		mem(numbered(5), "Unrelated project", "not in the area", project("api")),
		mem(numbered(6), "Another area", "of another project", project("api"), area("billing")),
	)
	f.selects = true
	svc, _ := newTestService(f)
	if _, err := svc.Brief(context.Background(), BriefRequest{Project: "web", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if f.entriesCalls != 0 {
		t.Errorf("the briefing listed every entry %d times", f.entriesCalls)
	}
	var got []string
	for _, p := range f.selected {
		got = append(got, f.mems[p].Title)
	}
	slices.Sort(got)
	want := []string{"Deploys on Tuesdays", "General convention", "Security area note", "Use RS256 for JWTs", "Use RS256 for JWTs"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries read (-want +got):\n%s", diff)
	}
}

// TestRecallWithoutTextReadsTheCatalog: a recall without text (the playbook
// of a briefing, `cortex recall --project p`, `--since 7d`) takes its
// candidates from the catalog's entries of the projects asked for, not
// from an index search, and finds what the search found, in the same order.
func TestRecallWithoutTextReadsTheCatalog(t *testing.T) {
	day := 24 * time.Hour
	newF := func() *fakeBackend {
		return newFake(t,
			mem(numbered(1), "Use RS256 for JWTs", "HS256 shares the secret", typ(TypeDecision), updated(2*day)),
			mem(numbered(2), "Deploys on Tuesdays", "never Fridays", typ(TypeConvention), updated(3*day)),
			mem(numbered(3), "General convention", "for every project", project("general"), typ(TypeConvention)),
			mem(numbered(4), "Another project", "not asked", project("api"), typ(TypeConvention)),
			mem(numbered(5), "Old convention", "long ago", typ(TypeConvention), updated(300*day)),
			mem(numbered(6), "Superseded", "gone", typ(TypeConvention), status(StatusSuperseded)),
		)
	}
	for _, req := range []RecallRequest{
		{Project: "web", Type: string(TypeConvention), NoAccess: true},
		{Project: "web", NoAccess: true},
		{Project: "general", NoAccess: true, Limit: 2},
		{Project: "web", Since: "30d", NoAccess: true},
		{Since: "7d", NoAccess: true},
		{Project: "web", Scope: ScopeRecent, NoAccess: true},
	} {
		searched := newF()
		svc, _ := newTestService(searched)
		want, err := svc.Recall(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		selected := newF()
		selected.selects = true
		svc, _ = newTestService(selected)
		got, err := svc.Recall(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(selected.searches) != 0 {
			t.Errorf("%+v: searched the index %v", req, selected.searches)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%+v: (-index +catalog)\n%s", req, diff)
		}
	}
}
