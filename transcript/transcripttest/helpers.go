package transcripttest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
)

// OfKind is the events of evs of kind k, in order.
func OfKind(evs []transcript.Event, k transcript.Kind) []transcript.Event {
	var out []transcript.Event
	for _, e := range evs {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// ApplyDiff applies a unified diff to old, failing t when it does not parse
// or apply.
func ApplyDiff(t testing.TB, old, unified string) string {
	t.Helper()
	_, _, hs, err := transcript.ParseUnified(unified)
	if err != nil {
		t.Fatalf("parse %q: %v", unified, err)
	}
	got, err := transcript.Apply(old, hs)
	if err != nil {
		t.Fatalf("apply %q to %q: %v", unified, old, err)
	}
	return got
}

// PartialLastLine reads data (a JSON lines transcript ending in a newline)
// cut into bytes of its last line, as a file the tool is still writing: the
// read must stop at the start of that line, and resuming there on the whole
// file must give the events of one read.
func PartialLastLine(t *testing.T, a transcript.Adapter, name string, data []byte, into int) {
	t.Helper()
	lines := bytes.SplitAfter(data, []byte("\n"))
	last := lines[len(lines)-2]
	if into <= 0 || into >= len(last) {
		t.Fatalf("cut %d bytes into a last line of %d", into, len(last))
	}
	start := len(data) - len(last)
	head, pos, err := transcript.ReadAll(a, bytes.NewReader(data[:start+into]), transcript.Start(a, name), false)
	if err != nil {
		t.Fatal(err)
	}
	if pos.Offset != int64(start) {
		t.Fatalf("stopped at %d, want %d (the start of the cut line)", pos.Offset, start)
	}
	tail, _, err := transcript.ReadAll(a, bytes.NewReader(data[pos.Offset:]), pos, false)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := transcript.ParseBytes(a, name, data, true)
	if got := len(head) + len(tail); got != len(full) {
		t.Fatalf("%d + %d events, want %d", len(head), len(tail), len(full))
	}
}

// ParseFile reads the fixture dir/name whole with a; its events carry name
// as their file.
func ParseFile(t testing.TB, a transcript.Adapter, dir, name string) []transcript.Event {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := transcript.ParseBytes(a, name, data, true)
	return evs
}

// WithReason is the unknown events of evs whose reason is reason, in order.
func WithReason(evs []transcript.Event, reason string) []transcript.Event {
	var out []transcript.Event
	for _, e := range evs {
		if e.Unknown != nil && e.Unknown.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

// IncrementalRead reads the files names in dir in turn — one transcript as
// it stood at successive times, each version the one before with more
// appended — each read resuming where the one before stopped, from its
// position saved as JSON (as a run in another process would). Every read
// must consume its whole file, and the events must be those of one read of
// the last version, which it returns.
func IncrementalRead(t *testing.T, a transcript.Adapter, dir string, names ...string) []transcript.Event {
	t.Helper()
	pos := transcript.Start(a, "session.jsonl")
	var got []transcript.Event
	var data []byte
	for _, p := range names {
		var err error
		if data, err = os.ReadFile(filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
		evs, next, err := transcript.ReadAll(a, bytes.NewReader(data[pos.Offset:]), pos, false)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, evs...)
		if pos = SavedPosition(t, next); pos.Offset != int64(len(data)) {
			t.Fatalf("%s: stopped at %d of %d bytes", p, pos.Offset, len(data))
		}
	}
	want, _ := transcript.ParseBytes(a, "session.jsonl", data, true)
	gb, err := transcript.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := transcript.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(wb), string(gb)); diff != "" {
		t.Fatalf("incremental read differs (-full +incremental):\n%s", diff)
	}
	return want
}

// SavedPosition is p after a trip through JSON, as a position saved by one
// run and read by the next.
func SavedPosition(t testing.TB, p transcript.Position) transcript.Position {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var q transcript.Position
	if err := json.Unmarshal(b, &q); err != nil {
		t.Fatal(err)
	}
	return q
}
