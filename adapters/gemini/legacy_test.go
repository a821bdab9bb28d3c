package gemini

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

func TestFrame(t *testing.T) {
	type rec struct {
		Off  int64
		Data string
	}
	tests := []struct {
		name, data string
		atEOF      bool
		want       []rec
		consumed   int
	}{
		{"document", "{\n \"sessionId\": \"s\",\n \"messages\": [\n  {\"id\": \"a\"},\n  {\"id\": \"b\"}\n ]\n}\n", true,
			[]rec{{0, "{\n \"sessionId\": \"s\",\n \"messages\": ["}, {38, `{"id": "a"}`}, {53, `{"id": "b"}`}}, 70},
		{"members after the messages", `{"messages":[{"id":"a"}],"summary":"x","kind":"main"}`, true,
			[]rec{{0, `{"messages":[`}, {13, `{"id":"a"}`}, {23, `],"summary":"x","kind":"main"}`}}, 53},
		{"no messages", `{"history":[{"role":"user"}],"meta":{}}` + "\n", true,
			[]rec{{0, `{"history":[{"role":"user"}],"meta":{}}`}}, 40},
		{"messages not an array", `{"sessionId":"s","messages":null}`, true,
			[]rec{{0, `{"sessionId":"s","messages":null}`}}, 33},
		{"cut inside a message", `{"messages":[{"id":"a"},{"id":`, false,
			[]rec{{0, `{"messages":[`}, {13, `{"id":"a"}`}}, 24},
		{"cut inside a message, at the end", `{"messages":[{"id":"a"},{"id":`, true,
			[]rec{{0, `{"messages":[`}, {13, `{"id":"a"}`}, {24, `{"id":`}}, 30},
		{"cut in the head", `{"sessionId":"s","mess`, false, nil, 0},
		{"a message's brace inside a string", `{"messages":[{"id":"}]{\"x"}]}`, true,
			[]rec{{0, `{"messages":[`}, {13, `{"id":"}]{\"x"}`}}, 30},
		{"resumed at a message", "  {\"id\": \"b\"}\n ]\n}\n", true, []rec{{2, `{"id": "b"}`}}, 19},
		{"resumed at the end", "]\n}\n", false, nil, 4},
		{"a top-level array", `[{"id":"a"},{"id":"b"}]`, true, []rec{{0, `[`}, {1, `{"id":"a"}`}, {12, `{"id":"b"}`}, {22, `]`}}, 23},
		{"JSON lines", "{\"a\":1}\n{\"b\":2}\n", true, []rec{{0, `{"a":1}`}, {8, `{"b":2}`}}, 16},
		{"text", "not json\n{\"a\":1}", false, []rec{{0, "not json"}, {9, `{"a":1}`}}, 16},
		{"text at the end", "junk", false, nil, 0},
		{"text at the end, final", "junk \n", true, []rec{{0, "junk"}}, 6},
		{"blank", " \n\t", true, nil, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, consumed := NewLegacy().Frame([]byte(tt.data), tt.atEOF)
			var got []rec
			for _, r := range recs {
				got = append(got, rec{r.Offset, string(r.Data)})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || consumed != tt.consumed {
				t.Errorf("records (-want +got):\n%s\nconsumed %d, want %d", diff, consumed, tt.consumed)
			}
		})
	}
}

