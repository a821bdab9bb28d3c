package memories

import (
	"context"
	"sort"
	"time"
)

// Status defaults and limits.
const (
	DefaultStatusDays  = 7
	DefaultStaleDays   = 30
	DefaultStatusLimit = 10
	MaxStatusLimit     = 50
	// maxDueLoads bounds the open action items status reads for their due
	// dates.
	maxDueLoads = 5000
)

// StatusRequest asks for the overview of SPEC §4.10.
type StatusRequest struct {
	// Days is the window of recent activity (default 7).
	Days int
	// StaleDays is how long an open action item may go without an update
	// before it counts as stale (default 30).
	StaleDays int
	// Limit bounds every list of the answer (default 10, at most 50).
	Limit int
}

// StatusResult is the overview. Every list holds at most the request's
// limit; the counts beside them say how many there are in all.
type StatusResult struct {
	Now      time.Time       `json:"now"`
	Totals   StatusTotals    `json:"totals"`
	Projects []ProjectStatus `json:"projects"`
	// ProjectCount is how many projects there are in all.
	ProjectCount int            `json:"project_count"`
	Recent       RecentActivity `json:"recent"`
	Overdue      []StatusItem   `json:"overdue"`
	OverdueCount int            `json:"overdue_count"`
	Stale        []StatusItem   `json:"stale"`
	StaleCount   int            `json:"stale_count"`
	StaleDays    int            `json:"stale_days"`
	// Inbox is the capture inbox's backlog; nil without an inbox.
	Inbox *InboxBacklog `json:"inbox,omitempty"`
	Index IndexStatus   `json:"index"`
	// Hooks is what the hooks did lately; nil when nothing reports it.
	Hooks *HookActivity `json:"hooks,omitempty"`
}

// StatusTotals count the memories by status.
type StatusTotals struct {
	Memories   int `json:"memories"`
	Active     int `json:"active"`
	Open       int `json:"open"`
	Done       int `json:"done"`
	Superseded int `json:"superseded"`
}

// ProjectStatus is one project: its live memories, open and overdue items,
// and when it last changed.
type ProjectStatus struct {
	Name        string    `json:"name"`
	Memories    int       `json:"memories"`
	Open        int       `json:"open"`
	Overdue     int       `json:"overdue"`
	LastUpdated time.Time `json:"last_updated"`
}

// RecentActivity is what was created or updated in the last Days days.
type RecentActivity struct {
	Days    int          `json:"days"`
	Created int          `json:"created"`
	Updated int          `json:"updated"`
	Items   []StatusItem `json:"items"`
}

// StatusItem is one memory in a status list.
type StatusItem struct {
	ID      string    `json:"id"`
	ShortID string    `json:"short_id"`
	Title   string    `json:"title"`
	Project string    `json:"project"`
	Type    Type      `json:"type"`
	Status  Status    `json:"status"`
	Due     string    `json:"due,omitempty"`
	Updated time.Time `json:"updated"`
	Path    string    `json:"path"`
}

// IndexStatus is the index's health as status sees it cheaply (doctor
// checks it thoroughly).
type IndexStatus struct {
	// Notes counts the notes indexed (unreadable ones included).
	Notes int `json:"notes"`
	// Unreadable counts notes that cannot be read; -1 when unknown.
	Unreadable int `json:"unreadable"`
	// Error is why the index could not be read; the other sections are
	// then empty.
	Error string `json:"error,omitempty"`
}

// InboxBacklog is what waits in the capture inbox.
type InboxBacklog struct {
	Dir     string `json:"dir"`
	Pending int    `json:"pending"`
	Failed  int    `json:"failed"`
	// OldestPending is when the oldest pending event was captured.
	OldestPending time.Time `json:"oldest_pending,omitzero"`
	// LastFailure is the newest failed event, LastFailureError why (the
	// first line of what normalize wrote beside it).
	LastFailure      string `json:"last_failure,omitempty"`
	LastFailureError string `json:"last_failure_error,omitempty"`
	// Error is why the inbox could not be read.
	Error string `json:"error,omitempty"`
}

