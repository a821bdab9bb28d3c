package memories

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const (
	oldID   = "01jm7777777777777777777777"
	oldPath = "memories/web/" + oldID + ".md"
	newID   = "01jq0000000000000000000001" // the first id newTestService mints
	newPath = "memories/web/" + newID + ".md"
)

// testSec is testNow as the notes store it.
var testSec = time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)

// oldMemory is the memory the supersede tests retire.
func oldMemory(opts ...func(*Memory)) *Memory {
	m := &Memory{
		ID: oldID, Title: "Use npm", Type: TypeConvention, Project: "web", Area: "frontend",
		Tags: []string{"js", "tooling"}, Source: SourceMined, Status: StatusActive, Importance: 4,
		Created: day(1), Updated: day(2), Related: []string{"Package managers"},
		Provenance: Provenance{SourceSession: "s0"},
		Body:       "Use npm for installs",
	}
	for _, o := range opts {
		o(m)
	}
	return m
}

// sortKeys makes the order of patched keys irrelevant.
var sortKeys = cmpopts.SortSlices(func(a, b string) bool { return a < b })

func TestSupersedeWithReplacement(t *testing.T) {
	f := newFake(t, oldMemory())
	svc, _ := newTestService(f)

	res, err := svc.Supersede(context.Background(), SupersedeRequest{
		ID:          " 01JM7777 ",
		Replacement: "\n\nUse pnpm instead of npm for all installs\r\n",
		Reason:      "  team switched to pnpm  ",
	})
	if err != nil {
		t.Fatal(err)
	}

	const newTitle = "Use pnpm instead of npm for all installs"
	want := &SupersedeResult{
		OldID: oldID, OldShortID: "01jm7777", OldTitle: "Use npm", Status: StatusSuperseded,
		New: &SaveResult{ID: newID, ShortID: "01jq0000", Title: newTitle, Project: "web", Path: newPath},
	}
	if diff := cmp.Diff(res, want); diff != "" {
		t.Errorf("result (-got +want):\n%s", diff)
	}
	if got, want := res.Message(), "Memory superseded: 01jm7777 'Use npm' → 01jq0000 '"+newTitle+"'"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}

	// The replacement keeps the old memory's place and kind, not its history.
	wantNew := &Memory{
		ID: newID, Title: newTitle, Type: TypeConvention, Project: "web", Area: "frontend",
		Tags: []string{"js", "tooling"}, Source: SourceUser, Status: StatusActive, Importance: 4,
		Created: testSec, Updated: testSec, Supersedes: oldID, SupersedesNote: oldPath, Provenance: Provenance{DerivedFrom: oldID},
		Body: newTitle, Path: newPath,
	}
	if diff := cmp.Diff(f.creates, []*Memory{wantNew}); diff != "" {
		t.Errorf("created (-got +want):\n%s", diff)
	}

	// updated moves, so the map of contents lists it first among the
	// superseded; superseded_by links to the replacement's note.
	wantPatch := []patchCall{{Path: oldPath, Keys: []string{"status", "updated", "superseded_by", "superseded_at", "supersede_reason"}}}
	if diff := cmp.Diff(f.patches, wantPatch, sortKeys); diff != "" {
		t.Errorf("patches (-got +want):\n%s", diff)
	}
	wantOld := oldMemory()
	wantOld.Path = oldPath
	wantOld.Status = StatusSuperseded
	wantOld.Updated = testSec
	wantOld.SupersededBy, wantOld.SupersededByNote = newID, newPath
	wantOld.SupersededAt = testSec
	wantOld.SupersedeReason = "team switched to pnpm"
	if diff := cmp.Diff(f.stored(oldPath), wantOld); diff != "" {
		t.Errorf("old memory after the patch (-got +want):\n%s", diff)
	}

	wantEvents := []Event{
		{Time: testSec, Op: OpSave, ID: newID, Path: newPath, Title: newTitle, Ref: oldID},
		{Time: testSec, Op: OpSupersede, ID: oldID, Path: oldPath, Title: "Use npm", Ref: newID, Reason: "team switched to pnpm"},
	}
	if diff := cmp.Diff(f.events, wantEvents); diff != "" {
		t.Errorf("events (-got +want):\n%s", diff)
	}
	if f.updates != 1 {
		t.Errorf("got %d updates, want 1", f.updates)
	}
}

