package rawjson

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseObject(t *testing.T) {
	data := []byte(` { "a" : 1, "b\"q": "x\\\"y", "c":{"d":[1,{"e":"}"}]}, "e\u00e9":null ,"f":[] } `)
	o, ok := ParseObject(data)
	if !ok {
		t.Fatal("not an object")
	}
	var got []string
	for _, m := range o {
		got = append(got, m.KeyString()+"="+string(m.Value))
	}
	want := []string{`a=1`, `b"q="x\\\"y"`, `c={"d":[1,{"e":"}"}]}`, `eé=null`, `f=[]`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("members (-want +got):\n%s", diff)
	}
	if s, _ := String(o.Get(`b"q`)); s != `x\"y` {
		t.Errorf("String = %q", s)
	}
	if string(o.Get("eé")) != "null" || o.Get("zz") != nil {
		t.Errorf("Get")
	}
}

func TestParseArray(t *testing.T) {
	a, ok := ParseArray([]byte(`[1, "a,]", {"x":[2]}, [ ], true]`))
	if !ok {
		t.Fatal("not an array")
	}
	var got []string
	for _, v := range a {
		got = append(got, string(v))
	}
	if diff := cmp.Diff([]string{`1`, `"a,]"`, `{"x":[2]}`, `[ ]`, `true`}, got); diff != "" {
		t.Fatal(diff)
	}
	if _, ok := ParseArray([]byte(`{}`)); ok {
		t.Error("an object read as an array")
	}
}

func TestScalars(t *testing.T) {
	for in, want := range map[string]int64{"12": 12, "-3": -3, "1.9": 1, "1e3": 1000, `"5"`: 0, "x": 0} {
		if got := Int([]byte(in)); got != want {
			t.Errorf("Int(%s) = %d, want %d", in, got, want)
		}
	}
	if !Bool([]byte("true")) || Bool([]byte(`"true"`)) {
		t.Error("Bool")
	}
	if s, ok := String([]byte(`"a\nb\u0041"`)); !ok || s != "a\nbA" {
		t.Errorf("String = %q %v", s, ok)
	}
	if _, ok := String([]byte(`12`)); ok {
		t.Error("a number read as a string")
	}
}

// TestReaders: the never-fail readers give the value of their type, and
// the zero value for any other type — null included, which Value drops as
// it drops an absent member.
func TestReaders(t *testing.T) {
	type read struct {
		Object  []string
		Array   []string
		String  string
		Strings []string
		Bool    bool
		Int     int64
		Value   string
		Absent  bool // Value gave nil
	}
	readAll := func(data []byte) read {
		var r read
		for _, m := range AsObject(data) {
			r.Object = append(r.Object, m.KeyString()+"="+string(m.Value))
		}
		for _, v := range AsArray(data) {
			r.Array = append(r.Array, string(v))
		}
		r.String, r.Strings, r.Bool, r.Int = AsString(data), Strings(data), Bool(data), Int(data)
		v := Value(data)
		r.Value, r.Absent = string(v), v == nil
		return r
	}
	tests := []struct {
		in   string
		want read
	}{
		{``, read{Absent: true}},
		{`null`, read{Absent: true}},
		{`{"a":1}`, read{Object: []string{"a=1"}, Value: `{"a":1}`}},
		{`{}`, read{Value: `{}`}},
		{`["x",2,null,"y"]`, read{Array: []string{`"x"`, `2`, `null`, `"y"`}, Strings: []string{"x", "y"}, Value: `["x",2,null,"y"]`}},
		{`"s\u00e9"`, read{String: "sé", Value: `"s\u00e9"`}},
		{`true`, read{Bool: true, Value: `true`}},
		{`false`, read{Value: `false`}},
		{`-7.5`, read{Int: -7, Value: `-7.5`}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, readAll([]byte(tt.in))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.in, diff)
		}
	}
	if AsObject([]byte(`{}`)) == nil {
		t.Error("an empty object read as nil")
	}
	if AsObject([]byte(`{"a":`)) != nil || AsArray([]byte(`[1,`)) != nil {
		t.Error("a cut value read as members")
	}
}

