package vscodecopilot

import (
	"strconv"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// Document reads the single-document chat sessions of VS Code builds before
// the mutation log (chatSessions/<session>.json, ISerializableChatData
// version 3, rewritten whole — pretty-printed — after every change), and
// exports of several sessions as one JSON array. It implements
// transcript.Framer: a record is one whole top-level JSON value, as the
// document cannot be cut anywhere a read could resume from and give the
// same events (VS Code writes the session's id after its requests). Events
// point into it by pointer: /requests/<i>, or /<n>/requests/<i> in an
// array. A document still being written is left for later; the file is
// rewritten in place, so a changed one is read again from its start.
//
// Source, Discover and Fingerprint are the log adapter's.
type Document struct {
	Adapter
}

var (
	_ transcript.Adapter = (*Document)(nil)
	_ transcript.Framer  = (*Document)(nil)
)

// NewDocument returns the adapter of VS Code's single-document sessions.
func NewDocument() *Document { return &Document{} }

// Frame splits data into its top-level JSON values; without atEOF, a value
// not complete yet is left for later. Anything else up to the next line
// (text that is not JSON) is a record of its own.
func (d *Document) Frame(data []byte, atEOF bool) ([]transcript.Record, int) {
	var recs []transcript.Record
	pos := rawjson.SkipSpace(data, 0)
	consumed := pos
	for pos < len(data) {
		end := -1
		switch data[pos] {
		case '{', '[', '"':
			end = rawjson.SkipValue(data, pos)
		default:
			for i := pos; i < len(data); i++ {
				if data[i] == '\n' {
					end = i
					break
				}
			}
		}
		if end < 0 {
			if !atEOF {
				break
			}
			end = len(data)
		}
		recs = append(recs, transcript.Record{Offset: int64(pos), Data: trimRight(data[pos:end])})
		pos = rawjson.SkipSpace(data, end)
		consumed = pos
	}
	return recs, consumed
}

func trimRight(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}

// Fingerprint names a document record's schema: SchemaDocument for a
// session, an array of sessions, or one request alone.
func (d *Document) Fingerprint(rec transcript.Record) transcript.Variant {
	v := fingerprint(rec.Data)
	switch {
	case v.Schema != "" || !rawjson.IsArray(rec.Data):
	case rawjson.Valid(rec.Data):
		for _, s := range rawjson.AsArray(rec.Data) {
			if isSession(rawjson.AsObject(s)) {
				v.Schema, v.ToolVersion = SchemaDocument, extensionVersion(rawjson.AsObject(s))
				break
			}
		}
	case isSessionHead(rec.Data[rawjson.SkipSpace(rec.Data, 1):]):
		v.Schema = SchemaDocument // an array of sessions, cut
	}
	return v
}

// Parse turns a whole document into events: each session's start and, for
// each request, its prompt and (when final) its response.
func (d *Document) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	st := transcript.StateOf[state](ctx)
	em := &emitter{ctx: ctx, rec: rec}
	valid := rawjson.Valid(rec.Data)
	switch {
	case !valid:
		e := em.event(transcript.KindUnknown, "", "", "")
		e.Unknown = transcript.NewUnknown("", transcript.ReasonMalformed, rec.Data, false)
	case isSession(rawjson.AsObject(rec.Data)):
		em.document(st, rawjson.AsObject(rec.Data), "")
	case rawjson.IsArray(rec.Data):
		for n, s := range rawjson.AsArray(rec.Data) {
			if o := rawjson.AsObject(s); isSession(o) {
				em.document(st, o, "/"+strconv.Itoa(n))
			}
		}
	}
	if len(em.out) == 0 {
		em.unknown(jsonType(rec.Data), transcript.ReasonUnrecognized, "")
	}
	return em.out
}

// document emits one session's events.
func (em *emitter) document(st *state, s rawjson.Object, prefix string) {
	if sid := rawjson.AsString(s.Get("sessionId")); sid != "" {
		em.ctx.SetSession(sid)
	} else if em.ctx.Session() == "" {
		em.ctx.SetSession(fileSession(em.ctx.File()))
	}
	em.sessionStart(st, s, prefix)
	for i, raw := range rawjson.AsArray(s.Get("requests")) {
		obj := rawjson.AsObject(raw)
		if obj == nil {
			continue
		}
		if cwd := workspaceFolder(obj); cwd != "" {
			em.ctx.SetProject(transcript.Project{Cwd: cwd})
		}
		r := newRequest(obj, i)
		r.pointer = prefix + r.pointer
		prompt := em.prompt(r)
		if complete(obj) {
			em.response(r, prompt)
		}
	}
}

// jsonType names a JSON value's type, for an unknown record.
func jsonType(data []byte) string {
	switch {
	case rawjson.IsObject(data):
		return "object"
	case rawjson.IsArray(data):
		return "array"
	case rawjson.IsString(data):
		return "string"
	}
	return ""
}
