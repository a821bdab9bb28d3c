package dedup

import (
	"slices"
	"strings"
	"testing"
)

// TestFingerprintKeysAreKeysOf: a fingerprint's Keys are KeysOf its text,
// and its Words are Words of it, over the texts of fixtures/dedup and a few
// with keys; and both are the same of a title and body written as a note
// holds them (a blank line after the title, a line feed at the end), which
// is how a store keeps a new note's set from the fingerprint it was
// compared by.
func TestFingerprintKeysAreKeysOf(t *testing.T) {
	texts := []string{
		"Port\nThe API listens on port 8080 behind `nginx.conf`.",
		"Flags\nRun `make test` with `-race` before a release.",
		"Odd `tick\n`make build` then 3 retries",
		"Fence\n```console\n$ go test ./... -run TestX\n```\nthen 42.",
		"List\n- 1. first step on port 22\n> quoted 7",
		"",
		"Only title",
	}
	for _, name := range fixtureFiles {
		for _, p := range loadPairs(t, name) {
			texts = append(texts, p.New.text(), p.Old.text())
		}
	}
	withKeys := 0
	for _, s := range texts {
		fp := New(s)
		k, want := fp.Keys(), KeysOf(s)
		if !slices.Equal(k.Numbers(), want.Numbers()) || !slices.Equal(k.Codes(), want.Codes()) {
			t.Fatalf("New(%q).Keys() = %v %v, KeysOf %v %v", short(s), k.Numbers(), k.Codes(), want.Numbers(), want.Codes())
		}
		if !slices.Equal(fp.Words(), Words(s)) {
			t.Fatalf("New(%q).Words() differs from Words", short(s))
		}
		if k.Size() > 0 {
			withKeys++
		}
		title, body, ok := strings.Cut(s, "\n")
		if !ok {
			continue
		}
		note := title + "\n\n" + body + "\n"
		nk := KeysOf(note)
		if !slices.Equal(Words(note), Words(s)) || !slices.Equal(nk.Numbers(), want.Numbers()) || !slices.Equal(nk.Codes(), want.Codes()) {
			t.Fatalf("%q as a note holds it: another word set or keys", short(s))
		}
	}
	if withKeys < 10 {
		t.Fatalf("only %d texts with keys: the test compares little", withKeys)
	}
}