func TestSupersedeReplacementTitle(t *testing.T) {
	tests := []struct {
		name  string
		title string
		want  string
	}{
		// The old title may no longer be true; the replacement's first line is.
		{"derived from the replacement", "", "Use pnpm everywhere"},
		{"given", "  pnpm, not npm ", "pnpm, not npm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, oldMemory())
			svc, _ := newTestService(f)
			res, err := svc.Supersede(context.Background(), SupersedeRequest{
				ID: oldID, Replacement: "# Use pnpm everywhere\n\nIt is faster.", Title: tt.title,
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.New == nil || res.New.Title != tt.want {
				t.Fatalf("got new memory %+v, want title %q", res.New, tt.want)
			}
			if len(f.creates) != 1 || f.creates[0].Title != tt.want {
				t.Errorf("created %+v, want one memory titled %q", f.creates, tt.want)
			}
			if got := f.stored(oldPath).Title; got != "Use npm" {
				t.Errorf("old title changed to %q", got)
			}
		})
	}
}

func TestSupersedeActionItem(t *testing.T) {
	f := newFake(t, oldMemory(typ(TypeAction), status(StatusOpen)))
	svc, _ := newTestService(f)
	_, err := svc.Supersede(context.Background(), SupersedeRequest{ID: oldID, Replacement: "Rotate the staging keys by Friday"})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.creates[0]; got.Type != TypeAction || got.Status != StatusOpen {
		t.Errorf("replacement of an open action is %s/%s, want action/open", got.Type, got.Status)
	}
	if got := f.stored(oldPath).Status; got != StatusSuperseded {
		t.Errorf("old status %q, want superseded", got)
	}
}

// A note made by hand may have a type cortex does not know; replacing it must
// not fail on a type the user never typed.
func TestSupersedeUnknownType(t *testing.T) {
	f := newFake(t, oldMemory(typ(Type("idea"))))
	svc, _ := newTestService(f)
	_, err := svc.Supersede(context.Background(), SupersedeRequest{ID: oldID, Replacement: "Use pnpm workspaces for the monorepo"})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.creates[0].Type; got != DefaultType {
		t.Errorf("replacement type %q, want the default %q", got, DefaultType)
	}
}

func TestSupersedeWithoutReplacement(t *testing.T) {
	tests := []struct {
		name        string
		replacement string
		reason      string
	}{
		{"no replacement", "", "obsolete"},
		{"blank replacement", " \r\n\t\n ", "obsolete"},
		{"no reason", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, oldMemory())
			svc, ids := newTestService(f)
			res, err := svc.Supersede(context.Background(), SupersedeRequest{ID: oldID, Replacement: tt.replacement, Reason: tt.reason})
			if err != nil {
				t.Fatal(err)
			}
			want := &SupersedeResult{OldID: oldID, OldShortID: "01jm7777", OldTitle: "Use npm", Status: StatusSuperseded}
			if diff := cmp.Diff(res, want); diff != "" {
				t.Errorf("result (-got +want):\n%s", diff)
			}
			if got, want := res.Message(), "Memory retired: 01jm7777 'Use npm' is now superseded (no replacement)"; got != want {
				t.Errorf("message %q, want %q", got, want)
			}
			if len(f.creates) != 0 || len(ids.times) != 0 {
				t.Errorf("a delete created %d memories and minted %d ids", len(f.creates), len(ids.times))
			}
			wantPatch := []patchCall{{Path: oldPath, Keys: []string{"status", "updated", "superseded_at", "supersede_reason"}}}
			if diff := cmp.Diff(f.patches, wantPatch, sortKeys); diff != "" {
				t.Errorf("patches (-got +want):\n%s", diff)
			}
			wantOld := oldMemory()
			wantOld.Path = oldPath
			wantOld.Status = StatusSuperseded
			wantOld.Updated = testSec
			wantOld.SupersededAt = testSec
			wantOld.SupersedeReason = tt.reason
			if diff := cmp.Diff(f.stored(oldPath), wantOld); diff != "" {
				t.Errorf("old memory after the patch (-got +want):\n%s", diff)
			}
			wantEvents := []Event{{Time: testSec, Op: OpDeleteBySupersed, ID: oldID, Path: oldPath, Title: "Use npm", Reason: tt.reason}}
			if diff := cmp.Diff(f.events, wantEvents); diff != "" {
				t.Errorf("events (-got +want):\n%s", diff)
			}
		})
	}
}

