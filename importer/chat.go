package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cortexmem/cortex/memories"
)

// A conversation as the chat parsers read it, before it becomes items.
type conversation struct {
	title    string
	created  time.Time
	messages []chatMessage
}

type chatMessage struct {
	user bool // else the assistant
	text string
}

// parseClaudeExport reads the conversations.json of a Claude.ai data export:
// one memory a conversation, several for one longer than a memory may be.
func parseClaudeExport(path string, data []byte) ([]Item, []Skip) {
	return parseExport(path, data, KindClaudeExport, readClaudeConversation)
}

// parseChatGPTExport reads the conversations.json of a ChatGPT data export:
// one memory a conversation as it was last shown (the branches left by
// edited or regenerated messages are left out), several for one longer than
// a memory may be.
func parseChatGPTExport(path string, data []byte) ([]Item, []Skip) {
	return parseExport(path, data, KindChatGPTExport, readChatGPTConversation)
}

// parseExport reads an array of conversations with read, which says why a
// conversation cannot be read ("" when it can). An array broken halfway
// gives the conversations before the break.
func parseExport(path string, data []byte, kind Kind, read func(json.RawMessage) (conversation, string)) ([]Item, []Skip) {
	data = stripBOM(data)
	switch firstByte(data) {
	case 0:
		return nil, []Skip{{Source: path, Reason: "empty"}}
	case '[':
	default:
		if json.Valid(data) {
			return nil, []Skip{{Source: path, Reason: "not an array of conversations"}}
		}
		var v any
		return nil, []Skip{{Source: path, Reason: jsonReason(data, json.Unmarshal(data, &v))}}
	}
	elems, bad := jsonArray(data)
	var items []Item
	var skips []Skip
	for i, raw := range elems {
		c, why := conversation{}, ""
		if d := depth(raw); d > maxJSONDepth {
			why = fmt.Sprintf("nested %d levels deep; at most %d are read", d, maxJSONDepth)
		} else {
			c, why = read(raw)
		}
		if why != "" {
			skips = append(skips, Skip{Source: fmt.Sprintf("%s#%d", path, i+1), Reason: why})
			continue
		}
		is, ss := chatItems(path, kind, c)
		items = append(items, is...)
		skips = append(skips, ss...)
	}
	if bad != "" {
		skips = append(skips, Skip{Source: path, Reason: bad})
	} else if len(elems) == 0 {
		skips = append(skips, Skip{Source: path, Reason: "no conversations"})
	}
	return items, skips
}

// chatItems makes the items of a conversation: its exchanges (a message of
// the user and the replies after it) under "#### You" and "#### Assistant"
// headings, in one item or, when too long, in items of whole exchanges
// titled "title (2/3)". An exchange longer than an item may be is cut with
// Pieces.
func chatItems(path string, kind Kind, c conversation) ([]Item, []Skip) {
	title := titleOf(c.title, titleMax)
	if title == "" {
		title = "Untitled conversation"
		if !c.created.IsZero() {
			title += " " + c.created.Format("2006-01-02")
		}
	}
	source := path + "#" + title
	var exchanges, cur []string
	n := 0
	for _, m := range c.messages {
		text := cleanText(m.text)
		if text == "" {
			continue
		}
		n += meaningful(text)
		if m.user && len(cur) > 0 {
			exchanges = append(exchanges, strings.Join(cur, "\n\n"))
			cur = nil
		}
		cur = append(cur, said(m.user, text))
	}
	if len(cur) > 0 {
		exchanges = append(exchanges, strings.Join(cur, "\n\n"))
	}
	if len(exchanges) == 0 {
		return nil, []Skip{{Source: source, Reason: "no messages"}}
	}
	if n < MinSectionChars {
		return nil, []Skip{{Source: source, Reason: tooShort(n)}}
	}
	var skips []Skip
	parts := chunks(exchanges, memories.MaxContentChars)
	kept := parts[:0]
	for i, p := range parts {
		if m := meaningful(p); m < MinSectionChars {
			skips = append(skips, Skip{Source: fmt.Sprintf("%s (part %d)", source, i+1), Reason: tooShort(m)})
			continue
		}
		kept = append(kept, p)
	}
	items := make([]Item, 0, len(kept))
	for i, p := range kept {
		it := Item{Title: title, Content: p, Type: memories.TypeNote, Created: c.created, Source: source, Kind: kind}
		if len(kept) > 1 {
			it.Title = fmt.Sprintf("%s (%d/%d)", title, i+1, len(kept))
			it.Source = fmt.Sprintf("%s (%d/%d)", source, i+1, len(kept))
		}
		items = append(items, it)
	}
	return items, skips
}

