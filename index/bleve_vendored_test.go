package index

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/google/go-cmp/cmp"
)

// The tests below cover the one change cortex makes to the Bleve copy in
// third_party/bleve (third_party/bleve-patches): scorch builds its Levenshtein
// automaton builders on first use instead of in init().

// TestVendoredBleveFuzzyTermQuery runs fuzzy term queries against a scorch index
// made the way cortex makes them: the builders made on first use must find
// misspelled terms at edit distances 1 and 2 and nothing further away. The
// subtests run in parallel so that the race detector sees the first use
// contended.
func TestVendoredBleveFuzzyTermQuery(t *testing.T) {
	b := newTestBleve(t)
	tests := []struct {
		name      string
		field     string
		term      string
		fuzziness int
		want      []string
		wantErr   string
	}{
		{name: "tag one deletion", field: fieldTag, term: "observabilty", fuzziness: 1, want: []string{"m11"}},
		{name: "tag transposition is one edit", field: fieldTag, term: "relaibility", fuzziness: 1, want: []string{"m10"}},
		{name: "tag two edits", field: fieldTag, term: "relaiblity", fuzziness: 2, want: []string{"m10"}},
		{name: "tag two edits beyond fuzziness 1", field: fieldTag, term: "relaiblity", fuzziness: 1, want: nil},
		{name: "project one deletion", field: fieldProject, term: "gama", fuzziness: 1, want: []string{"m06", "m07"}},
		{name: "project exact only at fuzziness 0", field: fieldProject, term: "gama", fuzziness: 0, want: nil},
		{name: "body two edits", field: fieldBody, term: "kfak", fuzziness: 2, want: []string{"m04"}},
		{name: "fuzziness above the maximum", field: fieldBody, term: "kfak", fuzziness: 3, wantErr: "fuzziness"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q := bleve.NewFuzzyQuery(tt.term)
			q.SetField(tt.field)
			q.SetFuzziness(tt.fuzziness)
			req := bleve.NewSearchRequestOptions(q, 20, 0, false)
			res, err := b.idx.SearchInContext(t.Context(), req)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("search error = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.ID)
			}
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("fuzzy %s:%q~%d hits (-want +got):\n%s", tt.field, tt.term, tt.fuzziness, diff)
			}
		})
	}
}

// scorchInitAllocsMax bounds the allocations of the scorch package's init.
// Upstream v2.6.1 makes about 25,800 there (the Levenshtein builders); the
// patched package makes fewer than ten.
const scorchInitAllocsMax = 1000

// initTraceLine is one line of GODEBUG=inittrace=1 output.
var initTraceLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, \d+ bytes, (\d+) allocs$`)

// TestVendoredBleveScorchInitAllocs runs this test binary again, running no
// test, with GODEBUG=inittrace=1, and reads what the runtime reports for the
// scorch package's init: the start-up saving of the patch is its allocations,
// which, unlike time, are the same on every run.
func TestVendoredBleveScorchInitAllocs(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), exe, "-test.run=^$")
	godebug := "inittrace=1"
	if v := os.Getenv("GODEBUG"); v != "" {
		godebug = v + "," + godebug
	}
	cmd.Env = append(os.Environ(), "GODEBUG="+godebug)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s -test.run=^$: %v\n%s", exe, err, stderr.String())
	}

	const pkg = "github.com/blevesearch/bleve/v2/index/scorch"
	allocs := -1
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		m := initTraceLine.FindStringSubmatch(sc.Text())
		if m == nil || m[1] != pkg {
			continue
		}
		if allocs, err = strconv.Atoi(m[2]); err != nil {
			t.Fatalf("allocs in %q: %v", sc.Text(), err)
		}
	}
	if allocs < 0 {
		t.Fatalf("no inittrace line for %s in the child's stderr:\n%s", pkg, stderr.String())
	}
	if allocs > scorchInitAllocsMax {
		t.Errorf("%s init made %d allocations, want at most %d: are the Levenshtein builders made in init() again? (see third_party/bleve-patches)",
			pkg, allocs, scorchInitAllocsMax)
	}
}

// TestWhitespaceTokenizerReadsAll: the vendored whitespace tokenizer (patch
// 0005) keeps tokenizing after a byte that is not UTF-8 and after U+FFFD;
// v2.6.1 stopped at the first of either and dropped the words after it.
func TestWhitespaceTokenizerReadsAll(t *testing.T) {
	tok, err := whitespace.TokenizerConstructor(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"alpha beta", []string{"alpha", "beta"}},
		{"caf\xff beta gamma_id", []string{"caf\xff", "beta", "gamma_id"}},
		{"\xff", []string{"\xff"}},
		{"before \uFFFD after_id", []string{"before", "\uFFFD", "after_id"}},
		{"x\uFFFDy z", []string{"x\uFFFDy", "z"}},
		{"trailing \xe2\x82", []string{"trailing", "\xe2\x82"}},
	} {
		var got []string
		for _, tk := range tok.Tokenize([]byte(tc.in)) {
			got = append(got, string(tk.Term))
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("tokens of %q (-want +got):\n%s", tc.in, diff)
		}
	}
}

// TestLoadAllFieldsOfAPlainHitAllocatesNothing checks patch 0007: a hit
// without nested documents, and no stored fields or highlights asked for,
// is loaded without a match made for nested documents it does not have
// (v2.6.1 made one for every hit of every search).
func TestLoadAllFieldsOfAPlainHitAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	req := bleve.NewSearchRequest(bleve.NewMatchAllQuery())
	hit := &bsearch.DocumentMatch{ID: "m1"}
	allocs := testing.AllocsPerRun(100, func() {
		if err, _ := bleve.LoadAndHighlightAllFields(hit, req, "", nil, nil); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("loading a plain hit: %v allocations, want 0", allocs)
	}
}