// A copied note carries its original's id in its file; the index knows it by
// another. Superseding it must name the id the user gave, not the file's.
func TestSupersedeCopiedNote(t *testing.T) {
	const (
		copyPath = "memories/web/copy of use npm.md"
		copyID   = "zcopy000000000000000000000"
	)
	f := newFake(t, oldMemory(), oldMemory(func(m *Memory) { m.Path = copyPath }))
	f.ids[copyPath] = copyID
	svc, _ := newTestService(f)

	res, err := svc.Supersede(context.Background(), SupersedeRequest{ID: "zcopy000", Replacement: "Use pnpm instead of npm for all installs"})
	if err != nil {
		t.Fatal(err)
	}
	if res.OldID != copyID || res.OldShortID != "zcopy000" {
		t.Errorf("result names %s (%s), want %s", res.OldID, res.OldShortID, copyID)
	}
	if got := f.creates[0]; got.Supersedes != copyID || got.Provenance.DerivedFrom != copyID {
		t.Errorf("replacement supersedes %q, derived from %q; want %q", got.Supersedes, got.Provenance.DerivedFrom, copyID)
	}
	for _, ev := range f.events {
		if ev.ID != copyID && ev.Ref != copyID {
			t.Errorf("event %+v does not name %s", ev, copyID)
		}
	}
	if got := f.stored(copyPath).Status; got != StatusSuperseded {
		t.Errorf("copy is %s, want superseded", got)
	}
	if got := f.stored(oldPath).Status; got != StatusActive {
		t.Errorf("original is %s, want it untouched", got)
	}
}

func TestSupersedeRefused(t *testing.T) {
	const twin = "01jm7777000000000000000000" // shares 8 characters with oldID
	tests := []struct {
		name    string
		store   []*Memory
		req     SupersedeRequest
		arg     string // an *ArgError for arg, or:
		wantErr error  // a sentinel
		msg     string // part of the message
	}{
		{
			name:    "already superseded",
			store:   []*Memory{oldMemory(status(StatusSuperseded), func(m *Memory) { m.SupersededBy = "01jp5555555555555555555555" })},
			req:     SupersedeRequest{ID: oldID, Replacement: "Use pnpm instead of npm for all installs"},
			wantErr: ErrRejected, msg: "memory " + oldID + " is already superseded by 01jp5555555555555555555555",
		},
		{
			name:    "already deleted",
			store:   []*Memory{oldMemory(status(StatusSuperseded))},
			req:     SupersedeRequest{ID: oldID},
			wantErr: ErrRejected, msg: "is already superseded",
		},
		{
			name:    "unknown id",
			store:   []*Memory{oldMemory()},
			req:     SupersedeRequest{ID: "01jx00000000"},
			wantErr: ErrNotFound, msg: "01jx00000000",
		},
		{
			name:  "id too short",
			store: []*Memory{oldMemory()},
			req:   SupersedeRequest{ID: "01jm777"},
			arg:   "id", msg: "too short",
		},
		{
			name:  "ambiguous id",
			store: []*Memory{oldMemory(), mem(twin, "Twin", "")},
			req:   SupersedeRequest{ID: "01jm7777"},
			arg:   "id", msg: "ambiguous",
		},
		{
			name:  "reason on two lines",
			store: []*Memory{oldMemory()},
			req:   SupersedeRequest{ID: oldID, Reason: "first\nsecond"},
			arg:   "reason", msg: "one line",
		},
		{
			name:  "reason with a carriage return",
			store: []*Memory{oldMemory()},
			req:   SupersedeRequest{ID: oldID, Reason: "first\rsecond"},
			arg:   "reason", msg: "one line",
		},
		{
			name:  "reason not UTF-8",
			store: []*Memory{oldMemory()},
			req:   SupersedeRequest{ID: oldID, Reason: "bad \xff"},
			arg:   "reason", msg: "UTF-8",
		},
		{
			name:  "reason too long",
			store: []*Memory{oldMemory()},
			req:   SupersedeRequest{ID: oldID, Reason: strings.Repeat("é", MaxReasonChars+1)},
			arg:   "reason", msg: "is 501 characters; the maximum is 500",
		},
		{
			name:  "replacement too short",
			store: []*Memory{oldMemory()},
			req:   SupersedeRequest{ID: oldID, Replacement: "use pnpm"},
			arg:   "replacement", msg: "has 7 letters or digits",
		},
		{
			name:  "replacement too long",
			store: []*Memory{oldMemory()},
			req:   SupersedeRequest{ID: oldID, Replacement: strings.Repeat("a", MaxContentChars+1)},
			arg:   "replacement", msg: "the maximum is",
		},
		{
			name:  "bad title",
			store: []*Memory{oldMemory()},
			req:   SupersedeRequest{ID: oldID, Replacement: "Use pnpm instead of npm for all installs", Title: "a\nb"},
			arg:   "title", msg: "one line",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, tt.store...)
			before := map[string]*Memory{}
			for p, m := range f.mems {
				before[p] = cloneMemory(m)
			}
			svc, _ := newTestService(f)
			res, err := svc.Supersede(context.Background(), tt.req)
			if tt.arg != "" {
				checkArgError(t, err, tt.arg, tt.msg)
			} else {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("got %v, want %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("error %q does not contain %q", err, tt.msg)
				}
			}
			if res != nil {
				t.Errorf("got result %+v with the error", res)
			}
			if f.wrote() {
				t.Errorf("a refused supersede wrote: %d creates, %d patches, %d events", len(f.creates), len(f.patches), len(f.events))
			}
			if diff := cmp.Diff(f.mems, before); diff != "" {
				t.Errorf("store changed (-got +want):\n%s", diff)
			}
		})
	}
}

