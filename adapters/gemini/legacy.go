package gemini

import (
	"bytes"
	"strconv"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// Legacy reads the chat files of Gemini CLI 0.38 and before: one JSON
// document, ConversationRecord {sessionId, projectHash, startTime,
// lastUpdated, messages: [...], summary?, kind?, directories?}, rewritten
// whole (pretty-printed) after every change, as session-<time>-<id8>.json.
// It implements transcript.Framer, so a record is one message, not one line:
//
//   - the document's head, from its "{" to the "[" that opens messages
//     (the members before the messages) → session_start, or unknown
//     (unmapped) when it names no session;
//   - each element of messages → what the same message gives in a JSONL
//     file, its events pointing at /messages/<i>;
//   - the members after the messages, when there are any (a summary;
//     files not written by the CLI put sessionId there) → session_start
//     when the head had none, else unknown (unmapped).
//
// Anything else (a document without messages, JSON of other shapes, text)
// is a record of its own, parsed as a JSONL line would be. Records' offsets
// are exact, so a read resumed from any record boundary gives the events of
// a whole read; but the CLI rewrites the file in place, so a position saved
// against one version of it is not valid for the next: read a changed
// legacy file from the start. Records carry no line number (the reader
// does not shift framed records' lines when it resumes); the pointer
// locates them.
//
// Source, Discover and Fingerprint are the JSONL adapter's.
type Legacy struct {
	Adapter
}

var (
	_ transcript.Adapter = (*Legacy)(nil)
	_ transcript.Framer  = (*Legacy)(nil)
)

// NewLegacy returns the adapter of Gemini CLI's legacy .json chat files.
func NewLegacy() *Legacy { return &Legacy{} }

// Fingerprint names a legacy record's schema: SchemaJSON for a document's
// head, its messages and its last members, and for a whole document; empty
// for records that are not Gemini CLI's.
func (l *Legacy) Fingerprint(rec transcript.Record) transcript.Variant {
	head, isHead := legacyHead(rec.Data)
	tail, isTail := legacyTail(rec.Data)
	if isHead || isTail {
		m := append(head, tail...)
		v := transcript.Variant{Source: transcript.GeminiCLI}
		if isHeader(m) || isMetadata(m) || isHead && len(m) == 0 {
			v.Schema = SchemaJSON
		}
		return v
	}
	return fingerprint(rec.Data, SchemaJSON, true)
}

// Parse turns one record of a legacy document into events.
func (l *Legacy) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	st := transcript.StateOf[state](ctx)
	data := rec.Data
	switch {
	case len(data) > 0 && data[0] == '{' && data[len(data)-1] == '[' && !rawjson.Valid(data):
		m, ok := legacyHead(data)
		if ok {
			st.InArray, st.Base, st.Next = true, "/messages/", 0
		}
		p := &parser{ctx: ctx, st: st, rec: rec}
		switch {
		case !ok:
			p.unknownRaw("", transcript.ReasonMalformed, false)
		case rawjson.IsString(m.Get("sessionId")):
			p.header(m, []string{"messages"})
		default:
			p.unknownRaw("metadata", transcript.ReasonUnmapped, false)
		}
		if len(p.extra) > 0 {
			p.out[0].Extra = p.extra
		}
		return p.out
	case string(data) == "[":
		st.InArray, st.Base, st.Next = true, "/", 0
		p := &parser{ctx: ctx, st: st, rec: rec}
		p.unknownRaw("array", transcript.ReasonUnrecognized, false)
		return p.out
	case len(data) > 0 && data[0] == ']':
		st.InArray = false
		m, ok := legacyTail(data)
		p := &parser{ctx: ctx, st: st, rec: rec}
		switch {
		case !ok:
			p.unknownRaw("", transcript.ReasonMalformed, false)
		case rawjson.IsString(m.Get("sessionId")) && !st.Sessions[rawjson.AsString(m.Get("sessionId"))] && ctx.Session() == "":
			p.header(m, []string{})
			if len(p.extra) > 0 {
				p.out[0].Extra = p.extra
			}
		default:
			p.ctx.SetSession(rawjson.AsString(m.Get("sessionId")))
			p.unknownRaw("metadata", transcript.ReasonUnmapped, false)
		}
		return p.out
	}
	pointer := ""
	if st.InArray {
		pointer = st.Base + strconv.Itoa(st.Next)
		st.Next++
	}
	return parseRecord(rec, ctx, pointer)
}

// legacyHead reads a document's head (`{…, "messages": [`) as the object
// of its members, the messages left out.
func legacyHead(data []byte) (rawjson.Object, bool) {
	if len(data) < 2 || data[0] != '{' || data[len(data)-1] != '[' {
		return nil, false
	}
	doc := make([]byte, 0, len(data)+2)
	doc = append(append(doc, data...), ']', '}')
	if !rawjson.Valid(doc) {
		return nil, false
	}
	m, ok := rawjson.ParseObject(doc)
	if !ok || len(m) == 0 || m[len(m)-1].KeyString() != "messages" {
		return nil, false
	}
	return m[:len(m)-1], true
}

