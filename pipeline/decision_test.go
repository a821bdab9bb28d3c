package pipeline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecide(t *testing.T) {
	tests := []struct {
		text     string
		epitome  string
		chosen   []string
		rejected []string
	}{
		{"Use SQLite for the cache.", "Use SQLite for the cache.", []string{"SQLite"}, nil},
		{"Hmm. Actually, use Redis instead of SQLite for the cache. Thanks", "Actually, use Redis instead of SQLite for the cache.", []string{"Redis"}, []string{"SQLite"}},
		{"No: keep SQLite, and never add Redis.", "No: keep SQLite, and never add Redis.", nil, []string{"Redis"}},
		{"Let's switch to the new API client now.", "Let's switch to the new API client now.", []string{"new API client"}, nil},
		{"Drop moment in favour of `date-fns`.", "Drop moment in favour of `date-fns`.", []string{"date-fns"}, nil},
		{"Go with option B rather than option A because it is simpler", "Go with option B rather than option A because it is simpler", []string{"option B"}, []string{"option A"}},
		{"Is this right? Use it.", "Use it.", nil, nil},
		{"We'll migrate the database to Postgres 16, then use pgx rather than lib/pq.", "We'll migrate the database to Postgres 16, then use pgx rather than lib/pq.", []string{"Postgres 16", "pgx"}, []string{"lib/pq"}},
		{"Use zap. Use Zap everywhere.", "Use zap.", []string{"zap"}, nil},
		{"From now on, run the linter before commits.", "From now on, run the linter before commits.", nil, nil},
		{"Use a very long name with many words in it", "Use a very long name with many words in it", []string{"very long name"}, nil},
		{"use\nRedis", "use", nil, nil},
	}
	g := DefaultGate()
	for _, tt := range tests {
		v := g.Check(tt.text)
		if !v.Admits {
			t.Errorf("%q is not admitted", tt.text)
			continue
		}
		epitome, chosen, rejected := decide(tt.text, v)
		got := []any{epitome, chosen, rejected}
		want := []any{tt.epitome, tt.chosen, tt.rejected}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.text, diff)
		}
	}
}