// said is a message under a small heading naming who said it: "#### You",
// "#### Assistant". A heading rather than "Assistant: …" at a line start,
// which is what a forged transcript turn looks like, and which the security
// scan refuses in a memory.
func said(user bool, text string) string {
	who := "#### Assistant"
	if user {
		who = "#### You"
	}
	return who + "\n\n" + text
}

// chunks joins exchanges into texts of at most max characters, cutting only
// between exchanges but for an exchange longer than max.
func chunks(exchanges []string, max int) []string {
	var out []string
	var cur strings.Builder
	size := 0
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
			size = 0
		}
	}
	for _, ex := range exchanges {
		n := utf8.RuneCountInString(ex)
		if n > max {
			flush()
			out = append(out, Pieces(ex, max)...)
			continue
		}
		if size > 0 && size+2+n > max {
			flush()
		}
		if size > 0 {
			cur.WriteString("\n\n")
			size += 2
		}
		cur.WriteString(ex)
		size += n
	}
	flush()
	return out
}

// The parts of a Claude.ai export that are read.
type (
	claudeConversation struct {
		Name         string            `json:"name"`
		CreatedAt    string            `json:"created_at"`
		ChatMessages []json.RawMessage `json:"chat_messages"`
	}
	claudeMessage struct {
		Sender    string            `json:"sender"`
		Text      string            `json:"text"`
		Content   []json.RawMessage `json:"content"`
		CreatedAt string            `json:"created_at"`
	}
	claudePart struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
)

// readClaudeConversation reads one conversation of a Claude.ai export. A
// message's text is its text parts (tool use and results are left out), or
// its "text" when it has none. A field of the wrong type is read as missing.
func readClaudeConversation(raw json.RawMessage) (conversation, string) {
	var cv claudeConversation
	if why := decodeLenient(raw, &cv); why != "" {
		return conversation{}, why
	}
	c := conversation{title: cv.Name, created: timeOf(cv.CreatedAt)}
	for _, mraw := range cv.ChatMessages {
		var m claudeMessage
		if decodeLenient(mraw, &m) != "" {
			continue
		}
		var texts []string
		for _, praw := range m.Content {
			var p claudePart
			if decodeLenient(praw, &p) == "" && p.Type == "text" && strings.TrimSpace(p.Text) != "" {
				texts = append(texts, p.Text)
			}
		}
		text := strings.Join(texts, "\n\n")
		if len(texts) == 0 {
			text = m.Text
		}
		if m.Sender != "human" && m.Sender != "assistant" {
			continue
		}
		c.messages = append(c.messages, chatMessage{user: m.Sender == "human", text: text})
		if c.created.IsZero() {
			c.created = timeOf(m.CreatedAt)
		}
	}
	return c, ""
}

// The parts of a ChatGPT export that are read.
type (
	chatGPTConversation struct {
		Title       string                     `json:"title"`
		CreateTime  flexTime                   `json:"create_time"`
		Mapping     map[string]json.RawMessage `json:"mapping"`
		CurrentNode string                     `json:"current_node"`
	}
	chatGPTNode struct {
		Parent   string          `json:"parent"`
		Children []string        `json:"children"`
		Message  *chatGPTMessage `json:"message"`
	}
	chatGPTMessage struct {
		Author struct {
			Role string `json:"role"`
		} `json:"author"`
		Content struct {
			ContentType string            `json:"content_type"`
			Parts       []json.RawMessage `json:"parts"`
		} `json:"content"`
		CreateTime flexTime `json:"create_time"`
		Recipient  string   `json:"recipient"`
		Metadata   struct {
			Hidden bool `json:"is_visually_hidden_from_conversation"`
		} `json:"metadata"`
	}
)

