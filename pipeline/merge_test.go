package pipeline

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
)

func ev(session, id, ts string) transcript.Event {
	return transcript.Event{Source: transcript.ClaudeCode, SessionID: session, EventID: id, Timestamp: ts, Kind: transcript.KindUserTurn}
}

func ids(evs []transcript.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.EventID)
	}
	return out
}

func TestMerge(t *testing.T) {
	main := []transcript.Event{
		ev("s", "m1", "2026-01-01T10:00:00Z"),
		ev("s", "m2", "2026-01-01T10:00:05Z"),
		ev("s", "m3", ""), // no time: stays after m2
		ev("s", "m4", "2026-01-01T10:00:20Z"),
	}
	sub := []transcript.Event{
		ev("s", "a1", "2026-01-01T10:00:05Z"), // ties with m2: main goes first
		ev("s", "a2", "2026-01-01T10:00:10Z"),
		ev("s", "a3", "2026-01-01T10:00:01Z"), // out of order: kept after a2
	}
	got, dropped := Merge(main, sub)
	want := []string{"m1", "m2", "m3", "a1", "a2", "a3", "m4"}
	if d := cmp.Diff(want, ids(got)); d != "" || dropped != 0 {
		t.Fatalf("order (-want +got):\n%s dropped %d", d, dropped)
	}
	// Swapping the streams changes only the tie.
	got, _ = Merge(sub, main)
	want = []string{"m1", "a1", "m2", "m3", "a2", "a3", "m4"}
	if d := cmp.Diff(want, ids(got)); d != "" {
		t.Fatalf("swapped order (-want +got):\n%s", d)
	}
}

func TestMergeDropsReplays(t *testing.T) {
	parent := []transcript.Event{ev("s", "1", "2026-01-01T10:00:00Z"), ev("s", "2", "2026-01-01T10:00:01Z")}
	// A resumed file replays the parent's records, then goes on.
	resumed := append(append([]transcript.Event{}, parent...), ev("s", "3", "2026-01-01T11:00:00Z"))
	other := []transcript.Event{ev("t", "1", "2026-01-01T10:30:00Z")} // same id, other session: kept
	got, dropped := Merge(parent, resumed, other)
	if d := cmp.Diff([]string{"1", "2", "1", "3"}, ids(got)); d != "" || dropped != 2 {
		t.Fatalf("(-want +got):\n%s dropped %d, want 2", d, dropped)
	}
	if got[2].SessionID != "t" {
		t.Fatalf("third event is of session %q, want t", got[2].SessionID)
	}
}

func TestMergeKeepsEveryEvent(t *testing.T) {
	var streams [][]transcript.Event
	n := 0
	for s := range 7 {
		var st []transcript.Event
		for i := range 50 {
			ts := ""
			if (i+s)%3 != 0 {
				ts = fmt.Sprintf("2026-01-01T10:%02d:%02dZ", (i*7+s*13)%60, i%60)
			}
			st = append(st, ev("s", fmt.Sprintf("%d-%d", s, i), ts))
			n++
		}
		streams = append(streams, st)
	}
	got, dropped := Merge(streams...)
	if len(got) != n || dropped != 0 {
		t.Fatalf("got %d events, dropped %d; want %d, 0", len(got), dropped, n)
	}
	// Each stream's order is kept.
	next := map[byte]int{}
	for _, e := range got {
		var s, i int
		fmt.Sscanf(e.EventID, "%d-%d", &s, &i)
		if i != next[byte(s)] {
			t.Fatalf("stream %d: event %d came before %d", s, i, next[byte(s)])
		}
		next[byte(s)]++
	}
	again, _ := Merge(streams...)
	if d := cmp.Diff(ids(got), ids(again)); d != "" {
		t.Fatal("two merges differ")
	}
}
