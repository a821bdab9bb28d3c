package transcripttest

import (
	"bytes"
	"testing"

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
