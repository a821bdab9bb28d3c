package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// updatedStamp is the fieldUpdated term of t, written out field by field:
// what stampOf must give.
func updatedStamp(t time.Time) string {
	t = t.UTC()
	switch {
	case t.Year() < 0:
		return "00000101000000"
	case t.Year() > 9999:
		return "99991231235959"
	}
	return fmt.Sprintf("%04d%02d%02d%02d%02d%02d", t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second())
}

// nanoStamp is the tfTime term of t, written out field by field: what
// nanoStampOf must give.
func nanoStamp(t time.Time) string {
	nanos := t.UTC().Nanosecond()
	switch {
	case t.UTC().Year() < 0:
		nanos = 0
	case t.UTC().Year() > 9999:
		nanos = 999999999
	}
	return fmt.Sprintf("%s.%09d", updatedStamp(t), nanos)
}

func TestStampOf(t *testing.T) {
	for _, tm := range []time.Time{
		{}, time.Unix(0, 0), time.Date(2026, 11, 28, 19, 5, 7, 999999999, time.UTC),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("east", 5*3600)),
		time.Date(-3, 5, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		if got, want := stampOf(tm), updatedStamp(tm); got != want || len(got) != 14 {
			t.Errorf("stampOf(%v) = %q, want %q", tm, got, want)
		}
		if got, want := nanoStampOf(tm), nanoStamp(tm); got != want || len(got) != 24 {
			t.Errorf("nanoStampOf(%v) = %q, want %q", tm, got, want)
		}
	}
}

// updatedTimes are update times that meet at the edges timeFields.since cuts
// at: seconds of one day, the ends of days, months and years, and times the
// index clamps.
func updatedTimes(r *rand.Rand, n int) []time.Time {
	edges := []time.Time{
		time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 30, 23, 59, 59, 0, time.UTC),
		time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC),
	}
	out := []time.Time{{}, time.Date(10500, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)}
	for len(out) < n {
		e := edges[r.IntN(len(edges))]
		var d time.Duration
		switch r.IntN(4) {
		case 0:
			d = time.Duration(r.IntN(7)-3) * time.Second
		case 1:
			d = time.Duration(r.IntN(7200)-3600) * time.Second
		case 2:
			d = time.Duration(r.IntN(90*24)-45*24) * time.Hour
		default:
			d = time.Duration(r.Int64N(int64(3*365*24*time.Hour))) - 3*365*12*time.Hour
		}
		out = append(out, e.Add(d).Truncate(time.Second)) // notes hold seconds
	}
	return out
}

// TestUpdatedSinceAsTheNotesSay: a search with UpdatedSince finds exactly
// the memories whose update time is at or after it (as the catalog and the
// notes' filter, matchesFilters, judge), for times at every edge of the
// three term ranges and since at, just before and just after them, to the
// nanosecond; and a search without text sorts them by update time, newest
// first, then by id.
func TestUpdatedSinceAsTheNotesSay(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 12))
	times := updatedTimes(r, 400)
	var ms []*memories.Memory
	for i, tm := range times {
		m := mem(fmt.Sprintf("u%03d", i), "Update time", "A memory updated at some time.", "alpha", memories.TypeNote, 0)
		m.Updated = tm
		ms = append(ms, m)
	}
	b := newTestBleveOf(t, ms)
	ctx := context.Background()

	lastSecond := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	sinces := []time.Time{time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(9999, 12, 31, 23, 59, 58, 5e8, time.UTC)}
	for _, tm := range times[:120] {
		sinces = append(sinces, tm, tm.Add(-time.Nanosecond), tm.Add(time.Nanosecond), tm.Add(time.Second), tm.Add(-time.Second),
			tm.In(time.FixedZone("west", -7*3600)))
	}
	for _, since := range sinces {
		if since.IsZero() || since.After(lastSecond) {
			continue // no filter, or the clamped times checked below
		}
		req := memories.SearchRequest{UpdatedSince: since, Size: len(ms)}
		got, err := b.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, m := range ms {
			if matchesFilters(m, req) {
				want = append(want, m.ID)
			}
		}
		ids := make([]string, len(got))
		for i, h := range got {
			ids[i] = h.ID
		}
		slices.Sort(ids)
		if diff := cmp.Diff(want, ids); diff != "" {
			t.Fatalf("UpdatedSince %v (-notes +index):\n%s", since, diff)
		}
	}

	// Past year 9999 (no note's time: YAML and RFC 3339 write four
	// digits), every time is the last second of 9999, since included.
	got, err := b.Search(ctx, memories.SearchRequest{UpdatedSince: time.Date(10001, 1, 1, 0, 0, 0, 0, time.UTC), Size: len(ms)})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "u001" && got[0].ID != "u002" {
		t.Fatalf("UpdatedSince after 9999: %v, want u001 and u002", got)
	}

	got, err = b.Search(ctx, memories.SearchRequest{Size: len(ms)})
	if err != nil {
		t.Fatal(err)
	}
	byTime := slices.Clone(ms)
	slices.SortStableFunc(byTime, func(x, y *memories.Memory) int {
		if c := updatedStamp(y.Updated); c != updatedStamp(x.Updated) {
			if c > updatedStamp(x.Updated) {
				return 1
			}
			return -1
		}
		if x.ID < y.ID {
			return -1
		}
		return 1
	})
	var want, ids []string
	for i, m := range byTime {
		want, ids = append(want, m.ID), append(ids, got[i].ID)
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Fatalf("order without text (-newest first +index):\n%s", diff)
	}
}

// TestTranscriptSinceToTheNanosecond: a transcript search with Since finds
// exactly the exchanges that began at or after it, to the nanosecond, at
// every edge of the four term ranges; an exchange without a time is never
// found by it.
func TestTranscriptSinceToTheNanosecond(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 7))
	times := updatedTimes(r, 300)
	for i := range times {
		if times[i].Year() > 9999 {
			times[i] = time.Time{} // a transcript's times are JSON's, of years 0 to 9999
		}
		if i%2 == 0 && !times[i].IsZero() {
			times[i] = times[i].Add(time.Duration(r.IntN(1e9))) // times finer than a second
		}
	}
	var ds []TranscriptDoc
	for i, tm := range times {
		ds = append(ds, TranscriptDoc{ID: fmt.Sprintf("f/x%03d", i), Kind: KindExchange, Tool: "codex", Session: "s",
			User: "a question", Reply: "an answer", File: "/t/a.jsonl", FileKey: "f", Line: i + 1, Time: tm})
	}
	dir := t.TempDir() + "/bleve"
	idx, err := CreateTranscriptIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	if err := idx.Apply(ds, nil); err != nil {
		t.Fatal(err)
	}
	lastSecond := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	sinces := []time.Time{time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)}
	for _, tm := range times[:100] {
		sinces = append(sinces, tm, tm.Add(-time.Nanosecond), tm.Add(time.Nanosecond), tm.Add(-time.Second))
	}
	for _, since := range sinces {
		if since.IsZero() || since.After(lastSecond) {
			continue
		}
		hits, err := idx.Search(context.Background(), TranscriptQuery{Since: since, Size: len(ds)})
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, d := range ds {
			if !d.Time.IsZero() && !d.Time.Before(since) {
				want = append(want, d.ID)
			}
		}
		for _, h := range hits {
			got = append(got, h.Doc.ID)
		}
		slices.Sort(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Since %v (-times +index):\n%s", since, diff)
		}
	}
}