// HookActivity is what the lifecycle hooks did lately.
type HookActivity struct {
	// Log is the hooks' log file.
	Log string `json:"log"`
	// Runs and Errors count the hook runs and failed runs of the last day.
	Runs   int `json:"runs_24h"`
	Errors int `json:"errors_24h"`
	// LastError is the latest failure, when it is of the last day.
	LastError     string    `json:"last_error,omitempty"`
	LastErrorTime time.Time `json:"last_error_time,omitzero"`
	// LastBriefing is the latest session-start receipt.
	LastBriefing *BriefingReceipt `json:"last_briefing,omitempty"`
}

// BriefingReceipt sums up what one session-start injected.
type BriefingReceipt struct {
	Time    time.Time `json:"time"`
	Client  string    `json:"client"`
	Project string    `json:"project"`
	Items   int       `json:"items"`
	Tokens  int       `json:"tokens"`
	Budget  int       `json:"budget_tokens"`
	Path    string    `json:"path"`
}

// InboxReporter reports the capture inbox's backlog (package inbox).
type InboxReporter interface {
	Backlog() (InboxBacklog, error)
}

// HookReporter reports what the hooks did lately (package hooks).
type HookReporter interface {
	Activity(now time.Time) (*HookActivity, error)
}

// UnreadableCounter is a Snapshot that can count the notes it cannot read.
type UnreadableCounter interface {
	Unreadable() (int, error)
}

// WithInbox makes status report the capture inbox's backlog.
func WithInbox(r InboxReporter) Option { return func(s *Service) { s.inbox = r } }

// WithHooks makes status report what the hooks did.
func WithHooks(r HookReporter) Option { return func(s *Service) { s.hooks = r } }

// Status gives the overview of SPEC §4.10: totals, active projects, recent
// activity, overdue and stale action items, the inbox's backlog and the
// index's health. It is read-only: nothing is recorded as accessed. When the
// index cannot be read the memory sections are empty and Index.Error says
// why; the inbox and the hooks are reported still.
func (s *Service) Status(ctx context.Context, req StatusRequest) (*StatusResult, error) {
	if req.Days == 0 {
		req.Days = DefaultStatusDays
	}
	if req.StaleDays == 0 {
		req.StaleDays = DefaultStaleDays
	}
	if req.Limit == 0 {
		req.Limit = DefaultStatusLimit
	}
	if err := CheckRange("days", req.Days, 1, 3650); err != nil {
		return nil, err
	}
	if err := CheckRange("stale_days", req.StaleDays, 1, 3650); err != nil {
		return nil, err
	}
	if err := CheckRange("limit", req.Limit, 1, MaxStatusLimit); err != nil {
		return nil, err
	}
	now := s.now()
	res := &StatusResult{Now: now.UTC().Truncate(time.Second), Recent: RecentActivity{Days: req.Days, Items: []StatusItem{}},
		StaleDays: req.StaleDays, Projects: []ProjectStatus{}, Overdue: []StatusItem{}, Stale: []StatusItem{}, Index: IndexStatus{Unreadable: -1}}
	err := s.backend.View(ctx, func(snap Snapshot) error { return s.status(ctx, snap, req, now, res) })
	if err != nil {
		// A context cancelled is the caller's: everything else is what
		// status is for.
		if ctx.Err() != nil {
			return nil, err
		}
		*res = StatusResult{Now: res.Now, Recent: RecentActivity{Days: req.Days, Items: []StatusItem{}}, StaleDays: req.StaleDays,
			Projects: []ProjectStatus{}, Overdue: []StatusItem{}, Stale: []StatusItem{}, Index: IndexStatus{Unreadable: -1, Error: err.Error()}}
	}
	if s.inbox != nil {
		bl, err := s.inbox.Backlog()
		if err != nil {
			bl.Error = err.Error()
		}
		res.Inbox = &bl
	}
	if s.hooks != nil {
		act, err := s.hooks.Activity(now)
		if err != nil {
			act = &HookActivity{LastError: "hooks log: " + err.Error()}
		}
		res.Hooks = act
	}
	return res, nil
}

