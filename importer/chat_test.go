package importer

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

func TestParseChatGolden(t *testing.T) {
	tests := []struct {
		fixture string
		parse   func(string, []byte) ([]Item, []Skip)
		kind    Kind
		golden  string
	}{
		{"chat/claude/conversations.json", parseClaudeExport, KindClaudeExport, "chat/claude"},
		{"chat/chatgpt/conversations.json", parseChatGPTExport, KindChatGPTExport, "chat/chatgpt"},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			items, skips := tt.parse(tt.fixture, fixtureBytes(t, tt.fixture))
			checkItems(t, tt.kind, items, skips)
			golden(t, tt.golden, renderItems(items, skips))
		})
	}
}

// chatNote is the item of a conversation of the export "c.json".
func chatNote(kind Kind, title, content string, created time.Time) Item {
	return Item{Title: title, Content: content, Type: memories.TypeNote, Created: created, Source: "c.json#" + title, Kind: kind}
}

const (
	question = "Which port does the staging database listen on?"
	answer   = "Port 5433, because 5432 is taken by the local one."
)

func TestParseClaudeExport(t *testing.T) {
	day := time.Date(2024, 4, 18, 14, 2, 11, 0, time.UTC)
	exchange := "#### You\n\n" + question + "\n\n#### Assistant\n\n" + answer
	msg := func(sender, text string) string {
		return fmt.Sprintf(`{"sender":%q,"text":%q,"content":[],"created_at":"2024-04-18T14:02:11Z"}`, sender, text)
	}
	conv := func(name string, msgs ...string) string {
		return fmt.Sprintf(`{"uuid":"u","name":%s,"created_at":"2024-04-18T14:02:11Z","chat_messages":[%s]}`, name, strings.Join(msgs, ","))
	}
	plain := conv(`"Ports"`, msg("human", question), msg("assistant", answer))
	tests := []struct {
		name      string
		in        string
		wantItems []Item
		wantSkips []Skip
	}{
		{name: "empty", in: "", wantSkips: []Skip{{"c.json", "empty"}}},
		{name: "white space only", in: "\n\t ", wantSkips: []Skip{{"c.json", "empty"}}},
		{name: "no conversations", in: "[]", wantSkips: []Skip{{"c.json", "no conversations"}}},
		{name: "an object", in: `{"chat_messages":[]}`, wantSkips: []Skip{{"c.json", "not an array of conversations"}}},
		{
			name:      "not JSON",
			in:        "[{]",
			wantSkips: []Skip{{"c.json", "invalid JSON at line 1, column 3: invalid character ']' looking for beginning of object key string"}},
		},
		{
			name:      "byte order mark and CRLF",
			in:        "\xef\xbb\xbf[\r\n" + plain + "\r\n]\r\n",
			wantItems: []Item{chatNote(KindClaudeExport, "Ports", exchange, day)},
		},
		{
			name:      "CRLF inside messages",
			in:        "[" + conv(`"Ports"`, msg("human", "Which port does the staging\r\ndatabase listen on?"), msg("assistant", answer)) + "]",
			wantItems: []Item{chatNote(KindClaudeExport, "Ports", "#### You\n\nWhich port does the staging\ndatabase listen on?\n\n#### Assistant\n\n"+answer, day)},
		},
		{
			name: "bad conversations are skipped, the others kept",
			in:   "[" + `"a string"` + "," + `[1]` + "," + plain + "," + `null` + "]",
			wantItems: []Item{
				chatNote(KindClaudeExport, "Ports", exchange, day),
			},
			wantSkips: []Skip{
				{"c.json#1", "not a JSON object but a string"},
				{"c.json#2", "not a JSON object but an array"},
				{"c.json#Untitled conversation", "no messages"},
			},
		},
		{
			name:      "nested deeper than the limit",
			in:        "[" + plain + `,{"name":"Deep","chat_messages":[],"x":` + strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth) + "}]",
			wantItems: []Item{chatNote(KindClaudeExport, "Ports", exchange, day)},
			wantSkips: []Skip{{"c.json#2", "nested 101 levels deep; at most 100 are read"}},
		},
		{
			name:      "nested deeper than the decoder goes keeps the conversations before",
			in:        "[" + plain + "," + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "]",
			wantItems: []Item{chatNote(KindClaudeExport, "Ports", exchange, day)},
			wantSkips: []Skip{{"c.json", "invalid JSON at line 1, column 10340: invalid character '[' exceeded max depth"}},
		},
		{
			name:      "fields of the wrong type are missing",
			in:        "[" + conv(`42`, msg("human", question), `{"sender":"assistant","text":7,"content":[{"type":"text","text":"`+answer+`"}]}`, `"not a message"`) + "]",
			wantItems: []Item{chatNote(KindClaudeExport, "Untitled conversation 2024-04-18", exchange, day)},
		},
		{
			name: "text parts win, other parts and senders are left out",
			in: "[" + conv(`"Ports"`,
				`{"sender":"human","text":"`+question+`","content":[{"type":"image","source":"x"}]}`,
				`{"sender":"assistant","text":"ignored when there are text parts","content":[{"type":"tool_use","name":"web_search","input":{"q":"port"}},{"type":"text","text":"`+answer+`"},{"type":"tool_result","content":[{"type":"text","text":"a result"}]},{"type":"text","text":"  "}]}`,
				msg("system", "You are a helpful assistant and this must not show."),
				msg("assistant", ""),
			) + "]",
			wantItems: []Item{chatNote(KindClaudeExport, "Ports", exchange, day)},
		},
		{
			name: "the first message's time when the conversation has none",
			in:   `[{"name":"Ports","chat_messages":[` + msg("human", question) + "," + msg("assistant", answer) + `]}]`,
			wantItems: []Item{
				chatNote(KindClaudeExport, "Ports", exchange, day),
			},
		},
		{
			name:      "invalid UTF-8 in strings",
			in:        "[" + conv("\"Po\xffrts\"", `{"sender":"human","text":"Which port does the staging database listen on`+"\xfe"+`?"}`, msg("assistant", answer)) + "]",
			wantItems: []Item{chatNote(KindClaudeExport, "Po\uFFFDrts", "#### You\n\nWhich port does the staging database listen on\uFFFD?\n\n#### Assistant\n\n"+answer, day)},
		},
		{
			name:      "a block after the name",
			in:        "[" + conv(`"Ports"`, msg("human", "```\nport: 5433\n```\nWhy this port on staging?"), msg("assistant", "1. Because 5432 is taken.\n2. Because the ops team said so.")) + "]",
			wantItems: []Item{chatNote(KindClaudeExport, "Ports", "#### You\n\n```\nport: 5433\n```\nWhy this port on staging?\n\n#### Assistant\n\n1. Because 5432 is taken.\n2. Because the ops team said so.", day)},
		},
		{
			name:      "too short",
			in:        "[" + conv(`"Hi"`, msg("human", "hi"), msg("assistant", "Hello! How can I help?")) + "]",
			wantSkips: []Skip{{"c.json#Hi", tooShort(18)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotItems, gotSkips := parseClaudeExport("c.json", []byte(tt.in))
			checkItems(t, KindClaudeExport, gotItems, gotSkips)
			if diff := cmp.Diff(tt.wantItems, gotItems); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSkips, gotSkips); diff != "" {
				t.Errorf("skips (-want +got):\n%s", diff)
			}
		})
	}
}

