package sqlitedb

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript/rawjson"
)

func TestAppendJSON(t *testing.T) {
	tests := []struct {
		name string
		row  Row
		json []string
		want string
	}{
		{"kinds", Row{Table: "t", RowID: 7, Columns: []string{"n", "f", "s", "z", "b"},
			Values: []any{int64(-3), 1.5, "a\"\\\n\x01é<", nil, []byte{0, 1, 0xff}}},
			nil, `{"table":"t","rowid":7,"values":{"n":-3,"f":1.5,"s":"a\"\\\n\u0001é<","z":null,"b":{"$blob":"AAH/"}}}`},
		{"json column, compacted", Row{Table: "part", Columns: []string{"id", "data"},
			Values: []any{"p1", "{\n  \"type\": \"text\",\n  \"text\": \"hi\"\n}"}},
			[]string{"data"}, `{"table":"part","values":{"id":"p1","data":{"type":"text","text":"hi"}}}`},
		{"json column that is not JSON", Row{Table: "t", Columns: []string{"data"}, Values: []any{"{oops"}},
			[]string{"data"}, `{"table":"t","values":{"data":"{oops"}}`},
		{"json in a blob", Row{Table: "kv", Columns: []string{"value"}, Values: []any{[]byte(`[1, 2]`)}},
			[]string{"value"}, `{"table":"kv","values":{"value":[1,2]}}`},
		{"text not UTF-8", Row{Table: "t", Columns: []string{"s"}, Values: []any{"\xff\xfe"}},
			nil, `{"table":"t","values":{"s":{"$blob":"//4="}}}`},
		{"not a number", Row{Table: "t", Columns: []string{"f"}, Values: []any{math.Inf(1)}},
			nil, `{"table":"t","values":{"f":"+Inf"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(tt.row.AppendJSON(nil, tt.json...))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !json.Valid([]byte(got)) {
				t.Fatalf("not JSON: %s", got)
			}
			l, ok := ParseLine([]byte(got))
			if !ok || l.Table != tt.row.Table || l.RowID != tt.row.RowID || len(l.Values) != len(tt.row.Columns) {
				t.Errorf("read back: %+v %v", l, ok)
			}
		})
	}
}

func TestBytes(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{`{"$blob":"AAH/"}`, "\x00\x01\xff", true},
		{`"text"`, "text", true},
		{`{"$blob":"!!"}`, "", false},
		{`{"$blob":"AA==","x":1}`, "", false},
		{`42`, "", false},
	}
	for _, tt := range tests {
		got, ok := Bytes([]byte(tt.in))
		if string(got) != tt.want || ok != tt.ok {
			t.Errorf("Bytes(%s) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseLineRefuses(t *testing.T) {
	for _, in := range []string{`{}`, `{"table":"t"}`, `{"table":"","values":{}}`, `{"table":"t","values":[]}`,
		`{"table":"t","rowid":"x","values":{}}`, `[1]`} {
		if !rawjson.Valid([]byte(in)) {
			t.Fatalf("test input %s is not JSON", in)
		}
		if l, ok := ParseLine([]byte(in)); ok {
			t.Errorf("ParseLine(%s) = %+v, want refused", in, l)
		}
	}
}