func (s *Service) status(ctx context.Context, snap Snapshot, req StatusRequest, now time.Time, res *StatusResult) error {
	entries, err := snap.Entries()
	if err != nil {
		return err
	}
	res.Index.Notes = len(entries)
	if c, ok := snap.(UnreadableCounter); ok {
		if n, err := c.Unreadable(); err == nil {
			res.Index.Unreadable = n
		}
	}
	short := newShortener(entries)
	item := func(e *Entry) StatusItem {
		return StatusItem{ID: e.ID, ShortID: short.short(e.ID), Title: e.Title, Project: e.Project, Type: e.Type, Status: e.Status,
			Updated: e.Updated, Path: e.Path}
	}
	since := now.AddDate(0, 0, -req.Days)
	staleBefore := now.AddDate(0, 0, -req.StaleDays)
	projects := map[string]*ProjectStatus{}
	var recent, stale, open []*Entry
	for i := range entries {
		e := &entries[i]
		t := &res.Totals
		t.Memories++
		switch e.Status {
		case StatusOpen:
			t.Open++
		case StatusDone:
			t.Done++
		case StatusSuperseded:
			t.Superseded++
			continue
		default:
			t.Active++
		}
		p := projects[e.Project]
		if p == nil {
			p = &ProjectStatus{Name: e.Project}
			projects[e.Project] = p
		}
		p.Memories++
		if e.Updated.After(p.LastUpdated) {
			p.LastUpdated = e.Updated
		}
		if !e.Created.Before(since) {
			res.Recent.Created++
		} else if !e.Updated.Before(since) {
			res.Recent.Updated++
		}
		if !e.Updated.Before(since) {
			recent = append(recent, e)
		}
		if e.Status == StatusOpen {
			p.Open++
			open = append(open, e)
			if e.Updated.Before(staleBefore) {
				stale = append(stale, e)
			}
		}
	}
	// Overdue needs the due dates, which only the notes hold.
	sort.Slice(open, func(i, j int) bool { return newer(open[i], open[j]) })
	today := now.Format(time.DateOnly)
	var overdue []StatusItem
	for i, e := range open {
		if i == maxDueLoads {
			break
		}
		if e.Type != TypeAction {
			continue
		}
		m, err := loadHit(ctx, snap, Hit{Entry: *e})
		if err != nil {
			return err
		}
		if m == nil || m.Due == "" || m.Due >= today {
			continue
		}
		it := item(e)
		it.Due = m.Due
		overdue = append(overdue, it)
		projects[e.Project].Overdue++
	}
	sort.SliceStable(overdue, func(i, j int) bool {
		if overdue[i].Due != overdue[j].Due {
			return overdue[i].Due < overdue[j].Due
		}
		return overdue[i].ID < overdue[j].ID
	})
	res.OverdueCount = len(overdue)
	res.Overdue = append(res.Overdue, overdue[:min(len(overdue), req.Limit)]...)

	sort.Slice(stale, func(i, j int) bool {
		if !stale[i].Updated.Equal(stale[j].Updated) {
			return stale[i].Updated.Before(stale[j].Updated)
		}
		return stale[i].ID < stale[j].ID
	})
	res.StaleCount = len(stale)
	for _, e := range stale[:min(len(stale), req.Limit)] {
		res.Stale = append(res.Stale, item(e))
	}

	sort.Slice(recent, func(i, j int) bool {
		if !recent[i].Updated.Equal(recent[j].Updated) {
			return recent[i].Updated.After(recent[j].Updated)
		}
		return recent[i].ID > recent[j].ID
	})
	for _, e := range recent[:min(len(recent), req.Limit)] {
		res.Recent.Items = append(res.Recent.Items, item(e))
	}

	// Active projects: the most lately changed first.
	var ps []ProjectStatus
	for _, p := range projects {
		ps = append(ps, *p)
	}
	sort.Slice(ps, func(i, j int) bool {
		if !ps[i].LastUpdated.Equal(ps[j].LastUpdated) {
			return ps[i].LastUpdated.After(ps[j].LastUpdated)
		}
		return ps[i].Name < ps[j].Name
	})
	res.ProjectCount = len(ps)
	res.Projects = append(res.Projects, ps[:min(len(ps), req.Limit)]...)
	return nil
}
