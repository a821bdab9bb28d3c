package rawjson

import (
	"encoding/json"
	"strings"
	"testing"
)

// moreValidCases are inputs on each side of every rule of the grammar; Valid
// must answer as encoding/json does for each.
var moreValidCases = []string{
	``, ` `, `{}`, ` {} `, `[]`, `[ ]`, `{ }`, `"a"`, `1`, `-0`, `0.5`, `1e5`, `1E+5`, `-1.5e-3`,
	`true`, `false`, `null`, `tru`, `nul`, `True`, `true1`, `[true,false,null]`,
	`01`, `-`, `+1`, `.5`, `1.`, `1e`, `1e+`, `-a`, `0x1`, `1.5.2`, `[1,]`, `[,1]`, `{,}`,
	`{"a":1,}`, `{"a" 1}`, `{"a":}`, `{1:2}`, `{"a":1 "b":2}`, `[1 2]`, `{"a":[1,{"b":null}]}`,
	`"\u0041"`, `"\u00e9\ud83d\ude00"`, `"\u12"`, `"\u12g4"`, `"\x"`, `"\/\b\f\n\r\t\"\\"`, `"\`,
	"\"a\x01b\"", "\"a\x1fb\"", "\"a\x7fb\"", "\"\xff\xfe\"", "\"tab\there\"", `"abc`, `"a"b`,
	"\t\r\n[1]\n", "[1]\x00", "\v1", `{"a":1}}`, `[[]]]`, `]`, `}`, `:`, `{"a":"b"`, `["a"`,
	`{"a":1}{"b":2}`, `1 2`, `"\u0000"`, `{"\u00e9":1}`,
}

// TestValidMoreCases: a second, independently written list of corners.
func TestValidMoreCases(t *testing.T) {
	for _, in := range moreValidCases {
		if got, want := Valid([]byte(in)), json.Valid([]byte(in)); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", in, got, want)
		}
	}
}

// TestValidDepth: nesting up to encoding/json's limit is valid, one level
// more is not, and neither overflows the stack.
func TestValidDepth(t *testing.T) {
	for _, tc := range []struct {
		open, close string
		depth       int
	}{
		{"[", "]", maxDepth}, {"[", "]", maxDepth + 1}, {`{"a":`, "}", maxDepth}, {`{"a":`, "}", maxDepth + 1},
		{"[", "]", 100000},
	} {
		in := []byte(strings.Repeat(tc.open, tc.depth) + "1" + strings.Repeat(tc.close, tc.depth))
		if got, want := Valid(in), json.Valid(in); got != want {
			t.Errorf("Valid(%s×%d) = %v, encoding/json says %v", tc.open, tc.depth, got, want)
		}
	}
}

func BenchmarkValid(b *testing.B) {
	data := []byte(`{"type":"message","id":"2e651873-0881-4fbe-80b0-92d59a21074e","timestamp":"2026-01-28T16:57:01.391Z","message":{"role":"user","content":[{"type":"text","text":"Update the first comment in @index.ts to \"DROID3\""},{"type":"text","text":"Contents of /Users/testuser/projects/testing-git/index.ts (lines 1-25 of 25):\n// DROID2\nconsole.log('Hello');\n","n":[1,2.5e3,-0,true,null]}]}}`)
	for _, tc := range []struct {
		name  string
		valid func([]byte) bool
	}{{"rawjson", Valid}, {"encoding-json", json.Valid}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if !tc.valid(data) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