// gptNode is a node of a ChatGPT export's mapping.
type gptNode struct {
	ID       string   `json:"id"`
	Parent   *string  `json:"parent"`
	Children []string `json:"children"`
	Message  any      `json:"message"`
}

// gptMessage is a ChatGPT message of role with text parts.
func gptMessage(role string, created any, parts ...any) map[string]any {
	return map[string]any{
		"author":      map[string]any{"role": role},
		"create_time": created,
		"content":     map[string]any{"content_type": "text", "parts": parts},
		"recipient":   "all",
	}
}

// gptConversation is a ChatGPT conversation of messages in a chain from a
// root without a message; current is the last.
func gptConversation(title string, created any, messages ...map[string]any) map[string]any {
	mapping := map[string]gptNode{"root": {ID: "root"}}
	parent := "root"
	for i, m := range messages {
		id := fmt.Sprintf("m%d", i)
		p := parent
		mapping[id] = gptNode{ID: id, Parent: &p, Message: m}
		n := mapping[parent]
		n.Children = append(n.Children, id)
		mapping[parent] = n
		parent = id
	}
	return map[string]any{"title": title, "create_time": created, "mapping": mapping, "current_node": parent}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseChatGPTExport(t *testing.T) {
	created := time.Date(2024, 4, 25, 11, 12, 1, 123456000, time.UTC)
	exchange := "#### You\n\n" + question + "\n\n#### Assistant\n\n" + answer
	plain := func(title string, created any) map[string]any {
		return gptConversation(title, created, gptMessage("user", nil, question), gptMessage("assistant", nil, answer))
	}
	// A conversation whose first question was edited: the old branch hangs
	// from the same parent, and current_node ends the new one.
	edited := map[string]any{
		"title": "Ports", "create_time": 1714043521.123456, "current_node": "a2",
		"mapping": map[string]any{
			"root": map[string]any{"id": "root", "parent": nil, "children": []string{"q1", "q2"}},
			"q1":   map[string]any{"parent": "root", "children": []string{"a1"}, "message": gptMessage("user", 1, "Which port, old wording that must go?")},
			"a1":   map[string]any{"parent": "q1", "children": []string{}, "message": gptMessage("assistant", 2, "An answer to the old wording that must go.")},
			"q2":   map[string]any{"parent": "root", "children": []string{"a2"}, "message": gptMessage("user", 3, question)},
			"a2":   map[string]any{"parent": "q2", "children": []string{}, "message": gptMessage("assistant", 4, answer)},
		},
	}
	withoutCurrent := func(c map[string]any, current any) map[string]any {
		out := map[string]any{}
		for k, v := range c {
			out[k] = v
		}
		out["current_node"] = current
		return out
	}
	loop := map[string]any{
		"title": "Loop", "current_node": "a",
		"mapping": map[string]any{
			"a": map[string]any{"parent": "b", "message": gptMessage("assistant", nil, answer)},
			"b": map[string]any{"parent": "a", "message": gptMessage("user", nil, question)},
		},
	}
	odd := gptConversation("Odd parts", 1714043521.123456,
		map[string]any{"author": map[string]any{"role": "system"}, "content": map[string]any{"content_type": "text", "parts": []any{"You are a helpful assistant, not shown."}}},
		map[string]any{"author": map[string]any{"role": "user"}, "content": map[string]any{"content_type": "user_editable_context", "user_instructions": "Be brief."}},
		map[string]any{"author": map[string]any{"role": "user"}, "content": map[string]any{"content_type": "multimodal_text", "parts": []any{map[string]any{"content_type": "image_asset_pointer", "asset_pointer": "file-service://x"}, question}}},
		map[string]any{"author": map[string]any{"role": "assistant"}, "recipient": "python", "content": map[string]any{"content_type": "code", "text": "print(5433)"}},
		map[string]any{"author": map[string]any{"role": "tool"}, "content": map[string]any{"content_type": "execution_output", "text": "5433"}},
		map[string]any{"author": map[string]any{"role": "assistant"}, "metadata": map[string]any{"is_visually_hidden_from_conversation": true}, "content": map[string]any{"content_type": "text", "parts": []any{"A hidden message, not shown."}}},
		gptMessage("assistant", nil, 42, answer, nil),
	)
	tests := []struct {
		name      string
		in        string
		wantItems []Item
		wantSkips []Skip
	}{
		{name: "empty", in: "", wantSkips: []Skip{{"c.json", "empty"}}},
		{name: "byte order mark only", in: "\xef\xbb\xbf", wantSkips: []Skip{{"c.json", "empty"}}},
		{
			name:      "the branch shown last",
			in:        mustJSON(t, []any{edited}),
			wantItems: []Item{chatNote(KindChatGPTExport, "Ports", exchange, created)},
		},
		{
			name:      "without a current node, the latest child from the root",
			in:        mustJSON(t, []any{withoutCurrent(edited, nil), withoutCurrent(edited, "no-such-node")}),
			wantItems: []Item{chatNote(KindChatGPTExport, "Ports", exchange, created), chatNote(KindChatGPTExport, "Ports", exchange, created)},
		},
		{
			name:      "a loop of parents ends",
			in:        mustJSON(t, []any{loop}),
			wantItems: []Item{chatNote(KindChatGPTExport, "Loop", exchange, time.Time{})},
		},
		{
			name:      "system, hidden, tool and code messages and non-text parts are left out",
			in:        mustJSON(t, []any{odd}),
			wantItems: []Item{chatNote(KindChatGPTExport, "Odd parts", exchange, created)},
		},
		{
			name: "times: float seconds, RFC 3339, null, huge, a message's",
			in: mustJSON(t, []any{plain("float", 1714043521.123456), plain("text", "2024-04-25T11:12:01.123456Z"), plain("null", nil), plain("huge", json.Number("1e400"))}) +
				"\n",
			wantItems: []Item{
				chatNote(KindChatGPTExport, "float", exchange, created),
				chatNote(KindChatGPTExport, "text", exchange, created),
				chatNote(KindChatGPTExport, "null", exchange, time.Time{}),
				chatNote(KindChatGPTExport, "huge", exchange, time.Time{}),
			},
		},
		{
			name:      "untitled, dated by its first message",
			in:        mustJSON(t, []any{gptConversation("", nil, gptMessage("user", 1716200000.25, question), gptMessage("assistant", 1716200010.5, answer))}),
			wantItems: []Item{chatNote(KindChatGPTExport, "Untitled conversation 2024-05-20", exchange, time.Date(2024, 5, 20, 10, 13, 20, 250e6, time.UTC))},
		},
		{
			name:      "an assistant speaking first starts an exchange",
			in:        mustJSON(t, []any{gptConversation("Ports", nil, gptMessage("assistant", nil, "Hello, what do you need to know?"), gptMessage("user", nil, question), gptMessage("assistant", nil, answer))}),
			wantItems: []Item{chatNote(KindChatGPTExport, "Ports", "#### Assistant\n\nHello, what do you need to know?\n\n"+exchange, time.Time{})},
		},
		{
			name:      "a mapping of the wrong type",
			in:        `[{"title":"Broken","mapping":[1,2],"current_node":"x"}]`,
			wantSkips: []Skip{{"c.json#Broken", "no messages"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotItems, gotSkips := parseChatGPTExport("c.json", []byte(tt.in))
			checkItems(t, KindChatGPTExport, gotItems, gotSkips)
			if diff := cmp.Diff(tt.wantItems, gotItems); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSkips, gotSkips); diff != "" {
				t.Errorf("skips (-want +got):\n%s", diff)
			}
		})
	}
}

// longConversation is a ChatGPT export of one conversation of n exchanges
// of about 900 characters each.
func longConversation(t testing.TB, n int) (data string, exchanges []string) {
	var msgs []map[string]any
	for i := range n {
		q := fmt.Sprintf("Question %d: how should the worker handle a retry of job %d when the queue is full?", i+1, i+1)
		a := fmt.Sprintf("Answer %d: ", i+1) + strings.Repeat("Back off exponentially, keep the job id, and log the attempt. ", 13)
		a = strings.TrimSpace(a)
		msgs = append(msgs, gptMessage("user", nil, q), gptMessage("assistant", nil, a))
		exchanges = append(exchanges, "#### You\n\n"+q+"\n\n#### Assistant\n\n"+a)
	}
	return mustJSON(t, []any{gptConversation("Retry policy", 1714043521, msgs...)}), exchanges
}

func TestChatSplitsLongConversations(t *testing.T) {
	data, exchanges := longConversation(t, 40)
	items, skips := parseChatGPTExport("c.json", []byte(data))
	checkItems(t, KindChatGPTExport, items, skips)
	if len(skips) > 0 {
		t.Errorf("skips %v, want none", skips)
	}
	if len(items) < 3 {
		t.Fatalf("%d items, want the conversation split in at least 3", len(items))
	}
	var contents []string
	for i, it := range items {
		if want := fmt.Sprintf("Retry policy (%d/%d)", i+1, len(items)); it.Title != want {
			t.Errorf("item %d: title %q, want %q", i, it.Title, want)
		}
		if want := fmt.Sprintf("c.json#Retry policy (%d/%d)", i+1, len(items)); it.Source != want {
			t.Errorf("item %d: source %q, want %q", i, it.Source, want)
		}
		if !strings.HasPrefix(it.Content, "#### You\n\nQuestion") {
			t.Errorf("item %d starts with %.40q, want the start of an exchange", i, it.Content)
		}
		contents = append(contents, it.Content)
	}
	// Cut only between exchanges: the items, put back together, are the
	// whole conversation.
	if diff := cmp.Diff(strings.Join(exchanges, "\n\n"), strings.Join(contents, "\n\n")); diff != "" {
		t.Errorf("items put together (-want +got):\n%s", diff)
	}
}

func TestChatCutsAnExchangeTooLongAlone(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("The migration copies rows in batches and checks each one. ", 400))
	data := mustJSON(t, []any{gptConversation("Migration", nil,
		gptMessage("user", nil, question), gptMessage("assistant", nil, answer),
		gptMessage("user", nil, "Explain the whole migration in detail."), gptMessage("assistant", nil, long),
	)})
	items, skips := parseChatGPTExport("c.json", []byte(data))
	checkItems(t, KindChatGPTExport, items, skips)
	var got []string
	for _, it := range items {
		got = append(got, fmt.Sprintf("%s: %d characters, %.30q", it.Title, utf8.RuneCountInString(it.Content), it.Content))
	}
	want := []string{
		`Migration (1/4): 125 characters, "#### You\n\nWhich port does the "`,
		`Migration (2/4): 9997 characters, "#### You\n\nExplain the whole mi"`,
		`Migration (3/4): 9998 characters, "copies rows in batches and che"`,
		`Migration (4/4): 3268 characters, "and checks each one. The migra"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

func FuzzParseClaudeExport(f *testing.F) {
	fuzzSeeds(f, "chat/claude",
		`[{"name":"x","chat_messages":[{"sender":"human","text":"a question long enough to keep"},{"sender":"assistant","content":[{"type":"text","text":"`+"```"+`"},{"type":"tool_use"}]}]}]`,
		`[null,1,"s",{"chat_messages":{}}]`,
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParser(t, KindClaudeExport, parseClaudeExport, data)
	})
}

func FuzzParseChatGPTExport(f *testing.F) {
	fuzzSeeds(f, "chat/chatgpt",
		`[{"title":"t","create_time":1e400,"mapping":{"a":{"parent":"a","children":["a"],"message":{"author":{"role":"user"},"content":{"content_type":"text","parts":["a question long enough to keep",{}]}}}}}]`,
		`[{"mapping":{"r":{"children":["x","r"]},"x":{"parent":"r","message":null}}}]`,
	)
	data, _ := longConversation(f, 15)
	f.Add([]byte(data))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParser(t, KindChatGPTExport, parseChatGPTExport, data)
	})
}