// legacyTail reads a document's end (`], "summary": …}`) as the object of
// its members.
func legacyTail(data []byte) (rawjson.Object, bool) {
	if len(data) < 2 || data[0] != ']' || data[len(data)-1] != '}' {
		return nil, false
	}
	rest := data[rawjson.SkipSpace(data, 1):]
	if len(rest) > 0 && rest[0] == ',' {
		rest = rest[1:]
	}
	doc := make([]byte, 0, len(rest)+1)
	doc = append(append(doc, '{'), rest...)
	if !rawjson.Valid(doc) {
		return nil, false
	}
	m, ok := rawjson.ParseObject(doc)
	return m, ok
}

// Frame splits a legacy document into records: its head, each message, and
// its last members (see Legacy). It needs no state: a record boundary is a
// place where framing can start afresh, which is what lets a read resume
// there. Without atEOF a record still incomplete at the end of data is left
// for later (a message is complete once its closing brace is there).
func (l *Legacy) Frame(data []byte, atEOF bool) ([]transcript.Record, int) {
	var recs []transcript.Record
	pos := rawjson.SkipSpace(data, 0)
	consumed := pos
	for pos < len(data) {
		start, end, record := pos, -1, true
		switch data[pos] {
		case ',':
			pos = rawjson.SkipSpace(data, pos+1)
			consumed = pos
			continue
		case '{':
			end = objectOrHead(data, pos)
		case '[':
			end = pos + 1
		case ']':
			end, record = tailEnd(data, pos)
		case '"':
			end = rawjson.SkipString(data, pos)
		default:
			if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
				end = pos + i
			}
		}
		if end < 0 {
			if !atEOF {
				break
			}
			end = len(data)
		}
		if record {
			body := bytes.TrimRight(data[start:end], " \t\r\n")
			recs = append(recs, transcript.Record{Offset: int64(start), Data: body})
		}
		pos = rawjson.SkipSpace(data, end)
		consumed = pos
	}
	return recs, consumed
}

// objectOrHead returns the end of the object at data[i], or, when it is a
// document whose messages member is an array, the end of its head (just
// after the "[" that opens messages); -1 when data ends first. The object's
// end is found by bracket matching, and the head is looked for only inside
// it: both read data from i on and stop where they decide, so a prefix of
// data gives the same answer or -1 — what lets a read stop at any record
// boundary, even in bytes that are not JSON.
func objectOrHead(data []byte, i int) int {
	end := rawjson.SkipValue(data, i)
	scan := data
	if end >= 0 {
		scan = data[:end]
	}
	if h := headEnd(scan, i); h >= 0 {
		return h
	}
	return end
}

// headEnd returns the index just after the "[" that opens the messages
// member of the object at data[i], or -1 when the object has no such member
// (or is not made of members) before data ends.
func headEnd(data []byte, i int) int {
	j := rawjson.SkipSpace(data, i+1)
	for j < len(data) && data[j] == '"' {
		kend := rawjson.SkipString(data, j)
		if kend < 0 {
			return -1
		}
		key := data[j+1 : kend-1]
		j = rawjson.SkipSpace(data, kend)
		if j >= len(data) || data[j] != ':' {
			return -1
		}
		j = rawjson.SkipSpace(data, j+1)
		if j >= len(data) {
			return -1
		}
		if data[j] == '[' && string(key) == "messages" {
			return j + 1
		}
		vend := rawjson.SkipValue(data, j)
		if vend < 0 {
			return -1
		}
		j = rawjson.SkipSpace(data, vend)
		if j >= len(data) || data[j] != ',' {
			return -1
		}
		j = rawjson.SkipSpace(data, j+1)
	}
	return -1
}

// tailEnd returns the end of a document's last members, from the "]" that
// closes its messages to the "}" that closes it, and whether they are a
// record (they are not when nothing but white space is between); -1 when
// data ends first. Like every record's, the end is decided by the bytes
// before it, never by the next record's.
func tailEnd(data []byte, i int) (int, bool) {
	j := rawjson.SkipSpace(data, i+1)
	if j < len(data) && data[j] == '}' {
		return j + 1, false
	}
	depth := 0
	for ; j < len(data); j++ {
		switch data[j] {
		case '"':
			e := rawjson.SkipString(data, j)
			if e < 0 {
				return -1, true
			}
			j = e - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				// The "}" that closes the document, or a stray "]": the
				// record ends with it (ending before it would need to see it,
				// and a read stopped there would not).
				return j + 1, true
			}
			depth--
		}
	}
	return -1, true
}