// readChatGPTConversation reads one conversation of a ChatGPT export: the
// path from its current node back to the root, which is the conversation as
// it was last shown, keeping the user's and the assistant's text (system and
// tool messages, hidden context, code and images are left out).
func readChatGPTConversation(raw json.RawMessage) (conversation, string) {
	var cv chatGPTConversation
	if why := decodeLenient(raw, &cv); why != "" {
		return conversation{}, why
	}
	c := conversation{title: cv.Title, created: cv.CreateTime.Time}
	for _, n := range chatGPTPath(cv.Mapping, cv.CurrentNode) {
		m := n.Message
		if m == nil || m.Metadata.Hidden || m.Recipient != "" && m.Recipient != "all" {
			continue
		}
		if role := m.Author.Role; role != "user" && role != "assistant" {
			continue
		}
		if ct := m.Content.ContentType; ct != "text" && ct != "multimodal_text" {
			continue
		}
		var texts []string
		for _, p := range m.Content.Parts {
			var s string
			if json.Unmarshal(p, &s) == nil && strings.TrimSpace(s) != "" {
				texts = append(texts, s)
			}
		}
		c.messages = append(c.messages, chatMessage{user: m.Author.Role == "user", text: strings.Join(texts, "\n\n")})
		if c.created.IsZero() {
			c.created = m.CreateTime.Time
		}
	}
	return c, ""
}

// chatGPTPath is the nodes from the root of mapping to current. Without a
// current node (older exports), it follows the latest child from the root,
// which is what ChatGPT shows. Loops in a damaged file end the walk.
func chatGPTPath(mapping map[string]json.RawMessage, current string) []chatGPTNode {
	node := func(id string) (chatGPTNode, bool) {
		var n chatGPTNode
		raw, ok := mapping[id]
		if !ok || decodeLenient(raw, &n) != "" {
			return n, false
		}
		return n, true
	}
	if _, ok := mapping[current]; !ok {
		current = chatGPTLeaf(mapping, node)
	}
	var path []chatGPTNode
	seen := map[string]bool{}
	for id := current; id != "" && !seen[id]; {
		seen[id] = true
		n, ok := node(id)
		if !ok {
			break
		}
		path = append(path, n)
		id = n.Parent
	}
	slices.Reverse(path)
	return path
}

// chatGPTLeaf is the node reached from the first root (in sorted order of
// ids, for determinism) by following the latest child.
func chatGPTLeaf(mapping map[string]json.RawMessage, node func(string) (chatGPTNode, bool)) string {
	ids := make([]string, 0, len(mapping))
	for id := range mapping {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	id := ""
	for _, c := range ids {
		if n, ok := node(c); ok {
			if _, hasParent := mapping[n.Parent]; !hasParent || n.Parent == c {
				id = c
				break
			}
		}
	}
	seen := map[string]bool{}
	for id != "" && !seen[id] {
		seen[id] = true
		n, _ := node(id)
		next := ""
		for i := len(n.Children) - 1; i >= 0; i-- {
			if _, ok := mapping[n.Children[i]]; ok && !seen[n.Children[i]] {
				next = n.Children[i]
				break
			}
		}
		if next == "" {
			return id
		}
		id = next
	}
	return id
}

// decodeLenient decodes the JSON object raw into v, reading a field of the
// wrong type as missing. It says why raw cannot be read: it is not an object.
func decodeLenient(raw json.RawMessage, v any) string {
	err := json.Unmarshal(raw, v)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &te) && te.Field != "":
		return ""
	case errors.As(err, &te):
		return "not a JSON object but " + jsonKind(raw)
	}
	return jsonReason(raw, err)
}

// jsonKind names the kind of the JSON value raw.
func jsonKind(raw []byte) string {
	switch firstByte(raw) {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '{':
		return "an object"
	}
	return "a number"
}

// flexTime is a time written as Unix seconds (a float, in ChatGPT exports),
// as RFC 3339 text, or as null; anything else is no time.
type flexTime struct{ time.Time }

func (t *flexTime) UnmarshalJSON(b []byte) error {
	if c := firstByte(b); c == '{' || c == '[' {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) == nil {
		t.Time = timeOf(v)
	}
	return nil
}
