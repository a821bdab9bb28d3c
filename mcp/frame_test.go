package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// readFrames is every frame of input, as "data" or "over id".
func readFrames(t *testing.T, input string, max int) []string {
	t.Helper()
	fr := newFrameReader(strings.NewReader(input), max)
	var got []string
	for {
		f, err := fr.next()
		if errors.Is(err, io.EOF) {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
		if f.over {
			got = append(got, "over "+string(f.id))
		} else {
			got = append(got, string(f.data))
		}
	}
}

func TestFrameReader(t *testing.T) {
	long := strings.Repeat("y", 100<<10) // longer than the reader's buffer
	for _, tt := range []struct {
		name, input string
		max         int
		want        []string
	}{
		{"lines", "a\nbb\n", 8, []string{"a", "bb"}},
		{"CRLF", "a\r\nbb\r\n", 8, []string{"a", "bb"}},
		{"a last line without end", "a\nbb", 8, []string{"a", "bb"}},
		{"blank lines", "\n\r\n\n", 8, []string{"", "", ""}},
		{"nothing", "", 8, nil},
		{"exactly the limit", "12345678\n12345678\r\n", 8, []string{"12345678", "12345678"}},
		{"one over", "123456789\nok\n", 8, []string{"over ", "ok"}},
		{"one over with CRLF", "123456789\r\nok\n", 8, []string{"over ", "ok"}},
		{"over without end", "123456789", 8, []string{"over "}},
		{"over with an id", `{"id":7,"p":"xxxxxxxxxxxxxxxx"}` + "\nok\n", 8, []string{"over 7", "ok"}},
		{"over across the buffer", long + "\n" + `{"a":"` + long + `","id":"z"}` + "\nok", 1 << 10, []string{"over ", `over "z"`, "ok"}},
		{"long but within", long + "\n", 200 << 10, []string{long}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, readFrames(t, tt.input, tt.max)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestIDSniffer(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"id":1}`, "1"},
		{`{"jsonrpc":"2.0","id":-12.5e3,"method":"x"}`, "-12.5e3"},
		{`{ "id" : "a\"b" }`, `"a\"b"`},
		{`{"params":{"id":1},"id":2}`, "2"},
		{`{"params":[{"id":1}],"x":"\"id\":3","id":"4"}`, `"4"`},
		{`{"id":{"a":1}}`, ""},
		{`{"id":[1]}`, ""},
		{`{"id":null}`, ""},
		{`{"id":true}`, ""},
		{`{"idx":1}`, ""},
		{`{"i":1}`, ""},
		{`{"id":1`, "1"}, // cut short after the id: still the id
		{`{"id":"abc`, ""},
		{`[{"id":1}]`, ""},
		{`"id"`, ""},
		{`{"id":01}`, ""},
		{`{"id":"` + strings.Repeat("a", maxIDBytes) + `"}`, ""},
		{`{"id":"` + "\xff" + `"}`, ""},
		{`{"id":1,"id":2}`, "1"},
	} {
		var s idSniffer
		for i := 0; i < len(tt.in); i++ { // byte by byte, as a stream may come
			s.write([]byte{tt.in[i]})
		}
		if got := string(s.result()); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPlainID(t *testing.T) {
	for _, tt := range []struct {
		raw   string
		plain bool
	}{
		{"1", true}, {"-1", true}, {"0", true}, {"9007199254740991", true}, {"-9007199254740991", true},
		{"9007199254740992", false}, {"12345678901234567890", false}, {"1.0", false}, {"1e3", false}, {"-0", false}, {"01", false},
		{`"a"`, true}, {`""`, true}, {`"é"`, true}, {`"\u00e9"`, false}, {`"a/b"`, true}, {`"\/"`, false}, {`"<"`, true},
		{`"cortex/id/1"`, false},
	} {
		if _, got := plainID(json.RawMessage(tt.raw)); got != tt.plain {
			t.Errorf("plainID(%s) = %v, want %v", tt.raw, got, tt.plain)
		}
	}
}

// FuzzFrames: whatever the input, the frame reader and the message check
// neither panic nor let through what they should not: frames within the
// limit, an answer for every line that is not passed on or blank, ids that
// are strings or numbers, and the id read on the fly agreeing with the id
// parsed.
func FuzzFrames(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{"q":[1,2,{"id":3}]}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345678901234567890}}`,
		`{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"x","data":null}}`,
		`{"jsonrpc":"1.0","id":{"a":1},"method":5}`,
		"[{\"jsonrpc\":\"2.0\"}]\n\n\r\ngarbage\n\xff\xfe",
		`{"id":"a\"b\\","pad":"` + strings.Repeat("x", 80) + `"}`,
		strings.Repeat("[", 80),
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`,
		`{"\u0069d":5,"jsonrpc":"2.0","method":"ping"}`,
	} {
		f.Add([]byte(s))
	}
	const max = 64
	f.Fuzz(func(t *testing.T, input []byte) {
		fr := newFrameReader(bytes.NewReader(input), max)
		for n := 0; ; n++ {
			fr, err := fr.next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n > len(input) {
				t.Fatalf("more frames than bytes")
			}
			if fr.over {
				if fr.data != nil {
					t.Fatalf("a frame over the limit kept its data")
				}
				checkReplyID(t, fr.id)
				continue
			}
			if len(fr.data) > max {
				t.Fatalf("a frame of %d bytes, over the limit of %d", len(fr.data), max)
			}
			m, rerr := checkMessage(fr.data)
			switch {
			case m == nil && rerr == nil:
				if len(bytes.Trim(fr.data, " \t\r\n")) != 0 {
					t.Fatalf("%q: neither passed on nor answered", fr.data)
				}
			case m != nil && rerr != nil:
				t.Fatalf("%q: both passed on and answered", fr.data)
			case rerr != nil:
				if rerr.code != codeParseError && rerr.code != codeInvalidRequest {
					t.Fatalf("%q: code %d", fr.data, rerr.code)
				}
				if !utf8.ValidString(rerr.message) || rerr.message == "" {
					t.Fatalf("%q: message %q", fr.data, rerr.message)
				}
				checkReplyID(t, rerr.id)
			default:
				checkReplyID(t, m.id)
				if !m.request && m.id == nil {
					t.Fatalf("%q: a response without an id passed on", fr.data)
				}
				if !utf8.ValidString(m.method) {
					t.Fatalf("%q: method %q", fr.data, m.method)
				}
				if m.params != nil && m.params[0] != '{' && m.params[0] != '[' {
					t.Fatalf("%q: params %s", fr.data, m.params)
				}
				var s idSniffer
				s.write(fr.data)
				if sid := s.result(); sid != nil && m.id != nil && !bytes.Equal(sid, m.id) {
					t.Fatalf("%q: id read on the fly %s, parsed %s", fr.data, sid, m.id)
				}
				if m.id != nil {
					if _, plain := plainID(m.id); !plain {
						c := newStdioConn(strings.NewReader(""), io.Discard, max, 0)
						id, _ := c.admit(m.id)
						data, err := withID([]byte(`{"jsonrpc":"2.0","id":`+string(encodeString(id.Raw().(string)))+`,"result":{}}`), id, m.id)
						if err != nil || !json.Valid(data) {
							t.Fatalf("%q: answer %q: %v", fr.data, data, err)
						}
						c.Close()
					}
				}
			}
		}
	})
}

// checkReplyID fails unless id is nil (null) or a JSON string or number.
func checkReplyID(t *testing.T, id json.RawMessage) {
	t.Helper()
	if id == nil {
		return
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(id))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || !utf8.Valid(id) || !json.Valid(id) {
		t.Fatalf("id %q is not JSON: %v", id, err)
	}
	switch v.(type) {
	case string, json.Number:
	default:
		t.Fatalf("id %s is a %T", id, v)
	}
}
