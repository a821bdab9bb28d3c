package ndjson

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

type item struct {
	Name string            `json:"name"`
	Tags map[string]string `json:"tags,omitempty"`
	N    int               `json:"n,omitempty"`
}

// writes records every Write call, to see lines are written whole.
type writes struct{ calls []string }

func (w *writes) Write(p []byte) (int, error) {
	w.calls = append(w.calls, string(p))
	return len(p), nil
}

func TestEncoder(t *testing.T) {
	items := []item{
		{Name: "<a> & b", Tags: map[string]string{"z": "1", "a": "2", "m": "3"}},
		{Name: "two", N: 2},
	}
	var w writes
	enc := NewEncoder[item](&w)
	for i := range items {
		if err := enc.Encode(&items[i]); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		`{"name":"<a> & b","tags":{"a":"2","m":"3","z":"1"}}` + "\n",
		`{"name":"two","n":2}` + "\n",
	}
	if diff := cmp.Diff(want, w.calls); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	b, err := Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != strings.Join(want, "") {
		t.Errorf("Marshal = %q", got)
	}
	if b, err := Marshal[item](nil); err != nil || len(b) != 0 {
		t.Errorf("Marshal(nil) = %q, %v", b, err)
	}
}

func TestEncodeError(t *testing.T) {
	enc := NewEncoder[map[string]any](&bytes.Buffer{})
	ok, bad := map[string]any{"a": 1}, map[string]any{"f": func() {}}
	if err := enc.Encode(&ok); err != nil {
		t.Fatal(err)
	}
	if err := enc.Encode(&bad); err == nil || !strings.HasPrefix(err.Error(), "encode line 2: ") {
		t.Errorf("err = %v, want one naming line 2", err)
	}
}

func TestDecode(t *testing.T) {
	stop := errors.New("stop")
	tests := []struct {
		name    string
		in      string
		stopAt  string // fn returns stop for this name
		want    []string
		wantErr string
	}{
		{name: "lines", in: "{\"name\":\"a\"}\n{\"name\":\"b\"}\n", want: []string{"a", "b"}},
		{name: "blank lines and no final newline", in: "\n{\"name\":\"a\"}\n  \r\n\n{\"name\":\"b\"}", want: []string{"a", "b"}},
		{name: "empty", in: ""},
		{name: "bad line", in: "{\"name\":\"a\"}\n\n{\"name\":\n{\"name\":\"c\"}\n", want: []string{"a"}, wantErr: "line 3: unexpected end of JSON input"},
		{name: "wrong type", in: "{\"name\":1}\n", wantErr: "line 1: json: cannot unmarshal number into Go struct field item.name of type string"},
		{name: "fn stops", in: "{\"name\":\"a\"}\n{\"name\":\"b\"}\n{\"name\":\"c\"}\n", stopAt: "b", want: []string{"a", "b"}, wantErr: "stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			err := Decode(strings.NewReader(tt.in), func(v item) error {
				got = append(got, v.Name)
				if v.Name == tt.stopAt {
					return stop
				}
				return nil
			})
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr {
				t.Errorf("err = %q, want %q", gotErr, tt.wantErr)
			}
			if tt.stopAt != "" && !errors.Is(err, stop) {
				t.Errorf("fn's error not returned: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeAll(t *testing.T) {
	got, err := DecodeAll[item](strings.NewReader("{\"name\":\"a\"}\nnot json\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "line 2: ") {
		t.Errorf("err = %v, want one naming line 2", err)
	}
	if diff := cmp.Diff([]item{{Name: "a"}}, got); diff != "" {
		t.Errorf("values before the error (-want +got):\n%s", diff)
	}
}

// FuzzRoundTrip: Decode never panics, and what it reads encodes to bytes
// that decode to the same values (an empty map and an omitted one being the
// same) and encode to the same bytes again.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("{\"name\":\"a\",\"tags\":{\"b\":\"1\"}}\n\n{\"n\":3}"))
	f.Add([]byte("{\"name\":\"\\u003c\"}\r\n"))
	f.Add([]byte("[1]\nnull\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		vs, err := DecodeAll[item](bytes.NewReader(data))
		if err != nil {
			return
		}
		b, err := Marshal(vs)
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeAll[item](bytes.NewReader(b))
		if err != nil {
			t.Fatalf("own output does not decode: %v", err)
		}
		if diff := cmp.Diff(vs, again, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		if b2, _ := Marshal(again); !bytes.Equal(b, b2) {
			t.Fatalf("second encoding differs:\n%s\n%s", b, b2)
		}
	})
}
