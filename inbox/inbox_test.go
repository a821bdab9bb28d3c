package inbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/filelock"
	"github.com/cortexmem/cortex/memories"
)

// seqIDs mints ULID-shaped ids in order, for names that sort as expected.
type seqIDs struct{ n int }

func (g *seqIDs) NewID(t time.Time) string {
	g.n++
	return memories.NewULIDGen(strings.NewReader(strings.Repeat(fmt.Sprintf("%010d", g.n), 2))).NewID(t)
}

func newInbox(t *testing.T, now *time.Time) *Inbox {
	t.Helper()
	return New(filepath.Join(t.TempDir(), "inbox"), WithClock(func() time.Time { return *now }), WithIDGen(&seqIDs{}))
}

func pendingFiles(t *testing.T, b *Inbox) []string {
	t.Helper()
	ents, err := os.ReadDir(b.Pending())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestCaptureWritesOneEvent(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	b := newInbox(t, &now)
	transcript := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(transcript, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	id, err := b.Capture(Request{Type: "stop", Content: "the end", Session: " s1 ", Project: "Web App", Tags: []string{"#Auth", "jwt"},
		Transcript: transcript, Origin: OriginMCP, Client: "claude-code 2.1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := pendingFiles(t, b); !cmp.Equal(got, []string{id + ".md"}) {
		t.Fatalf("pending = %v, want only %s.md (no temporary file left)", got, id)
	}
	path := filepath.Join(b.Pending(), id+".md")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != atomicfile.FilePerm {
		t.Errorf("mode %v, want %v", fi.Mode().Perm(), atomicfile.FilePerm)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	want := &Event{ID: id, Type: TypeStop, Time: now, Origin: OriginMCP, Client: "claude-code 2.1", Session: "s1", Project: "web-app",
		Tags: []string{"auth", "jwt"}, Transcript: transcript, TranscriptSize: 10, Body: "the end"}
	if diff := cmp.Diff(ev, want); diff != "" {
		t.Errorf("event (-got +want):\n%s", diff)
	}
}

func TestCaptureInvalid(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name string
		req  Request
		arg  string
		want string
	}{
		{"unknown type", Request{Type: "lunch", Content: "x"}, "type", `"lunch" is not an event type`},
		{"no content", Request{Type: "manual", Content: "  "}, "content", "give the content"},
		{"meeting without content", Request{Type: "meeting", Session: "s"}, "content", "give the content"},
		{"stop without anything", Request{Type: "stop"}, "content", "a stop or pre_compact event may name a transcript or a session"},
		{"too long", Request{Content: strings.Repeat("x", MaxBody+1)}, "content", "the maximum is 1048576"},
		{"invalid utf-8", Request{Content: "a\xffb"}, "content", "valid UTF-8"},
		{"session two lines", Request{Content: "x", Session: "a\nb"}, "session", "one line"},
		{"session too long", Request{Content: "x", Session: strings.Repeat("s", 201)}, "session", "the maximum is 200"},
		{"project", Request{Content: "x", Project: "a/b"}, "project", "may hold only"},
		{"tags", Request{Content: "x", Tags: []string{"a b!"}}, "tags", ""},
		{"relative transcript", Request{Type: "stop", Transcript: "s.jsonl"}, "transcript", "must be an absolute path"},
		{"transcript with newline", Request{Type: "stop", Transcript: "/a\n/b"}, "transcript", "one line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newInbox(t, &now)
			_, err := b.Capture(tt.req)
			var ae *memories.ArgError
			if !errors.As(err, &ae) || ae.Arg != tt.arg || !strings.Contains(ae.Rule, tt.want) {
				t.Fatalf("Capture = %v, want an error on %s containing %q", err, tt.arg, tt.want)
			}
			if got := pendingFiles(t, b); len(got) != 0 {
				t.Errorf("a refused capture wrote %v", got)
			}
		})
	}
}

// A stop event may name only its session or transcript; a missing transcript
// has an unknown size.
func TestCaptureStopWithoutContent(t *testing.T) {
	now := time.Now()
	b := newInbox(t, &now)
	id, err := b.Capture(Request{Type: "pre-compact", Transcript: "/nowhere/s.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(b.Pending(), id+".md"))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Type != TypePreCompact || ev.TranscriptSize != -1 || ev.Body != "" || ev.Origin != OriginCLI {
		t.Errorf("event = %+v", ev)
	}
}

// A write that fails (a full disk) leaves nothing in pending/, not even a
// temporary file, and says why.
func TestAddDiskFull(t *testing.T) {
	now := time.Now()
	b := newInbox(t, &now)
	b.create = func(path string, data []byte) error {
		// What atomicfile.Create meets on a full disk, after creating its
		// temporary file: it removes it and fails.
		tmp := filepath.Join(filepath.Dir(path), ".tmp-half")
		if err := os.WriteFile(tmp, data[:len(data)/2], 0o600); err != nil {
			return err
		}
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, syscall.ENOSPC)
	}
	_, err := b.Capture(Request{Content: "remember the milk"})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Capture = %v, want ENOSPC", err)
	}
	if got := pendingFiles(t, b); len(got) != 0 {
		t.Errorf("pending after a failed write: %v", got)
	}
}

// An id already taken is minted again (a collision), never overwritten.
func TestAddRetriesATakenID(t *testing.T) {
	now := time.Now()
	b := newInbox(t, &now)
	first, err := b.Capture(Request{Content: "first event"})
	if err != nil {
		t.Fatal(err)
	}
	b.ids = &fixedThenSeq{first: first}
	second, err := b.Capture(Request{Content: "second event"})
	if err != nil {
		t.Fatal(err)
	}
	if second == first {
		t.Fatalf("the second event took the first's id %s", first)
	}
	data, err := os.ReadFile(filepath.Join(b.Pending(), first+".md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "first event") {
		t.Errorf("the first event was overwritten:\n%s", data)
	}
}

type fixedThenSeq struct {
	first string
	n     int
}

func (g *fixedThenSeq) NewID(t time.Time) string {
	g.n++
	if g.n == 1 {
		return g.first
	}
	return memories.NewULIDGen(nil).NewID(t)
}

func hookEvent(session, transcript string, typ Type) *Event {
	return &Event{Type: typ, Origin: OriginHook, Client: "gemini-cli", Hook: "PreCompress", Session: session, Transcript: transcript,
		TranscriptSize: -1, Body: `{}`}
}

func TestAddUnlessPending(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	window := 10 * time.Minute
	tests := []struct {
		name  string
		later *Event
		after time.Duration
		dup   bool
	}{
		{"same session, type and transcript", hookEvent("s1", "/t/s1.jsonl", TypePreCompact), time.Second, true},
		{"just inside the window", hookEvent("s1", "/t/s1.jsonl", TypePreCompact), window - time.Millisecond, true},
		{"past the window", hookEvent("s1", "/t/s1.jsonl", TypePreCompact), window + time.Second, false},
		{"another session", hookEvent("s2", "/t/s1.jsonl", TypePreCompact), time.Second, false},
		{"another type", hookEvent("s1", "/t/s1.jsonl", TypeStop), time.Second, false},
		{"another transcript", hookEvent("s1", "/t/other.jsonl", TypePreCompact), time.Second, false},
		{"another client", func() *Event { e := hookEvent("s1", "/t/s1.jsonl", TypePreCompact); e.Client = "codex"; return e }(), time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := start
			b := newInbox(t, &now)
			first, dup, err := b.AddUnlessPending(hookEvent("s1", "/t/s1.jsonl", TypePreCompact), window)
			if err != nil || dup {
				t.Fatalf("first = %s, %v, %v", first, dup, err)
			}
			now = start.Add(tt.after)
			id, dup, err := b.AddUnlessPending(tt.later, window)
			if err != nil {
				t.Fatal(err)
			}
			if dup != tt.dup {
				t.Fatalf("dup = %v, want %v", dup, tt.dup)
			}
			wantFiles := 2
			if tt.dup {
				wantFiles = 1
				if id != first {
					t.Errorf("a repeat answers %s, want the pending %s", id, first)
				}
			}
			if got := pendingFiles(t, b); len(got) != wantFiles {
				t.Errorf("pending = %v, want %d files", got, wantFiles)
			}
		})
	}
}

// While normalize runs (its lock held) every firing is written: the pending
// event it may be reading could end before this one's news. Once it is
// processed (gone from pending/), the next firing is written too.
func TestAddUnlessPendingNormalizeRunning(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	b := newInbox(t, &now)
	first, _, err := b.AddUnlessPending(hookEvent("s1", "/t/s1.jsonl", TypeStop), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := filelock.Acquire(context.Background(), b.LockPath(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, dup, err := b.AddUnlessPending(hookEvent("s1", "/t/s1.jsonl", TypeStop), time.Hour)
	if err != nil || dup {
		t.Fatalf("with normalize running: dup %v, err %v; want the event written", dup, err)
	}
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	for _, n := range pendingFiles(t, b) {
		if err := os.Remove(filepath.Join(b.Pending(), n)); err != nil {
			t.Fatal(err)
		}
	}
	id, dup, err := b.AddUnlessPending(hookEvent("s1", "/t/s1.jsonl", TypeStop), time.Hour)
	if err != nil || dup || id == first {
		t.Fatalf("after processing: %s, dup %v, err %v; want a new event", id, dup, err)
	}
	// A zero window writes every firing.
	if _, dup, err := b.AddUnlessPending(hookEvent("s1", "/t/s1.jsonl", TypeStop), 0); err != nil || dup {
		t.Fatalf("window 0: dup %v, err %v", dup, err)
	}
}

func TestBacklog(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	b := newInbox(t, &now)
	bl, err := b.Backlog()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(bl, memories.InboxBacklog{Dir: b.Dir()}); diff != "" {
		t.Errorf("empty inbox (-got +want):\n%s", diff)
	}
	var ids []string
	for i := 0; i < 3; i++ {
		id, err := b.Capture(Request{Content: fmt.Sprintf("event %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		now = now.Add(time.Minute)
	}
	if err := atomicfile.MkdirAll(b.Failed()); err != nil {
		t.Fatal(err)
	}
	// Normalize's side: one event failed, with why beside it.
	if err := os.Rename(filepath.Join(b.Pending(), ids[2]+".md"), filepath.Join(b.Failed(), ids[2]+".md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.Failed(), ids[2]+ErrorSuffix), []byte("content: rejected: credential.aws at line 1\nmore\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Temporary files are not events.
	if err := os.WriteFile(filepath.Join(b.Pending(), ".x.md.cortex-tmp-1"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	bl, err = b.Backlog()
	if err != nil {
		t.Fatal(err)
	}
	want := memories.InboxBacklog{Dir: b.Dir(), Pending: 2, Failed: 1, OldestPending: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC),
		LastFailure: ids[2], LastFailureError: "content: rejected: credential.aws at line 1"}
	if diff := cmp.Diff(bl, want); diff != "" {
		t.Errorf("backlog (-got +want):\n%s", diff)
	}
}

// A hook's event is named after its id and its key, so that a repeat is
// found by the names of the pending events alone; IDOf reads the id back.
func TestFileName(t *testing.T) {
	a := hookEvent("s1", "/t/s1.jsonl", TypeStop)
	a.ID = "01jn0000000000000000000001"
	b := hookEvent("s2", "/t/s1.jsonl", TypeStop)
	b.ID = a.ID
	na, nb := FileName(a), FileName(b)
	if !strings.HasPrefix(na, a.ID+"-") || !strings.HasSuffix(na, ".md") || na == nb || len(na) != len(a.ID)+1+8+3 {
		t.Errorf("names %q, %q", na, nb)
	}
	manual := &Event{ID: a.ID, Type: TypeManual, Origin: OriginCLI}
	if got := FileName(manual); got != a.ID+".md" {
		t.Errorf("a capture's name %q", got)
	}
	for _, n := range []string{na, nb, a.ID + ".md"} {
		if got := IDOf(n); got != a.ID {
			t.Errorf("IDOf(%q) = %q", n, got)
		}
	}
}
