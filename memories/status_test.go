package memories

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type fakeInbox struct {
	bl  InboxBacklog
	err error
}

func (f fakeInbox) Backlog() (InboxBacklog, error) { return f.bl, f.err }

type fakeHooks struct{ act *HookActivity }

func (f fakeHooks) Activity(time.Time) (*HookActivity, error) { return f.act, nil }

func statusIDs(items []StatusItem) []string {
	ids := []string{}
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	return ids
}

func TestStatus(t *testing.T) {
	day := 24 * time.Hour
	yesterday := testNow.Add(-day).Format(time.DateOnly)
	lastMonth := testNow.Add(-40 * day).Format(time.DateOnly)
	f := newFake(t,
		mem(numbered(1), "Fresh note", "made today", updated(time.Hour), created(testNow.Add(-time.Hour))),
		mem(numbered(2), "Edited this week", "old, edited", updated(2*day), created(testNow.Add(-90*day))),
		mem(numbered(3), "Old note", "untouched", project("api"), updated(60*day), created(testNow.Add(-60*day))),
		mem(numbered(4), "Overdue and stale", "open", typ(TypeAction), status(StatusOpen), due(lastMonth), updated(45*day), created(testNow.Add(-45*day))),
		mem(numbered(5), "Overdue since yesterday", "open", typ(TypeAction), status(StatusOpen), due(yesterday), project("api"), updated(3*day), created(testNow.Add(-3*day))),
		mem(numbered(6), "Open, no date, stale", "open", typ(TypeAction), status(StatusOpen), updated(31*day), created(testNow.Add(-31*day))),
		mem(numbered(7), "Done", "closed", typ(TypeAction), status(StatusDone), due(lastMonth), updated(10*day), created(testNow.Add(-10*day))),
		mem(numbered(8), "Replaced", "old", status(StatusSuperseded), updated(time.Hour), created(testNow.Add(-time.Hour))),
	)
	inboxState := InboxBacklog{Dir: "/state/inbox", Pending: 2, Failed: 1, LastFailure: "01jx", LastFailureError: "boom"}
	hookState := &HookActivity{Log: "/state/hooks.log", Runs: 3, Errors: 1}
	svc, _ := newTestService(f, WithInbox(fakeInbox{bl: inboxState}), WithHooks(fakeHooks{act: hookState}))
	res, err := svc.Status(context.Background(), StatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(res.Totals, StatusTotals{Memories: 8, Active: 3, Open: 3, Done: 1, Superseded: 1}); diff != "" {
		t.Errorf("totals (-got +want):\n%s", diff)
	}
	wantProjects := []ProjectStatus{
		{Name: "web", Memories: 5, Open: 2, Overdue: 1, LastUpdated: testNow.Add(-time.Hour)},
		{Name: "api", Memories: 2, Open: 1, Overdue: 1, LastUpdated: testNow.Add(-3 * day)},
	}
	if diff := cmp.Diff(res.Projects, wantProjects); diff != "" {
		t.Errorf("projects (-got +want):\n%s", diff)
	}
	if res.Recent.Created != 2 || res.Recent.Updated != 1 || !cmp.Equal(statusIDs(res.Recent.Items), []string{numbered(1), numbered(2), numbered(5)}) {
		t.Errorf("recent = %+v", res.Recent)
	}
	if got := statusIDs(res.Overdue); !cmp.Equal(got, []string{numbered(4), numbered(5)}) || res.OverdueCount != 2 {
		t.Errorf("overdue = %v (%d)", got, res.OverdueCount)
	}
	if res.Overdue[0].Due != lastMonth {
		t.Errorf("overdue due %q, want %q", res.Overdue[0].Due, lastMonth)
	}
	if got := statusIDs(res.Stale); !cmp.Equal(got, []string{numbered(4), numbered(6)}) || res.StaleCount != 2 {
		t.Errorf("stale = %v (%d)", got, res.StaleCount)
	}
	if diff := cmp.Diff(res.Inbox, &inboxState); diff != "" {
		t.Errorf("inbox (-got +want):\n%s", diff)
	}
	if res.Hooks != hookState {
		t.Errorf("hooks = %+v", res.Hooks)
	}
	if res.Index.Notes != 8 || res.Index.Error != "" {
		t.Errorf("index = %+v", res.Index)
	}
}

// Every list is bounded; the counts say how many there are.
func TestStatusBounded(t *testing.T) {
	var ms []*Memory
	for i := 1; i <= 30; i++ {
		ms = append(ms, mem(numbered(i), fmt.Sprintf("Item %d", i), "open", typ(TypeAction), status(StatusOpen),
			project(fmt.Sprintf("p%02d", i)), due("2020-01-01"), updated(100*24*time.Hour)))
	}
	svc, _ := newTestService(newFake(t, ms...))
	res, err := svc.Status(context.Background(), StatusRequest{Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Projects) != 4 || res.ProjectCount != 30 || len(res.Overdue) != 4 || res.OverdueCount != 30 ||
		len(res.Stale) != 4 || res.StaleCount != 30 {
		t.Errorf("projects %d/%d, overdue %d/%d, stale %d/%d", len(res.Projects), res.ProjectCount, len(res.Overdue), res.OverdueCount,
			len(res.Stale), res.StaleCount)
	}
	if res.Inbox != nil || res.Hooks != nil {
		t.Errorf("inbox %v, hooks %v without reporters", res.Inbox, res.Hooks)
	}
	for _, req := range []StatusRequest{{Limit: 51}, {Days: -1}, {StaleDays: 4000}} {
		_, err := svc.Status(context.Background(), req)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("Status(%+v) = %v, want an invalid argument", req, err)
		}
	}
}

// An index that cannot be read empties the memory sections and says why;
// the inbox is reported still (status is how a person finds out).
func TestStatusIndexBroken(t *testing.T) {
	f := newFake(t, mem(numbered(1), "Note", "body"))
	svc := NewService(&brokenBackend{f}, WithClock(func() time.Time { return testNow }), WithInbox(fakeInbox{bl: InboxBacklog{Pending: 4}}))
	res, err := svc.Status(context.Background(), StatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Index.Error != "index: corrupt" || res.Totals.Memories != 0 || res.Inbox == nil || res.Inbox.Pending != 4 {
		t.Errorf("status = %+v", res)
	}
}

type brokenBackend struct{ *fakeBackend }

func (b *brokenBackend) View(context.Context, func(Snapshot) error) error {
	return errors.New("index: corrupt")
}