func TestSupersedeReasonChecksComeFirst(t *testing.T) {
	f := newFake(t, oldMemory())
	svc, _ := newTestService(f)
	_, err := svc.Supersede(context.Background(), SupersedeRequest{ID: oldID, Reason: "a\nb"})
	checkArgError(t, err, "reason")
	if f.updates != 0 {
		t.Errorf("a bad reason took the write lock %d times", f.updates)
	}
}

func TestSupersedeCreateFails(t *testing.T) {
	boom := errors.New("disk full")
	f := newFake(t, oldMemory())
	f.createErr = boom
	svc, _ := newTestService(f)
	res, err := svc.Supersede(context.Background(), SupersedeRequest{ID: oldID, Replacement: "Use pnpm instead of npm for all installs"})
	if !errors.Is(err, boom) || res != nil {
		t.Fatalf("got %v, %v; want nil and the create error", res, err)
	}
	if len(f.patches) != 0 || len(f.events) != 0 {
		t.Errorf("the old memory was retired although its replacement was not written")
	}
	if got := f.stored(oldPath).Status; got != StatusActive {
		t.Errorf("old status %q, want active", got)
	}
}

// TestSupersedeLinkedNote: a note that is a symbolic link a person made is
// never rewritten (that would replace the link with a file), so superseding
// it is refused before anything — the replacement included — is written.
func TestSupersedeLinkedNote(t *testing.T) {
	for _, repl := range []string{"", "Use pnpm instead of npm for all installs"} {
		t.Run("replacement "+fmt.Sprint(repl != ""), func(t *testing.T) {
			f := newFake(t, oldMemory(func(m *Memory) { m.Symlink = "/vault/elsewhere/npm.md" }))
			svc, _ := newTestService(f)
			res, err := svc.Supersede(context.Background(), SupersedeRequest{ID: oldID, Replacement: repl})
			if !errors.Is(err, ErrRejected) || res != nil {
				t.Fatalf("got %v, %v; want a refusal", res, err)
			}
			for _, want := range []string{"symbolic link to /vault/elsewhere/npm.md", "never rewrites a link you made"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if len(f.creates) != 0 || len(f.patches) != 0 || len(f.events) != 0 {
				t.Errorf("a refused supersede wrote: %d creates, %d patches, %d events", len(f.creates), len(f.patches), len(f.events))
			}
		})
	}
}
