package memories

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestSortByScoreAsSliceStable compares sortByScore with sort.SliceStable
// by score over random hits with many equal scores, in order and not: the
// order of equal scores is part of what recall returns.
func TestSortByScoreAsSliceStable(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 3))
	for trial := range 2000 {
		hits := make([]Hit, r.IntN(60))
		for i := range hits {
			hits[i].ID = fmt.Sprint(i)
			hits[i].Score = float64(r.IntN(8)) / 4
		}
		if trial%5 == 0 {
			sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
		}
		want := slices.Clone(hits)
		sort.SliceStable(want, func(i, j int) bool { return want[i].Score > want[j].Score })
		got := slices.Clone(hits)
		sortByScore(got)
		if !slices.EqualFunc(got, want, func(a, b Hit) bool { return a.ID == b.ID && a.Score == b.Score }) {
			t.Fatalf("trial %d: sortByScore gave another order than sort.SliceStable", trial)
		}
	}
}

// TestPermute checks that permute puts s[order[i]] at i for random orders.
func TestPermute(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 14))
	for trial := range 1000 {
		n := r.IntN(40)
		order := r.Perm(n)
		s := make([]int, n)
		for i := range s {
			s[i] = 100 + i
		}
		want := make([]int, n)
		for i, k := range order {
			want[i] = s[k]
		}
		permute(s, slices.Clone(order))
		if !slices.Equal(s, want) {
			t.Fatalf("trial %d: permute by %v = %v, want %v", trial, order, s, want)
		}
	}
}
