package importer

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

func TestParseJSONGolden(t *testing.T) {
	for _, name := range []string{"note", "notes", "short", "invalid"} {
		t.Run(name, func(t *testing.T) {
			fixture := "json/" + name + ".json"
			items, skips := parseJSON(fixture, fixtureBytes(t, fixture))
			checkItems(t, KindJSON, items, skips)
			golden(t, "json/"+name, renderItems(items, skips))
		})
	}
}

// jsonNote is an item of the JSON file "n.json".
func jsonNote(title, content, source string) Item {
	return Item{Title: title, Content: content, Source: source, Kind: KindJSON}
}

func TestParseJSON(t *testing.T) {
	const long = "Deploys run from the main branch only, after the review."
	nested := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	tests := []struct {
		name      string
		in        string
		wantItems []Item
		wantSkips []Skip
	}{
		{
			name:      "empty",
			in:        "",
			wantSkips: []Skip{{"n.json", "empty"}},
		},
		{
			name:      "white space only",
			in:        " \r\n\t",
			wantSkips: []Skip{{"n.json", "empty"}},
		},
		{
			name:      "byte order mark and CRLF",
			in:        "\xef\xbb\xbf{\r\n  \"title\": \"Deploys\",\r\n  \"text\": \"" + long + "\\r\\nAsk in #ops first.\"\r\n}\r\n",
			wantItems: []Item{jsonNote("Deploys", long+"\nAsk in #ops first.", "n.json")},
		},
		{
			name:      "an object without known fields is a JSON block",
			in:        `{"service": "billing-worker", "port": 8081, "owner": "team-payments"}`,
			wantItems: []Item{jsonNote("n", "```json\n{\n  \"service\": \"billing-worker\",\n  \"port\": 8081,\n  \"owner\": \"team-payments\"\n}\n```", "n.json")},
		},
		{
			name:      "a fence longer than the backticks inside",
			in:        "{\"snippet\": \"```go\\nfunc main() {}\\n``` and more words\"}",
			wantItems: []Item{jsonNote("n", "````json\n{\n  \"snippet\": \"```go\\nfunc main() {}\\n``` and more words\"\n}\n````", "n.json")},
		},
		{
			name: "fields in other cases and orders",
			in:   `{"Name": "Deploys", "TITLE": "Rules", "Body": "` + long + `", "Tags": "Ops, deploy rules,,#CI", "Date": "2024-03-11"}`,
			wantItems: []Item{{
				Title: "Rules", Content: long, Tags: []string{"ops", "deploy-rules", "ci"},
				Created: time.Date(2024, 3, 11, 0, 0, 0, 0, time.UTC), Source: "n.json", Kind: KindJSON,
			}},
		},
		{
			name: "a type that is a memory type",
			in:   `[{"title": "Tabs", "text": "` + long + `", "type": "Convention"}, {"title": "Kind", "text": "` + long + `", "type": "entity"}]`,
			wantItems: []Item{
				{Title: "Tabs", Content: long, Type: memories.TypeConvention, Source: "n.json#1", Kind: KindJSON},
				jsonNote("Kind", long, "n.json#2"),
			},
		},
		{
			name: "times",
			in: `[{"title":"seconds","text":"` + long + `","created":1709251200},` +
				`{"title":"float seconds","text":"` + long + `","timestamp":1709251200.25},` +
				`{"title":"milliseconds","text":"` + long + `","created_at":1709251200123},` +
				`{"title":"zone","text":"` + long + `","date":"2024-05-02T09:30:00+02:00"},` +
				`{"title":"huge","text":"` + long + `","created":1e400},` +
				`{"title":"negative","text":"` + long + `","created":-5},` +
				`{"title":"words","text":"` + long + `","created":"last Tuesday"}]`,
			wantItems: []Item{
				{Title: "seconds", Content: long, Created: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), Source: "n.json#1", Kind: KindJSON},
				{Title: "float seconds", Content: long, Created: time.Date(2024, 3, 1, 0, 0, 0, 250e6, time.UTC), Source: "n.json#2", Kind: KindJSON},
				{Title: "milliseconds", Content: long, Created: time.Date(2024, 3, 1, 0, 0, 0, 123e6, time.UTC), Source: "n.json#3", Kind: KindJSON},
				{Title: "zone", Content: long, Created: time.Date(2024, 5, 2, 7, 30, 0, 0, time.UTC), Source: "n.json#4", Kind: KindJSON},
				jsonNote("huge", long, "n.json#5"),
				jsonNote("negative", long, "n.json#6"),
				jsonNote("words", long, "n.json#7"),
			},
		},
		{
			name: "content of other types",
			in: `[{"title":"list","observations":["Builds run on arm64 runners", {"k": "v"}, 7, null, ""]},` +
				`{"title":"object","value":{"region":"eu-west-1","replicas":3}},` +
				`{"title":"empty content","text":"  ","id":"a-json-element-whose-text-is-blank"}]`,
			wantItems: []Item{
				jsonNote("list", "- Builds run on arm64 runners\n- {\"k\":\"v\"}\n- 7", "n.json#1"),
				jsonNote("object", "```json\n{\n  \"region\": \"eu-west-1\",\n  \"replicas\": 3\n}\n```", "n.json#2"),
				jsonNote("empty content", "```json\n{\n  \"title\": \"empty content\",\n  \"text\": \"  \",\n  \"id\": \"a-json-element-whose-text-is-blank\"\n}\n```", "n.json#3"),
			},
		},
		{
			name: "strings, scalars and empty elements in an array",
			in:   `["` + long + `", 12345678901234567890123, true, null, {}, []]`,
			wantItems: []Item{
				jsonNote("n #1", long, "n.json#1"),
				jsonNote("n #2", "```json\n12345678901234567890123\n```", "n.json#2"),
			},
			wantSkips: []Skip{
				{"n.json#3", tooShort(4)},
				{"n.json#4", tooShort(4)},
				{"n.json#5", tooShort(0)},
				{"n.json#6", tooShort(0)},
			},
		},
		{
			name:      "huge numbers stay as written",
			in:        `{"title":"Limits","text":"The quota is 1e400 bytes, i.e. unlimited.","size":1e400,"tags":[1e400,"limits"]}`,
			wantItems: []Item{{Title: "Limits", Content: "The quota is 1e400 bytes, i.e. unlimited.", Tags: []string{"limits"}, Source: "n.json", Kind: KindJSON}},
		},
		{
			name:      "invalid UTF-8 and control characters inside strings",
			in:        "{\"title\":\"Caf\xe9\\u0000 \\u001b[31mred\",\"text\":\"Opens at 8\xff\\u0000 in the morning on weekdays\"}",
			wantItems: []Item{jsonNote("Caf\uFFFD [31mred", "Opens at 8\uFFFD in the morning on weekdays", "n.json")},
		},
		{
			name:      "invalid UTF-8 in a JSON block",
			in:        "{\"city\":\"Caf\xe9 de la gare, rue des Lilas\",\"opens\":\"08:00\"}",
			wantItems: []Item{jsonNote("n", "```json\n{\n  \"city\": \"Caf\uFFFD de la gare, rue des Lilas\",\n  \"opens\": \"08:00\"\n}\n```", "n.json")},
		},
		{
			name: "too many tags",
			in:   `{"title":"Tags","text":"` + long + `","tags":["t1","t2","t3","t4","t5","t6","t7","t8","t9","t10","t11","t12","t13","t14","t15","t16","t17","t18","t19","t20","t21","123","a b!"]}`,
			wantItems: []Item{{
				Title: "Tags", Content: long, Source: "n.json", Kind: KindJSON,
				Tags: []string{"t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10", "t11", "t12", "t13", "t14", "t15", "t16", "t17", "t18", "t19", "t20"},
			}},
		},
		{
			name:      "nested deeper than the limit",
			in:        `[{"title":"shallow","text":"` + long + `"},` + nested(maxJSONDepth+1) + `]`,
			wantItems: []Item{jsonNote("shallow", long, "n.json#1")},
			wantSkips: []Skip{{"n.json#2", "nested 101 levels deep; at most 100 are read"}},
		},
		{
			name:      "nested deeper than the decoder goes",
			in:        nested(20000),
			wantSkips: []Skip{{"n.json", "invalid JSON at line 1, column 50001: invalid character '{' exceeded max depth"}},
		},
		{
			name:      "a scalar",
			in:        `"just a string at the top of the file"`,
			wantSkips: []Skip{{"n.json", "not a JSON object or array"}},
		},
		{
			name:      "not JSON",
			in:        "title: notes\n{oops}",
			wantSkips: []Skip{{"n.json", "invalid JSON at line 1, column 2: invalid character 'i' in literal true (expecting 'r')"}},
		},
		{
			name:      "an object with data after it",
			in:        "{\"title\":\"a\"}\n{\"title\":\"b\"}",
			wantSkips: []Skip{{"n.json", "invalid JSON at line 2, column 1: invalid character '{' after top-level value"}},
		},
		{
			name:      "an array cut short keeps the elements before",
			in:        "[\n{\"title\":\"First\",\"text\":\"" + long + "\"},\n{\"title\":\"Sec",
			wantItems: []Item{jsonNote("First", long, "n.json#1")},
			wantSkips: []Skip{{"n.json", "invalid JSON at line 3, column 14: unexpected end of JSON input"}},
		},
		{
			name:      "an array with a syntax error",
			in:        "[\n{\"title\":\"First\",\"text\":\"" + long + "\"}\n{\"title\":\"Second\"}]",
			wantItems: []Item{jsonNote("First", long, "n.json#1")},
			wantSkips: []Skip{{"n.json", "invalid JSON at line 3, column 1: invalid character '{' after array element"}},
		},
		{
			name:      "an array with data after it",
			in:        "[\"" + long + "\"] []",
			wantItems: []Item{jsonNote("n #1", long, "n.json#1")},
			wantSkips: []Skip{{"n.json", "invalid JSON at line 1, column 62: more data after the array"}},
		},
		{
			name:      "an empty array",
			in:        "[ ]",
			wantSkips: []Skip{{"n.json", "an empty array"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotItems, gotSkips := parseJSON("n.json", []byte(tt.in))
			checkItems(t, KindJSON, gotItems, gotSkips)
			if diff := cmp.Diff(tt.wantItems, gotItems); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSkips, gotSkips); diff != "" {
				t.Errorf("skips (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseJSONTitles(t *testing.T) {
	long := strings.Repeat("word ", 40)
	tests := []struct {
		path, in string
		want     string
	}{
		{"notes/ideas.json", `{"text":"` + long + `"}`, "ideas"},
		{"notes/ideas.json", `["` + long + `"]`, "ideas #1"},
		{".json", `{"text":"` + long + `"}`, ".json"},
		{"", `{"text":"` + long + `"}`, "JSON"},
		{"n.json", `{"title":"  \n  ","text":"` + long + `"}`, "n"},
		{"n.json", `{"title":"` + long + `","text":"` + long + `"}`, strings.Repeat("word ", 19) + "word…"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %.20s", tt.path, tt.in), func(t *testing.T) {
			items, skips := parseJSON(tt.path, []byte(tt.in))
			if len(items) != 1 {
				t.Fatalf("parseJSON(%q, %q) = %v, %v, want one item", tt.path, tt.in, items, skips)
			}
			if got := items[0].Title; got != tt.want {
				t.Errorf("title %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseJSONSplitsLongContent(t *testing.T) {
	para := strings.Repeat("Every service logs in JSON with a request id. ", 20)
	in := fmt.Sprintf(`{"title":"Logging","text":%q}`, strings.Repeat(para+"\n\n", 12))
	items, skips := parseJSON("n.json", []byte(in))
	checkItems(t, KindJSON, items, skips)
	var got []string
	for _, it := range items {
		got = append(got, it.Title+" "+it.Source)
	}
	want := []string{"Logging (1/2) n.json (1/2)", "Logging (2/2) n.json (2/2)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

func FuzzParseJSON(f *testing.F) {
	fuzzSeeds(f, "json",
		`[{"title":"a","tags":"x,y","created":1e3,"observations":["long enough observation text",{"z":[1,2]}]}]`,
		"{\"name\":\"\\ud800\",\"value\":{\"deep\":[[[\"```\"]]]}}",
		`[1,"two",[3],{"key":"k"}]`+" x",
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParser(t, KindJSON, parseJSON, data)
	})
}
