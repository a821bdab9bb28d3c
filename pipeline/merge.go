package pipeline

import (
	"container/heap"
	"time"

	"github.com/cortexmem/cortex/transcript"
)

// Merge joins the event streams of several transcript files — a session's
// main file and its subagents' files, a resumed or forked session and the
// one it continues — into the one stream Segment reads.
//
// Each stream keeps its own order. Streams are interleaved by time: an
// event's time is its timestamp, else the last one before it in its stream;
// on equal times the earlier stream in streams goes first, so the result is
// an exact function of the arguments. An event already taken (same source,
// session and event id: a record a resumed or forked file replays from its
// parent) is dropped; Merge reports how many were.
func Merge(streams ...[]transcript.Event) (events []transcript.Event, dropped int) {
	total := 0
	h := make(mergeHeap, 0, len(streams))
	for i, s := range streams {
		total += len(s)
		if len(s) > 0 {
			c := &mergeCursor{stream: i, events: s}
			c.advanceTime()
			h = append(h, c)
		}
	}
	heap.Init(&h)
	events = make([]transcript.Event, 0, total)
	seen := make(map[eventKey]bool, total)
	for h.Len() > 0 {
		c := h[0]
		e := c.events[c.next]
		k := eventKey{sessionKey{e.Source, e.SessionID}, e.EventID}
		if seen[k] {
			dropped++
		} else {
			seen[k] = true
			events = append(events, e)
		}
		c.next++
		if c.next == len(c.events) {
			heap.Pop(&h)
			continue
		}
		c.advanceTime()
		heap.Fix(&h, 0)
	}
	return events, dropped
}

// mergeCursor is a stream's place in a merge.
type mergeCursor struct {
	stream int
	events []transcript.Event
	next   int
	time   time.Time // of events[next]: its own, else the stream's last
}

func (c *mergeCursor) advanceTime() {
	if t, ok := ParseTime(c.events[c.next].Timestamp); ok {
		c.time = t
	}
}

type mergeHeap []*mergeCursor

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	if !h[i].time.Equal(h[j].time) {
		return h[i].time.Before(h[j].time)
	}
	return h[i].stream < h[j].stream
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(*mergeCursor)) }
func (h *mergeHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}
