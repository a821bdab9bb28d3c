package importer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

func TestParseMCPMemoryGolden(t *testing.T) {
	tests := []struct {
		fixture string // under fixtures/import
		golden  string // under testdata, without .golden
	}{
		{"mcp/memory.jsonl", "mcp/memory"},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			items, skips := parseMCPMemory(tt.fixture, fixtureBytes(t, tt.fixture))
			checkItems(t, KindMCPMemory, items, skips)
			golden(t, tt.golden, renderItems(items, skips))
		})
	}
}

// fact is an item of the MCP graph file "m.jsonl".
func fact(name, content string, tags ...string) Item {
	return Item{Title: name, Content: content, Tags: tags, Type: memories.TypeFact, Source: "m.jsonl#" + name, Kind: KindMCPMemory}
}

func TestParseMCPMemory(t *testing.T) {
	const alice = `{"type":"entity","name":"Alice","entityType":"person","observations":["Prefers tabs over spaces in Go code"]}`
	tests := []struct {
		name      string
		in        string
		wantItems []Item
		wantSkips []Skip
	}{
		{
			name:      "empty",
			in:        "",
			wantSkips: []Skip{{"m.jsonl", "empty"}},
		},
		{
			name:      "white space only",
			in:        " \r\n\t\n",
			wantSkips: []Skip{{"m.jsonl", "empty"}},
		},
		{
			name:      "byte order mark and CRLF",
			in:        "\xef\xbb\xbf" + alice + "\r\n" + `{"type":"relation","from":"Alice","to":"Bob","relationType":"mentors"}` + "\r\n",
			wantItems: []Item{fact("Alice", "- Prefers tabs over spaces in Go code\n\n## Relations\n\n- mentors → [[Bob]]", "person")},
		},
		{
			name: "a repeated entity is merged",
			in: alice + "\n" +
				`{"type":"entity","name":"Alice","entityType":"Team Lead","observations":["Reviews database migrations","Prefers tabs over spaces in Go code"]}`,
			wantItems: []Item{fact("Alice", "- Prefers tabs over spaces in Go code\n- Reviews database migrations", "person", "team-lead")},
		},
		{
			name: "lines without a type",
			in: `{"name":"Alice","entityType":"person","observations":["Prefers tabs over spaces in Go code"]}` + "\n" +
				`{"from":"Alice","to":"Acme","relationType":"works_at"}`,
			wantItems: []Item{fact("Alice", "- Prefers tabs over spaces in Go code\n\n## Relations\n\n- works_at → [[Acme]]", "person")},
		},
		{
			name: "relations both ways, a self relation once, repeated ones once",
			in: alice + "\n" +
				`{"type":"entity","name":"Acme Corp","entityType":"company","observations":["Builds billing software for dentists"]}` + "\n" +
				`{"type":"relation","from":"Alice","to":"Acme Corp","relationType":"works_at"}` + "\n" +
				`{"type":"relation","from":"Alice","to":"Acme Corp","relationType":"works_at"}` + "\n" +
				`{"type":"relation","from":"Alice","to":"Alice","relationType":"reminds"}`,
			wantItems: []Item{
				fact("Alice", "- Prefers tabs over spaces in Go code\n\n## Relations\n\n- works_at → [[Acme Corp]]\n- reminds → [[Alice]]", "person"),
				fact("Acme Corp", "- Builds billing software for dentists\n\n## Relations\n\n- works_at ← [[Alice]]", "company"),
			},
		},
		{
			name: "an entity with relations only",
			in: `{"type":"entity","name":"Bob","entityType":"person","observations":[]}` + "\n" +
				`{"type":"relation","from":"Bob","to":"Payments platform","relationType":"maintains"}` + "\n" +
				`{"type":"relation","from":"Bob","to":"Search cluster","relationType":"maintains"}`,
			wantItems: []Item{fact("Bob", "## Relations\n\n- maintains → [[Payments platform]]\n- maintains → [[Search cluster]]", "person")},
		},
		{
			name:      "no observations and no relations",
			in:        `{"type":"entity","name":"Redis","entityType":"technology","observations":[]}`,
			wantSkips: []Skip{{"m.jsonl#Redis", "no observations"}},
		},
		{
			name:      "too short",
			in:        `{"type":"entity","name":"Redis","entityType":"technology","observations":["v7"]}`,
			wantSkips: []Skip{{"m.jsonl#Redis", tooShort(2)}},
		},
		{
			name: "bad lines name their number",
			in: alice + "\n\n" +
				`{"type":"entity","name":"Cut` + "\n" +
				`["an","array"]` + "\n" +
				`{"type":"entity","name":42,"observations":["a number for a name"]}` + "\n" +
				`{"type":"entity","name":"  ","observations":["only spaces for a name"]}` + "\n" +
				`{"type":"relation","from":"Alice","relationType":"knows"}` + "\n" +
				`{"type":"relation","from":"Alice","to":"Bob"}` + "\n" +
				`{"type":"comment","text":"a comment"}` + "\n" +
				`{"text":"neither"}` + "\n" +
				`{"type":"entity","name":"Eve","observations":{"a":"b"}}`,
			wantItems: []Item{fact("Alice", "- Prefers tabs over spaces in Go code", "person")},
			wantSkips: []Skip{
				{"m.jsonl:3", "invalid JSON at column 29: unexpected end of JSON input"},
				{"m.jsonl:4", "not a JSON object"},
				{"m.jsonl:5", "name is a JSON number, not a string"},
				{"m.jsonl:6", "an entity without a name"},
				{"m.jsonl:7", "a relation without from or to"},
				{"m.jsonl:8", "a relation without a relationType"},
				{"m.jsonl:9", `type "comment" is neither an entity nor a relation`},
				{"m.jsonl:10", "neither an entity nor a relation"},
				{"m.jsonl:11", "observations is not a list"},
			},
		},
		{
			name:      "nested deeper than the limit",
			in:        alice + "\n" + `{"type":"entity","name":"Deep","observations":["ok"],"x":` + strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth) + "}",
			wantItems: []Item{fact("Alice", "- Prefers tabs over spaces in Go code", "person")},
			wantSkips: []Skip{{"m.jsonl:2", "nested 101 levels deep; at most 100 are read"}},
		},
		{
			name: "odd observations: one string, numbers, huge numbers, nulls, line breaks",
			in:   `{"type":"entity","name":"Limits","entityType":"config","observations":"Max upload size is 25 MB"}` + "\n" + `{"type":"entity","name":"Limits","observations":[1e400,null,"",true,"Retries: 3\nBackoff: 2s"]}`,
			wantItems: []Item{
				fact("Limits", "- Max upload size is 25 MB\n- 1e400\n- true\n- Retries: 3\n  Backoff: 2s", "config"),
			},
		},
		{
			name:      "invalid UTF-8 and control characters in strings",
			in:        "{\"type\":\"entity\",\"name\":\"Caf\xe9\\u0000 notes\",\"entityType\":\"place\",\"observations\":[\"Opens at 8 in the morning\xff\\u0007 on weekdays\"]}",
			wantItems: []Item{fact("Caf\uFFFD notes", "- Opens at 8 in the morning\uFFFD on weekdays", "place")},
		},
		{
			name: "names that would break links and titles",
			in: `{"type":"entity","name":"Team [core] | ops\nrota","entityType":"C# / .NET team","observations":["Meets on Tuesdays at ten"]}` + "\n" +
				`{"type":"relation","from":"Alice","to":"Team [core] | ops\nrota","relationType":"member of"}` + "\n" + alice,
			wantItems: []Item{
				{
					Title: "Team [core] | ops rota", Content: "- Meets on Tuesdays at ten\n\n## Relations\n\n- member of ← [[Alice]]",
					Tags: []string{"c-net-team"}, Type: memories.TypeFact, Source: "m.jsonl#Team [core] | ops rota", Kind: KindMCPMemory,
				},
				fact("Alice", "- Prefers tabs over spaces in Go code\n\n## Relations\n\n- member of → [[Team (core) / ops rota]]", "person"),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotItems, gotSkips := parseMCPMemory("m.jsonl", []byte(tt.in))
			if diff := cmp.Diff(tt.wantItems, gotItems, ignoreLinks); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSkips, gotSkips); diff != "" {
				t.Errorf("skips (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseMCPMemorySplitsALongEntity(t *testing.T) {
	var obs []string
	for i := range 400 {
		obs = append(obs, fmt.Sprintf("%q", fmt.Sprintf("Observation %d: a release note line long enough to count", i)))
	}
	in := `{"type":"entity","name":"Changelog","entityType":"log","observations":[` + strings.Join(obs, ",") + "]}"
	items, skips := parseMCPMemory("m.jsonl", []byte(in))
	checkItems(t, KindMCPMemory, items, skips)
	var got []string
	for _, it := range items {
		got = append(got, it.Title)
	}
	want := []string{"Changelog (1/3)", "Changelog (2/3)", "Changelog (3/3)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("titles (-want +got):\n%s", diff)
	}
	if len(skips) > 0 {
		t.Errorf("skips %v, want none", skips)
	}
}

func FuzzParseMCPMemory(f *testing.F) {
	fuzzSeeds(f, "mcp",
		"{\"type\":\"entity\",\"name\":\"A\",\"entityType\":\"x\",\"observations\":[\"a fairly long observation here\"]}\r\n{\"from\":\"A\",\"to\":\"A\",\"relationType\":\"r\"}",
		"{\"name\":\"\\u0000\",\"observations\":[1e999]}\n{\"type\":\"relation\"}",
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParser(t, KindMCPMemory, parseMCPMemory, data)
	})
}
