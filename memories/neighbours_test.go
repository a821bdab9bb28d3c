package memories

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRecallSearchesNeighboursOnlyWhenTheyMayLend: the search around the
// best candidates is made only when two candidates of one project were
// created within neighbourGap of each other; otherwise it could lend
// nothing, and a recall makes one search.
func TestRecallSearchesNeighboursOnlyWhenTheyMayLend(t *testing.T) {
	at := testNow.Add(-48 * time.Hour)
	tests := []struct {
		name   string
		second []func(*Memory)
		want   int // searches around the candidates
	}{
		{"a day apart", []func(*Memory){created(at.Add(24 * time.Hour))}, 0},
		{"another project", []func(*Memory){created(at.Add(10 * time.Minute)), project("general")}, 0},
		{"ten minutes apart", []func(*Memory){created(at.Add(10 * time.Minute))}, 1},
		{"saved together", []func(*Memory){created(at)}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t,
				mem(numbered(1), "Caroline: how did the kids take the accident", "Caroline: how did the kids take the accident", created(at)),
				mem(numbered(2), "Melanie: the kids", "Melanie: the kids were scared after the accident", tt.second...),
			)
			svc, _ := newTestService(f, WithRanking(DefaultRanking()))
			if _, err := svc.Recall(context.Background(), RecallRequest{Query: "kids accident"}); err != nil {
				t.Fatal(err)
			}
			around := 0
			for _, q := range f.searches {
				if len(q.CreatedIn) > 0 {
					around++
				}
			}
			if around != tt.want {
				t.Errorf("%d searches around the candidates (of %d), want %d", around, len(f.searches), tt.want)
			}
		})
	}
}

// TestMayLendNothingIsLent: whenever mayLend says no, the search around
// any spans lends nothing: the same hits in the same order, with the same
// scores. Random memories of two projects, minutes to hours apart.
func TestMayLendNothingIsLent(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"kids", "accident", "beach", "camping", "scared", "school"}
	at := testNow.Add(-30 * 24 * time.Hour)
	checked := 0
	for trial := 0; trial < 300; trial++ {
		var ms []*Memory
		for i := 0; i < 2+r.IntN(12); i++ {
			body := fmt.Sprintf("%s %s %s", words[r.IntN(len(words))], words[r.IntN(len(words))], words[r.IntN(len(words))])
			p := []string{"web", "general"}[r.IntN(2)]
			when := at.Add(time.Duration(r.IntN(6*24*60)) * time.Minute)
			ms = append(ms, mem(numbered(i+1), body, body, created(when), project(p)))
		}
		f := newFake(t, ms...)
		q := SearchRequest{Text: words[r.IntN(len(words))] + " " + words[r.IntN(len(words))], AnyTerm: true, Size: 50}
		err := f.View(context.Background(), func(snap Snapshot) error {
			hits, err := snap.Search(context.Background(), q)
			if err != nil || mayLend(hits) {
				return err
			}
			checked++
			want := lend(hits, nil)
			for _, spans := range [][]TimeSpan{
				{{From: at.Add(-time.Hour), To: at.Add(7 * 24 * time.Hour)}},
				{{From: at.Add(time.Duration(r.IntN(3*24)) * time.Hour), To: at.Add(time.Duration(3*24+r.IntN(3*24)) * time.Hour)}},
			} {
				got, err := lendAround(context.Background(), snap, q, hits, spans)
				if err != nil {
					return err
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("trial %d: lent something though mayLend said no (-want +got):\n%s", trial, diff)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 50 {
		t.Errorf("mayLend said no only %d times: the check says little", checked)
	}
}