// checkFrame checks what Frame must do on any input: records in order,
// apart, each the bytes at its offset; everything consumed at the end; a
// read without atEOF a prefix of one with it; a read of the bytes before
// any record stops just before it; and framing restarted at any record
// boundary gives the records that follow it.
func checkFrame(t *testing.T, data []byte) {
	l := NewLegacy()
	all, consumed := l.Frame(data, true)
	if consumed != len(data) {
		t.Fatalf("at the end, consumed %d of %d bytes", consumed, len(data))
	}
	end := int64(0)
	for i, r := range all {
		if r.Offset < end || len(r.Data) == 0 || r.Offset+int64(len(r.Data)) > int64(len(data)) ||
			!bytes.Equal(r.Data, data[r.Offset:r.Offset+int64(len(r.Data))]) {
			t.Fatalf("record %d at %d (%d bytes) after %d: %q", i, r.Offset, len(r.Data), end, r.Data)
		}
		end = r.Offset + int64(len(r.Data))
	}
	part, c := l.Frame(data, false)
	if c > len(data) || len(part) > len(all) {
		t.Fatalf("without atEOF: %d records, consumed %d", len(part), c)
	}
	for i := range part {
		if part[i].Offset != all[i].Offset || !bytes.Equal(part[i].Data, all[i].Data) {
			t.Fatalf("without atEOF, record %d differs", i)
		}
	}
	if len(part) > 0 {
		if last := part[len(part)-1]; int64(c) < last.Offset+int64(len(last.Data)) {
			t.Fatalf("consumed %d, before the end of the last record", c)
		}
	}
	for i, r := range all {
		// Stopped at the record: the records before it, consumed up to it.
		head, c := l.Frame(data[:r.Offset], false)
		if len(head) != i || c != int(r.Offset) {
			t.Fatalf("a read of the %d bytes before record %d: %d records, consumed %d", r.Offset, i, len(head), c)
		}
		rest, _ := l.Frame(data[r.Offset:], true)
		if len(rest) != len(all)-i {
			t.Fatalf("restarted at record %d (byte %d): %d records, want %d", i, r.Offset, len(rest), len(all)-i)
		}
		for j := range rest {
			if rest[j].Offset+r.Offset != all[i+j].Offset || !bytes.Equal(rest[j].Data, all[i+j].Data) {
				t.Fatalf("restarted at record %d: record %d differs", i, i+j)
			}
		}
	}
}

func TestFrameFixtures(t *testing.T) {
	for _, fx := range append(legacyFixtures(t), fixtures(t)...) {
		t.Run(fx.Name, func(t *testing.T) {
			checkFrame(t, fx.Data)
			for _, g := range transcripttest.Garbled(fx.Data) {
				checkFrame(t, g)
			}
		})
	}
}

// FuzzFrame fuzzes the legacy reader: the framer's guarantees (checkFrame)
// and, through the reader, every invariant of transcript.Verify (no panic,
// lossless, unique ids, resumable at record boundaries).
func FuzzFrame(f *testing.F) {
	transcripttest.Seeds(f, legacyFixtures(f))
	f.Add([]byte(`{"sessionId":"s","projectHash":"p","messages":[{"id":"a","type":"user","content":"x"}],"summary":"y"}`))
	f.Add([]byte(`[{"id":"a","type":"gemini","content":"","toolCalls":[{"id":"c","name":"replace","args":{"file_path":"f","old_string":"a","new_string":"b"},"status":"error"}]}]`))
	a := NewLegacy()
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFrame(t, data)
		rep := transcript.Verify(a, "fuzz.json", data, transcript.VerifyOptions{ResumePoints: 4})
		for _, v := range rep.Violations {
			t.Errorf("%s", v)
		}
		if _, err := transcript.Marshal(mustParse(t, a, data)); err != nil {
			t.Errorf("events do not encode: %v", err)
		}
	})
}

// mustParse calls Parse on each framed record directly, so a panic fails
// the fuzz target instead of becoming an Unknown event.
func mustParse(t *testing.T, a *Legacy, data []byte) []transcript.Event {
	t.Helper()
	recs, _ := a.Frame(data, true)
	ctx := transcript.NewContext(a.Source(), "fuzz.json")
	var out []transcript.Event
	for _, r := range recs {
		r.File = "fuzz.json"
		evs := a.Parse(r, ctx)
		if len(evs) == 0 {
			t.Fatalf("no event for the record at %d", r.Offset)
		}
		out = append(out, evs...)
	}
	return out
}
