package index

import (
	"context"
	"fmt"
	"math"
	"runtime/metrics"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// TestExistingKeepsOnlyLiveSpellings: existing keeps the other spellings
// some note has, drops those none has, and drops one whose only note was
// deleted (its segment's dictionary still holds the word until a merge, so
// the dictionary alone cannot say).
func TestExistingKeepsOnlyLiveSpellings(t *testing.T) {
	b := newBleveOf(t,
		mem("joined", "Plans", "Booked the roadtrip for June.", "p", memories.TypeNote, 0),
		mem("gone", "Plans", "A daytrip to the coast.", "p", memories.TypeNote, 0),
		mem("pair", "Health", "Annual check-up at the clinic.", "p", memories.TypeNote, 0),
	)
	if err := b.Apply([]Doc{{ID: "gone", Deleted: true}}); err != nil {
		t.Fatal(err)
	}
	joined := map[string][]string{"road": {"roadtrip", "roadtrips", "roadmap"}, "day": {"daytrip"}}
	split := map[string][]string{"checkup": {"check" + pairSep + "up", "check" + pairSep + "ups"},
		"annualcheck": {"annual" + pairSep + "check"}}
	terms := []string{"road", "day", "check", "checkup", "annual"}
	j, s, h, err := b.existing(context.Background(), terms, joined, split)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(j, map[string][]string{"road": {"roadtrip"}}); diff != "" {
		t.Errorf("joined (-got +want):\n%s", diff)
	}
	wj, ws, wh := existingByReaders(t, b, terms, joined, split)
	if diff := cmp.Diff([]any{j, s, h}, []any{wj, ws, wh}); diff != "" {
		t.Errorf("existing differs from counting every term's readers (-got +want):\n%s", diff)
	}
	if len(ws) == 0 || !h["checkup"] {
		t.Errorf("split %v, hyphened %v: the test finds no pair or no hyphened word", ws, wh)
	}
}

// existingByReaders is existing as first written: every spelling's term
// reader in each field, counted.
func existingByReaders(t *testing.T, b *Bleve, terms []string, joined, split map[string][]string) (map[string][]string, map[string][]string, map[string]bool) {
	t.Helper()
	r := indexReaderOf(t, b)
	has := func(term string, fields ...string) bool {
		for _, f := range fields {
			tfr, err := r.TermFieldReader(context.Background(), []byte(term), f, false, false, false)
			if err != nil {
				t.Fatal(err)
			}
			n := tfr.Count()
			_ = tfr.Close()
			if n > 0 {
				return true
			}
		}
		return false
	}
	keep := func(m map[string][]string, fields ...string) map[string][]string {
		out := make(map[string][]string, len(m))
		for t, alts := range m {
			for _, a := range alts {
				if has(a, fields...) {
					out[t] = append(out[t], a)
				}
			}
		}
		return out
	}
	hyphened := map[string]bool{}
	for _, t := range terms {
		hyphened[t] = has(t, fieldJoined)
	}
	return keep(joined, fieldBody, fieldTitle), keep(split, fieldPairs), hyphened
}

// TestExistingAsksDictionariesFirst: spellings no note has, which are most
// of those compounds proposes, cost a dictionary lookup each, not a term
// reader's postings lookup in each segment.
func TestExistingAsksDictionariesFirst(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled items")
	}
	b := newBleveOf(t, mem("a", "Plans", "Booked the roadtrip for June.", "p", memories.TypeNote, 0))
	joined := map[string][]string{}
	for i := range 40 {
		joined["road"] = append(joined["road"], fmt.Sprintf("road%dtrip", i))
	}
	ctx := context.Background()
	allocs := testing.AllocsPerRun(10, func() {
		if _, _, _, err := b.existing(ctx, []string{"road"}, joined, nil); err != nil {
			t.Fatal(err)
		}
	})
	// About 200 with the dictionaries first, 570 with a term reader each.
	if allocs > 300 {
		t.Errorf("existing of 40 absent spellings in 2 fields: %v allocations, want at most 300", allocs)
	}
}

// TestExistingStartsNoGoroutine: existing opens each segment's dictionary
// on the calling goroutine. Bleve's FieldDictContains starts one goroutine
// per segment and waits for them, which hands work to a sleeping thread in a
// server that had been idle.
func TestExistingStartsNoGoroutine(t *testing.T) {
	b := newBleveOf(t, mem("a", "Plans", "Booked the roadtrip for June.", "p", memories.TypeNote, 0))
	if err := b.Apply(docs([]*memories.Memory{mem("b", "Health", "Annual check-up at the clinic.", "p", memories.TypeNote, 0)})); err != nil {
		t.Fatal(err)
	}
	snap, ok := indexReaderOf(t, b).(*scorch.IndexSnapshot)
	if !ok || len(snap.Segments()) < 2 {
		t.Fatal("the test needs an index of at least two segments")
	}
	joined := map[string][]string{"road": {"roadtrip", "roadmap"}}
	split := map[string][]string{"checkup": {"check" + pairSep + "up"}}
	ctx := context.Background()
	created := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	fewest := uint64(math.MaxUint64)
	for range 5 {
		metrics.Read(created)
		before := created[0].Value.Uint64()
		if _, _, _, err := b.existing(ctx, []string{"road", "checkup"}, joined, split); err != nil {
			t.Fatal(err)
		}
		metrics.Read(created)
		fewest = min(fewest, created[0].Value.Uint64()-before)
	}
	if fewest != 0 {
		t.Errorf("existing over %d segments started %d goroutines, want none", len(snap.Segments()), fewest)
	}
}
