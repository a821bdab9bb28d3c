package zed

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// Conversations reads Zed's text conversations (*.zed.json): one JSON
// document, rewritten whole, framed as one record. Source and Discover are
// the threads adapter's.
type Conversations struct{}

var (
	_ transcript.Adapter = (*Conversations)(nil)
	_ transcript.Framer  = (*Conversations)(nil)
)

// NewConversations returns the adapter of Zed's text conversations.
func NewConversations() *Conversations { return &Conversations{} }

// Source is Zed.
func (c *Conversations) Source() transcript.SourceKind { return transcript.Zed }

// Discover lists Zed's files, as the threads adapter does.
func (c *Conversations) Discover(env transcript.Env) transcript.Discovery { return New().Discover(env) }

// Fingerprint names a conversation document's schema: SchemaConversation
// when it has Zed's marker ("zed": "context" or "conversation") and text.
func (c *Conversations) Fingerprint(rec transcript.Record) transcript.Variant {
	v := transcript.Variant{Source: transcript.Zed}
	if !rawjson.IsObject(rec.Data) || !rawjson.Valid(rec.Data) {
		return v
	}
	m := rawjson.AsObject(rec.Data)
	if z := rawjson.AsString(m.Get("zed")); (z == "context" || z == "conversation") && rawjson.IsString(m.Get("text")) {
		v.Schema, v.ToolVersion = SchemaConversation, ""
	}
	return v
}

// Frame returns the whole document as one record once it is complete (its
// closing brace there), or at the end whatever there is.
func (c *Conversations) Frame(data []byte, atEOF bool) ([]transcript.Record, int) {
	start := rawjson.SkipSpace(data, 0)
	if start == len(data) {
		return nil, len(data)
	}
	end := -1
	if data[start] == '{' {
		end = rawjson.SkipValue(data, start)
	}
	if end < 0 {
		if !atEOF {
			return nil, 0
		}
		end = len(data)
	}
	body := trimRight(data[start:end])
	if rest := rawjson.SkipSpace(data, end); rest < len(data) {
		// Something after the document: one record with it.
		if !atEOF {
			return nil, 0
		}
		body = trimRight(data[start:])
	}
	return []transcript.Record{{Offset: int64(start), Data: body}}, len(data)
}

func trimRight(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// convMessage is a message of a conversation: where it starts in the text,
// its role and id.
type convMessage struct {
	start int
	role  string
	id    string
}

// Parse turns a conversation document into events: its start, then one
// event per message (its text the slice of the document's text from its
// start to the next message's).
func (c *Conversations) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	m, bad := transcript.RecordObject(ctx, rec)
	if bad != nil {
		return bad
	}
	z := rawjson.AsString(m.Get("zed"))
	text, ok := rawjson.String(m.Get("text"))
	if z != "context" && z != "conversation" || !ok {
		return []transcript.Event{transcript.UnknownEvent(ctx, rec, "", transcript.ReasonUnrecognized)}
	}
	id := cmp.Or(rawjson.AsString(m.Get("id")), transcript.HashID(rec.Data))
	ctx.SetSession(id)
	var out []transcript.Event
	start := ctx.NewEvent(rec, transcript.KindSessionStart, id+"#start")
	start.SessionStart = &transcript.SessionStart{Model: rawjson.AsString(rawjson.AsObject(m.Get("model")).Get("model"))}
	if title := rawjson.Value(m.Get("summary")); title != nil {
		start.Extra = map[string]json.RawMessage{"title": title}
	}
	out = append(out, start)
	msgs := conversationMessages(m)
	for i, cm := range msgs {
		end := len(text)
		if i+1 < len(msgs) {
			end = msgs[i+1].start
		}
		body := ""
		if cm.start >= 0 && cm.start <= end && end <= len(text) {
			body = strings.TrimRight(text[cm.start:end], "\n")
		}
		eid := id + "#" + cmp.Or(cm.id, strconv.Itoa(i))
		var e transcript.Event
		switch cm.role {
		case "assistant":
			e = ctx.NewEvent(rec, transcript.KindAssistantTurn, eid)
			e.AssistantTurn = &transcript.AssistantTurn{Text: body}
		default:
			e = ctx.NewEvent(rec, transcript.KindUserTurn, eid)
			e.UserTurn = &transcript.UserTurn{Text: body}
			if cm.role != "user" {
				e.UserTurn.Meta = transcript.MetaInjected
			}
		}
		out = append(out, e)
	}
	return out
}

// conversationMessages reads the messages, sorted by where they start:
// {id: {replica_id, value}, start, metadata: {role}} (0.4.0), or {id: n,
// start} with the roles in message_metadata (before).
func conversationMessages(m rawjson.Object) []convMessage {
	meta := rawjson.AsObject(m.Get("message_metadata"))
	var out []convMessage
	for _, raw := range rawjson.AsArray(m.Get("messages")) {
		o := rawjson.AsObject(raw)
		cm := convMessage{start: int(rawjson.Int(o.Get("start")))}
		idv := o.Get("id")
		if rawjson.IsNumber(idv) {
			cm.id = string(idv)
			cm.role = rawjson.AsString(rawjson.AsObject(meta.Get(cm.id)).Get("role"))
		} else {
			io := rawjson.AsObject(idv)
			cm.id = string(io.Get("replica_id")) + "." + string(io.Get("value"))
			cm.role = rawjson.AsString(rawjson.AsObject(o.Get("metadata")).Get("role"))
		}
		out = append(out, cm)
	}
	slices.SortStableFunc(out, func(a, b convMessage) int { return a.start - b.start })
	return out
}