func TestIsNumber(t *testing.T) {
	for in, want := range map[string]bool{"0": true, "-1": true, "12.5": true, `"1"`: false, "null": false, "": false, "true": false} {
		if got := IsNumber([]byte(in)); got != want {
			t.Errorf("IsNumber(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestPath(t *testing.T) {
	o := AsObject([]byte(`{"git":{"branch":"main","sha":null},"n":1}`))
	tests := []struct {
		keys []string
		want string
	}{
		{[]string{"git", "branch"}, `"main"`},
		{[]string{"git", "sha"}, `null`},
		{[]string{"git", "none"}, ``},
		{[]string{"n", "x"}, ``},
		{[]string{"none", "x"}, ``},
		{[]string{"n"}, `1`},
	}
	for _, tt := range tests {
		if got := string(o.Path(tt.keys...)); got != tt.want {
			t.Errorf("Path(%v) = %q, want %q", tt.keys, got, tt.want)
		}
	}
}

// FuzzAgainstEncodingJSON: on valid JSON objects, the members and the
// strings are what encoding/json decodes.
func FuzzAgainstEncodingJSON(f *testing.F) {
	f.Add([]byte(`{"a":"b","c":[1,2,{"d":"\"}"}],"e":{"f":null}}`))
	f.Add([]byte(`{"k\\":"v\\\\","x":-1.5e3}`))
	f.Add([]byte(`[1,"x",{}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, okObj := ParseObject(data)
		a, okArr := ParseArray(data)
		if !Valid(data) {
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) == nil && m != nil {
			if !okObj {
				t.Fatalf("ParseObject(%s) failed", data)
			}
			for _, mem := range o {
				if !json.Valid(mem.Value) {
					t.Fatalf("member %s value %s is not JSON", mem.Key, mem.Value)
				}
				var want any
				var got any
				_ = json.Unmarshal(m[mem.KeyString()], &want)
				_ = json.Unmarshal(o.Get(mem.KeyString()), &got)
				if !cmp.Equal(want, got) {
					t.Fatalf("member %q: %v, encoding/json %v", mem.KeyString(), got, want)
				}
			}
		}
		var arr []json.RawMessage
		if json.Unmarshal(data, &arr) == nil && arr != nil {
			if !okArr || len(a) != len(arr) {
				t.Fatalf("ParseArray(%s) = %d elements %v, want %d", data, len(a), okArr, len(arr))
			}
		}
		var s string
		if json.Unmarshal(data, &s) == nil {
			trimmed := data
			for len(trimmed) > 0 && (trimmed[0] == ' ' || trimmed[0] == '\n' || trimmed[0] == '\t' || trimmed[0] == '\r') {
				trimmed = trimmed[1:]
			}
			for len(trimmed) > 0 && (trimmed[len(trimmed)-1] == ' ' || trimmed[len(trimmed)-1] == '\n' || trimmed[len(trimmed)-1] == '\t' || trimmed[len(trimmed)-1] == '\r') {
				trimmed = trimmed[:len(trimmed)-1]
			}
			if got, ok := String(trimmed); IsString(trimmed) && (!ok || got != s) {
				t.Fatalf("String(%s) = %q %v, want %q", data, got, ok, s)
			}
		}
	})
}

// TestSkipValue: the end of each kind of value, and -1 for one data cuts
// off (a number at the very end may go on).
func TestSkipValue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{`"a\"b",`, 6}, {`{"a":[1,"]"]} `, 13}, {`12,`, 2}, {`true}`, 4},
		{`12`, -1}, {`"abc`, -1}, {`{"a":1`, -1}, {``, -1},
	} {
		if got := SkipValue([]byte(tc.in), 0); got != tc.want {
			t.Errorf("SkipValue(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
	if got := SkipSpace([]byte(" \t\r\nx"), 0); got != 4 {
		t.Errorf("SkipSpace = %d", got)
	}
}

// FuzzString: String decodes a valid JSON string as encoding/json does,
// escapes, surrogate pairs, lone surrogates and bytes that are not UTF-8
// included (what it returns for bytes that are not JSON is unspecified).
func FuzzString(f *testing.F) {
	for _, s := range []string{`"a\nb\u0041"`, `"\ud83d\ude00 \u00e9\t\"\\\/"`, `"\ud83d"`, `"\ud83d\u0041"`, "\"\xff\"", "\"a\x01\"", `"\x"`, `"\u12"`, `"a"b"`, `"\"`, `""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := String(data)
		if !Valid(data) {
			return
		}
		var want string
		err := json.Unmarshal(data, &want)
		wantOK := err == nil && len(data) >= 2 && data[0] == '"' && data[len(data)-1] == '"'
		if ok != wantOK || got != want && ok {
			t.Fatalf("String(%q) = %q %v, encoding/json %q %v", data, got, ok, want, err)
		}
	})
}

// validCases are JSON and near-JSON texts whose validity encoding/json
// decides: Valid must decide each the same way.
var validCases = []string{
	``, ` `, `null`, ` true `, `false`, `nul`, `truex`, `true false`, `nullnull`,
	`0`, `-0`, `01`, `-`, `1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e-05`, `1e`, `1e+`, `-1.5e3`, `1.e5`, `+1`, `0x1`, `12 `, `1 2`,
	`""`, `"a"`, `"\""`, `"\\"`, `"\/\b\f\n\r\t"`, `"\u00e9"`, `"\u00g9"`, `"\u12"`, `"\x"`, `"a`, `"a\"`, "\"a\x01\"", "\"\x7f\"", "\"\xff\xfe\"", `"\ud83d"`,
	`{}`, `{ }`, `[]`, `[ ]`, `{"a":1}`, `{"a" : [1, 2 ,{"b":null}] }`, `{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `{"a"}`, `{"a":}`, `{1:2}`,
	`{"a":1 "b":2}`, `[1 2]`, `[1,2]]`, `{"a":1}}`, `[`, `{`, `]`, `}`, `[}`, `{]`, `[[[]]]`, `[[[]]`, `{"a":{"b":{}}}`,
	"[\n\t1\r\n]", "[1\f]", `"\u0000"`, `{"":""}`, `[true,false,null]`, `[tru]`,
}

// TestValid: Valid agrees with encoding/json on the grammar's corners and
// on the nesting limit.
func TestValid(t *testing.T) {
	cases := append([]string(nil), validCases...)
	for _, n := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		cases = append(cases, strings.Repeat("[", n)+strings.Repeat("]", n), strings.Repeat(`{"a":`, n)+"1"+strings.Repeat("}", n))
	}
	for _, c := range cases {
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%.40q) = %v, encoding/json %v", c, got, want)
		}
	}
}

// FuzzValid: Valid decides every input as encoding/json's Valid does.
func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json %v", data, got, want)
		}
	})
}

// TestSkipStringLengths: SkipString ends a string where encoding/json does,
// whatever its length and wherever its escaped quotes and backslashes fall
// (short strings and long ones are searched differently).
func TestSkipStringLengths(t *testing.T) {
	for n := 0; n < 40; n++ {
		for _, fill := range []string{`a`, `\"`, `\\`, `é`} {
			body := strings.Repeat(fill, n)
			data := []byte(`"` + body + `",1`)
			want := -1
			var s string
			if dec := json.NewDecoder(strings.NewReader(string(data[:len(data)-2]))); dec.Decode(&s) == nil {
				want = len(data) - 2
			}
			if got := SkipString(data, 0); got != want {
				t.Errorf("SkipString(%q) = %d, want %d", data, got, want)
			}
			if got := SkipString(data[:len(data)-3], 0); got != -1 {
				t.Errorf("SkipString(%q), cut off = %d, want -1", data[:len(data)-3], got)
			}
		}
	}
}

// TestPlainKey checks the ASCII fast path of plainKey against its rule (no
// escape, valid UTF-8) on keys that leave the fast path at each byte class.
func TestPlainKey(t *testing.T) {
	for _, tt := range []struct {
		key  string
		want bool
	}{
		{"", true},
		{"type", true},
		{`a\"b`, false},
		{`\u0061`, false},
		{"eé", true},
		{"é\\n", false},
		{"a\xffb", false},
		{"\xe9", false},
	} {
		if got := plainKey([]byte(tt.key)); got != tt.want {
			t.Errorf("plainKey(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
	o, _ := ParseObject([]byte(`{"typ\u0065":1,"t\u00e9":2,"ab":3}`))
	for key, want := range map[string]string{"type": "1", "té": "2", "ab": "3", "a": ""} {
		if got := string(o.Get(key)); got != want {
			t.Errorf("Get(%q) = %q, want %q", key, got, want)
		}
	}
}
