package dedup

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKeysConflictAsCompare checks KeysConflict, which scans the older
// text's keys alone (and the keys kept, KeysOf and Lack), against the whole fingerprints over every ordered pair
// of the texts of fixtures/dedup (and those texts with a number or a code
// token changed): it says true exactly when the new text's numbers or code
// tokens are not all among the older one's, and then Compare finds a
// conflict and scores the pair ConflictScore of its Words.
func TestKeysConflictAsCompare(t *testing.T) {
	// Changed keys: a port, a file, a flag; and a text with no word.
	texts := []string{
		"Port\nThe API listens on port 8080 behind `nginx.conf`.",
		"Port\nThe API listens on port 8081 behind `nginx.conf`.",
		"Port\nThe API listens on port 8080 behind `caddy.json`.",
		"Flags\nRun `make test` with `-race` before a release.",
		"Flags\nRun `make test` with `-short` before a release.",
		"",
	}
	for _, name := range fixtureFiles {
		for _, p := range loadPairs(t, name) {
			texts = append(texts, p.New.text(), p.Old.text())
		}
	}
	if len(texts) > 400 {
		texts = texts[:400]
	}
	fps := make([]*Fingerprint, len(texts))
	keys := make([]Keys, len(texts))
	for i, s := range texts {
		fps[i] = New(s)
		keys[i] = KeysOf(s)
	}
	var says int
	for i, n := range fps {
		for j, o := range fps {
			got := KeysConflict(n, texts[j])
			want := !n.Empty() && (missing(n.numbers, o.numbers) || missing(n.codes, o.codes))
			if got != want {
				t.Fatalf("KeysConflict(%q, %q) = %v, want %v", short(texts[i]), short(texts[j]), got, want)
			}
			if kept := keys[j].Lack(n); kept != got {
				t.Fatalf("KeysOf(%q).Lack(%q) = %v, KeysConflict %v", short(texts[j]), short(texts[i]), kept, got)
			}
			if !got || o.Empty() {
				continue // Compare finds nothing in a text with no word
			}
			says++
			sim := Compare(n, o)
			if sim.Conflict == "" {
				t.Fatalf("KeysConflict(%q, %q) but Compare finds no conflict", short(texts[i]), short(texts[j]))
			}
			if diff := cmp.Diff(sim.Score, ConflictScore(sim.Words)); diff != "" {
				t.Fatalf("%q against %q: Score is not ConflictScore(Words) (-Compare +ConflictScore):\n%s", short(texts[i]), short(texts[j]), diff)
			}
		}
	}
	// Not a vacuous property: many pairs conflict by their keys.
	if says < len(fps) {
		t.Fatalf("KeysConflict said true of %d pairs of %d texts: too few to show anything", says, len(fps))
	}
	t.Logf("%d texts, %d pairs conflicting by keys", len(fps), says)
}

func short(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 60 {
		return fmt.Sprintf("%s…", s[:60])
	}
	return s
}
