package security

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTrieAsByAdding: newTrie, which lays a trie out from its sorted
// triggers, makes the trie that adding the triggers one at a time made
// (trieByAdding, the way it was built before): the same triggers lead to
// the same rows, and the same pairs of bytes may start one. It is checked
// over the table's own triggers and over random sets that share long
// prefixes, end inside one another, repeat, and hold spaces.
func TestTrieAsByAdding(t *testing.T) {
	var atWord, anywhere []trigger
	for ri, r := range table().rows {
		for _, s := range r.form.triggers {
			s = unleetString(s)
			if isAlnum(s[0]) {
				atWord = append(atWord, trigger{s, ri})
			} else {
				anywhere = append(anywhere, trigger{s, ri})
			}
		}
	}
	sets := map[string][]trigger{"the table's at-word triggers": atWord, "the table's other triggers": anywhere}
	rng := rand.New(rand.NewPCG(7, 11))
	const alphabet = "ab c*"
	for k := range 200 {
		var ts []trigger
		for range rng.IntN(60) {
			n := 2 + rng.IntN(6)
			b := make([]byte, n)
			for i := range b {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			}
			ts = append(ts, trigger{string(b), rng.IntN(20)})
		}
		// Rows come in increasing order, as the table adds them.
		slices.SortStableFunc(ts, func(a, b trigger) int { return a.row - b.row })
		sets[fmt.Sprintf("random set %d", k)] = ts
	}
	for name, ts := range sets {
		want := trieByAdding(ts)
		got := newTrie(slices.Clone(ts))
		if d := cmp.Diff(dumpTrie(&want), dumpTrie(&got)); d != "" {
			t.Errorf("%s: tries differ (-by adding +newTrie):\n%s", name, d)
		}
		if *want.pairs != *got.pairs {
			t.Errorf("%s: the pairs that may start a trigger differ", name)
		}
		for _, tr := range ts {
			u := "x" + tr.s + " tail"
			var byAdding, byNew []string
			want.match(u, 1, func(rows []int, n int) { byAdding = append(byAdding, fmt.Sprint(rows, n)) })
			got.match(u, 1, func(rows []int, n int) { byNew = append(byNew, fmt.Sprint(rows, n)) })
			if !slices.Equal(byAdding, byNew) {
				t.Errorf("%s: matches at %q: %v by adding, %v by newTrie", name, u, byAdding, byNew)
			}
		}
	}
}

// dumpTrie lists every path from the root that leads to rows, with them.
func dumpTrie(t *trie) []string {
	var out []string
	var walk func(n int32, path string)
	walk = func(n int32, path string) {
		if len(t.rows[n]) > 0 {
			out = append(out, fmt.Sprintf("%q %v", path, t.rows[n]))
		}
		f := t.first[n]
		for j, c := range t.labels[f : f+int32(t.count[n])] {
			walk(t.kids[f+int32(j)], path+string(c))
		}
	}
	for c, n := range t.root {
		if n >= 0 {
			walk(n, string(rune(c)))
		}
	}
	slices.Sort(out)
	return out
}

// trieByAdding is how tries were built before newTrie: each trigger added
// to a list of children per node, then the lists flattened.
func trieByAdding(ts []trigger) trie {
	type edge struct {
		b   byte
		kid int32
	}
	var t trie
	for i := range t.root {
		t.root[i] = -1
	}
	var build [][]edge
	node := func() int32 {
		build = append(build, nil)
		t.rows = append(t.rows, nil)
		return int32(len(build) - 1)
	}
	for _, tr := range ts {
		s, row := tr.s, tr.row
		n := t.root[s[0]]
		if n < 0 {
			n = node()
			t.root[s[0]] = n
		}
		for i := 1; i < len(s); i++ {
			k := int32(-1)
			for _, e := range build[n] {
				if e.b == s[i] {
					k = e.kid
					break
				}
			}
			if k < 0 {
				k = node()
				build[n] = append(build[n], edge{s[i], k})
			}
			n = k
		}
		if rs := t.rows[n]; len(rs) == 0 || rs[len(rs)-1] != row {
			t.rows[n] = append(t.rows[n], row)
		}
	}
	t.pairs = new([256 * 256 / 64]uint64)
	for c0, n := range t.root {
		if n < 0 {
			continue
		}
		space := false
		for _, e := range build[n] {
			t.setPair(byte(c0), e.b)
			space = space || e.b == ' '
		}
		if space {
			for c1, g := range gapStart {
				if g {
					t.setPair(byte(c0), byte(c1))
				}
			}
		}
	}
	t.first = make([]int32, len(build))
	t.count = make([]uint8, len(build))
	for n, es := range build {
		t.first[n], t.count[n] = int32(len(t.labels)), uint8(len(es))
		for _, e := range es {
			t.labels = append(t.labels, e.b)
			t.kids = append(t.kids, e.kid)
		}
	}
	return t
}

// BenchmarkTable: making the rule table, which every process that scans a
// text pays once.
func BenchmarkTable(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = theTable.build()
	}
}
