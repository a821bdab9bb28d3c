package importer

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestSniffJSONFixtures(t *testing.T) {
	tests := []struct {
		fixture string
		want    Kind
	}{
		{"mcp/memory.jsonl", KindMCPMemory},
		{"json/note.json", KindJSON},
		{"json/notes.json", KindJSON},
		{"json/short.json", KindJSON},
		{"json/invalid.json", ""},
		{"chat/claude/conversations.json", KindClaudeExport},
		{"chat/chatgpt/conversations.json", KindChatGPTExport},
		{"text/note.txt", ""},
		{"text/french.txt", ""},
		{"text/japanese.txt", ""},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			if got := sniffJSON(fixtureBytes(t, tt.fixture)); got != tt.want {
				t.Errorf("sniffJSON = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSniffJSON(t *testing.T) {
	entity := `{"type":"entity","name":"Alice","entityType":"person","observations":["Likes tea"]}`
	tests := []struct {
		name string
		in   string
		want Kind
	}{
		{"empty", "", ""},
		{"white space", " \r\n\t", ""},
		{"byte order mark only", "\xef\xbb\xbf", ""},
		{"text", "Meeting notes\nWe agreed on Postgres.", ""},
		{"text starting with a bracket", "[2024-05-01] Deployed the billing worker.", ""},
		{"text starting with a brace", "{draft} Ideas for the offsite", ""},
		{"a JSON string", `"just a string"`, ""},
		{"a JSON number", `42`, ""},
		{"an object", `{"title":"x"}`, KindJSON},
		{"an array", `[1,2,3]`, KindJSON},
		{"an empty array", `[]`, KindJSON},
		{"byte order mark and CRLF", "\xef\xbb\xbf\r\n{\r\n\"a\": 1\r\n}\r\n", KindJSON},
		{"invalid JSON", `{"title":}`, ""},
		{"two objects", `{"a":1} {"b":2}`, ""},
		{"JSON Lines of other records", `{"type":"user","text":"hi"}` + "\n" + `{"type":"assistant","text":"hello"}`, ""},
		{"an MCP graph", entity + "\n" + `{"type":"relation","from":"Alice","to":"Bob","relationType":"knows"}` + "\n", KindMCPMemory},
		{"an MCP graph of one entity", entity, KindMCPMemory},
		{"an MCP graph with CRLF and a byte order mark", "\xef\xbb\xbf\r\n" + entity + "\r\n" + entity + "\r\n", KindMCPMemory},
		{"an MCP relation first", `{"type":"relation","from":"Alice","to":"Bob","relationType":"knows"}`, KindMCPMemory},
		{"an MCP entity without a type", `{"name":"Alice","entityType":"person","observations":[]}` + "\n" + entity, KindMCPMemory},
		{"an MCP relation without a type", `{"from":"Alice","to":"Bob","relationType":"knows"}`, KindMCPMemory},
		{"an object with another type", `{"type":"note","name":"Alice","entityType":"person","observations":[]}`, KindJSON},
		{"an MCP graph with a bad line later", entity + "\n{oops\n", KindMCPMemory},
		{"a pretty-printed entity", "{\n  \"type\": \"entity\",\n  \"name\": \"Alice\"\n}", KindJSON},
		{"a Claude.ai export", `[{"uuid":"u","name":"n","chat_messages":[]}]`, KindClaudeExport},
		{"a ChatGPT export", `[{"title":"t","create_time":1.5,"mapping":{}}]`, KindChatGPTExport},
		{"an export key after nested values", `[{"account":{"a":[1,{"b":2}]},"chat_messages":[{}]}]`, KindClaudeExport},
		{"an export key of the wrong type", `[{"mapping":"not an object"}]`, KindJSON},
		{"an export key in a later element", `[{"title":"t"},{"mapping":{}}]`, KindJSON},
		{"an export key nested deeper", `[{"conversation":{"mapping":{}}}]`, KindJSON},
		{"an array of arrays", `[[{"mapping":{}}]]`, KindJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sniffJSON([]byte(tt.in)); got != tt.want {
				t.Errorf("sniffJSON(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestSniffJSONReadsAPrefix checks that large files are known by their start:
// a broken tail far away does not change the answer.
func TestSniffJSONReadsAPrefix(t *testing.T) {
	var conv bytes.Buffer
	conv.WriteString(`{"title":"t","create_time":1714043521.5,"mapping":{`)
	for i := range 2000 {
		if i > 0 {
			conv.WriteByte(',')
		}
		conv.WriteString(`"n`)
		conv.WriteString(strings.Repeat("x", i%7))
		conv.WriteString(`":{"message":{"content":{"parts":["` + strings.Repeat("some words ", 40) + `"]}}}`)
	}
	conv.WriteString(`}}`)
	element := conv.String()
	big := func(head string, n int) []byte {
		var b bytes.Buffer
		b.WriteString(head)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(element)
		}
		b.WriteString(",{broken")
		return b.Bytes()
	}
	tests := []struct {
		name string
		in   []byte
		want Kind
	}{
		{"a ChatGPT export broken at the end", big("[", 4), KindChatGPTExport},
		{"a large array broken at the end", big(`[{"title":"a plain element first"},`, 4), KindJSON},
		{"a large array broken early", append([]byte(`[{"a":1},{oops`), big(",", 4)...), ""},
		{"a large object followed by more", append([]byte(`{"a":1}`+"\n"+`{"b":2}`), bytes.Repeat([]byte(" "), sniffWhole)...), ""},
		{"a large object followed by white space", append([]byte(`{"a":1}`), bytes.Repeat([]byte(" \n"), sniffWhole)...), KindJSON},
		{"a large MCP graph", bytes.Repeat([]byte(`{"type":"entity","name":"A","entityType":"t","observations":["x"]}`+"\n"), 40000), KindMCPMemory},
		{"a first line too long to read is a large JSON value", append([]byte(`{"type":"entity","name":"`), bytes.Repeat([]byte("a"), sniffLine+10)...), KindJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sniffJSON(tt.in); got != tt.want {
				t.Errorf("sniffJSON(%d bytes) = %q, want %q", len(tt.in), got, tt.want)
			}
		})
	}
}

func FuzzSniffJSON(f *testing.F) {
	for _, dir := range []string{"mcp", "json", "chat/claude", "chat/chatgpt", "text"} {
		fuzzSeeds(f, dir)
	}
	f.Add([]byte(`[{"a":{"b":[1,2]},"chat_messages":[]}]`))
	f.Add([]byte(`{"name":"n","entityType":"t","observations":[]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := sniffJSON(data)
		if again := sniffJSON(data); again != got {
			t.Errorf("sniffJSON(%q) = %q, then %q", data, got, again)
		}
		trimmed := bytes.TrimLeft(stripBOM(data), " \t\r\n")
		valid := json.Valid(trimmed) && len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[')
		switch got {
		case "":
			if valid {
				t.Errorf("sniffJSON(%q) = \"\", want a kind: it is a JSON object or array", data)
			}
		case KindJSON:
			if !valid {
				t.Errorf("sniffJSON(%q) = %q, but it is not a JSON object or array", data, got)
			}
		case KindClaudeExport, KindChatGPTExport:
			if trimmed[0] != '[' {
				t.Errorf("sniffJSON(%q) = %q, but it is not an array", data, got)
			}
		case KindMCPMemory:
			if trimmed[0] != '{' {
				t.Errorf("sniffJSON(%q) = %q, but it does not start with an object", data, got)
			}
		default:
			t.Errorf("sniffJSON(%q) = %q, not a JSON kind", data, got)
		}
	})
}
