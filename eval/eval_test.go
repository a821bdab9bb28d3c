package eval

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

func TestScore(t *testing.T) {
	tests := []struct {
		name     string
		got, rel []string
		want     Metrics
	}{
		{"first", []string{"a", "b", "c"}, []string{"a"}, Metrics{1, 1, 1, 1, 1}},
		{"third", []string{"x", "y", "a"}, []string{"a"}, Metrics{0, 1, 1, 1.0 / 3, 1 / math.Log2(4)}},
		{"sixth", []string{"x", "y", "z", "u", "v", "a"}, []string{"a"}, Metrics{0, 0, 1, 1.0 / 6, 1 / math.Log2(7)}},
		{"missing", []string{"x", "y"}, []string{"a"}, Metrics{}},
		{"nothing found", nil, []string{"a"}, Metrics{}},
		// Two relevant at 1 and 3: DCG 1 + 1/2, ideal 1 + 1/log2(3).
		{"two relevant", []string{"a", "x", "b"}, []string{"a", "b"}, Metrics{1, 1, 1, 1, 1.5 / (1 + 1/math.Log2(3))}},
		// One of two found, at 2: DCG 1/log2(3), ideal 1 + 1/log2(3).
		{"one of two", []string{"x", "b"}, []string{"a", "b"}, Metrics{0, 1, 1, 0.5, (1 / math.Log2(3)) / (1 + 1/math.Log2(3))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := score(tt.got, tt.rel)
			if diff := cmp.Diff(got, tt.want, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); diff != "" {
				t.Errorf("(-got +want):\n%s", diff)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"not json", `{`, "unexpected EOF"},
		{"unknown key", `{"documents":[{"id":"d1","content":"x"}],"querys":[]}`, `unknown field "querys"`},
		{"no documents", `{"documents":[],"queries":[]}`, "no documents"},
		{"document without id", `{"documents":[{"content":"x"}]}`, "document 1 has no id"},
		{"document twice", `{"documents":[{"id":"d1"},{"id":"d1"}]}`, `document id "d1" is used twice`},
		{"query twice", `{"documents":[{"id":"d1"}],"queries":[{"id":"q","query":"x"},{"id":"q","query":"y"}]}`, `query id "q" is used twice`},
		{"query without text", `{"documents":[{"id":"d1"}],"queries":[{"id":"q"}]}`, "query q has no query text"},
		{"unknown relevant", `{"documents":[{"id":"d1"}],"queries":[{"id":"q","query":"x","relevant":["d9"]}]}`, `relevant document "d9" is not in the dataset`},
		{"bad date", `{"documents":[{"id":"d1","created":"yesterday"}]}`, "cannot parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.data), "set.json")
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "set.json") {
				t.Fatalf("err = %v, want one naming set.json and containing %q", err, tt.want)
			}
			var ae *memories.ArgError
			if !asArgError(err, &ae) || ae.Arg != "dataset" {
				t.Errorf("err %v is not an argument error about the dataset", err)
			}
		})
	}
}

func asArgError(err error, target **memories.ArgError) bool {
	ae, ok := err.(*memories.ArgError)
	if ok {
		*target = ae
	}
	return ok
}

// small is a dataset whose answers a reader can check by hand.
func small() *Dataset {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 9, 0, 0, 0, time.UTC) }
	return &Dataset{
		Documents: []Document{
			{ID: "pool", Title: "Staging DB pool is 20", Content: "The staging database connection pool holds 20 connections per pod.", Project: "api", Created: day(1)},
			{ID: "jwt", Title: "JWT signing", Content: "Use RS256 for JWT signing in production; HS256 shares the secret.", Project: "api", Created: day(2)},
			{ID: "k8s", Title: "Cluster upgrade", Content: "Both clusters run Kubernetes 1.31 since July.", Project: "general", Created: day(3)},
			{ID: "css", Title: "Styling", Content: "Components are styled with Tailwind classes; no CSS modules.", Project: "web", Created: day(4)},
		},
		Queries: []Query{
			{ID: "q1", Query: "how big is the db pool on staging", Project: "api", Relevant: []string{"pool"}},
			{ID: "q2", Query: "k8s", Project: "api", Relevant: []string{"k8s"}},
			{ID: "q3", Query: "jwt algorithm", Relevant: []string{"jwt"}},
			{ID: "q4", Query: "anything about lunch", Relevant: nil},
		},
	}
}

func TestRunSmall(t *testing.T) {
	rep, err := Run(context.Background(), small(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Queries != 3 || rep.Skipped != 1 {
		t.Errorf("queries %d, skipped %d; want 3, 1", rep.Queries, rep.Skipped)
	}
	// Every answer is found first by cortex; the baseline, with no synonyms,
	// misses "k8s" for "Kubernetes".
	if want := (Metrics{1, 1, 1, 1, 1}); rep.Cortex != want {
		t.Errorf("cortex %+v, want %+v", rep.Cortex, want)
	}
	if rep.Baseline.RecallAt10 >= 1 {
		t.Errorf("baseline %+v: found what only synonyms find", rep.Baseline)
	}
	// The same input gives the same report.
	again, err := Run(context.Background(), small(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(again, rep); diff != "" {
		t.Errorf("a second run differs (-second +first):\n%s", diff)
	}
}

// TestShippedDataset holds cortex to what the README reports on the dataset
// in fixtures/eval: Recall@5 of at least 0.9, and better than plain BM25 on
// Recall@5 and MRR.
func TestShippedDataset(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 331 memories")
	}
	d, err := Load("../fixtures/eval/coding-memory.json")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d queries (%d skipped)\ncortex   %+v\nbaseline %+v", rep.Queries, rep.Skipped, rep.Cortex, rep.Baseline)
	if rep.Cortex.RecallAt5 < 0.9 {
		t.Errorf("Recall@5 %.4f, want at least 0.9", rep.Cortex.RecallAt5)
	}
	if rep.Cortex.RecallAt5 <= rep.Baseline.RecallAt5 || rep.Cortex.MRR <= rep.Baseline.MRR {
		t.Errorf("cortex %+v does not beat the baseline %+v on Recall@5 and MRR", rep.Cortex, rep.Baseline)
	}
}
