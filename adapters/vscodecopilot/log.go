package vscodecopilot

import (
	"encoding/json"
	"path"
	"strconv"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// state is what the adapter remembers between records of one stream. It is
// saved with the stream's Context, so every field round-trips through JSON.
type state struct {
	// Sessions are the session ids whose session_start was emitted.
	Sessions map[string]bool `json:"sessions,omitempty"`
	// Requests are the session's requests as the log has built them so
	// far, in order.
	Requests []*req `json:"requests,omitempty"`
}

// req is what was read and emitted of one request.
type req struct {
	ID string `json:"id,omitempty"`
	// Body is the request as the log has built it, kept until its response
	// is final (then its events are emitted and it is not needed again). It
	// is kept as a string: as a json.RawMessage it would come back from a
	// saved position re-encoded (HTML characters escaped), and the events
	// keep parts of it verbatim.
	Body string `json:"body,omitempty"`
	// buf is Body while the stream is read: the log changes a request
	// at every part streamed in, and turning its body from text to bytes
	// and back at each would copy it twice more. Body is set from it only
	// when the state is saved (MarshalJSON). Nothing changes its bytes in
	// place: each change builds a new body.
	buf []byte
	// Done is set once the response's events were emitted.
	Done bool `json:"done,omitempty"`
	// First and Last are the first and last events emitted for it; Typed
	// marks a prompt the person typed (a turn a rewind drops).
	First string `json:"first,omitempty"`
	Last  string `json:"last,omitempty"`
	Typed bool   `json:"typed,omitempty"`
}

// body is the request as the log has built it (see buf).
func (r *req) body() []byte {
	if r.buf == nil && r.Body != "" {
		r.buf = []byte(r.Body) // restored from a saved position
	}
	return r.buf
}

// setBody makes b the request's body (nil: none).
func (r *req) setBody(b []byte) {
	r.buf, r.Body = b, ""
}

// MarshalJSON saves the request with its body as text.
func (r *req) MarshalJSON() ([]byte, error) {
	type saved req // the fields, without this method
	s := saved(*r)
	if r.buf != nil {
		s.Body = string(r.buf)
	}
	return json.Marshal(s)
}

// Parse turns one entry of a chat session's mutation log into events: the
// session's start and its requests' prompts as they appear, each request's
// response once it is final, a rewind where requests are cut off, and
// unknown (unmapped) for the entries that only build up what is not final
// yet or change the session's other fields.
func (a *Adapter) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	st := transcript.StateOf[state](ctx)
	m, malformed := transcript.RecordObject(ctx, rec)
	if malformed != nil {
		return malformed
	}
	lp := &logParser{emitter: emitter{ctx: ctx, rec: rec}, st: st, m: m}
	lp.parse()
	return lp.out
}

type logParser struct {
	emitter
	st      *state
	m       rawjson.Object
	rawType string
}

func (lp *logParser) parse() {
	k := lp.m.Get("kind")
	if !rawjson.IsNumber(k) {
		lp.unknown("", transcript.ReasonUnrecognized, "")
		return
	}
	path := rawjson.AsArray(lp.m.Get("k"))
	if len(path) > maxPath {
		lp.unknown("", transcript.ReasonMalformed, "")
		return
	}
	lp.rawType = entryType(rawjson.Int(k), path)
	switch kind := rawjson.Int(k); {
	case kind == kindInitial:
		v := rawjson.AsObject(lp.m.Get("v"))
		if !isSession(v) {
			lp.unknown(lp.rawType, transcript.ReasonMalformed, "")
			return
		}
		lp.initial(v)
	case !rawjson.IsArray(lp.m.Get("k")) || kind != kindSet && kind != kindPush && kind != kindDelete:
		lp.unknown(lp.rawType, transcript.ReasonMalformed, "")
		return
	case len(path) > 0 && rawjson.AsString(path[0]) == "requests":
		lp.requests(kind, path[1:])
	case kind == kindSet && len(path) == 1 && rawjson.AsString(path[0]) == "sessionId":
		lp.ctx.SetSession(rawjson.AsString(lp.m.Get("v")))
	}
	if len(lp.out) == 0 {
		lp.unknown(lp.rawType, transcript.ReasonUnmapped, "")
	}
}

// maxPath bounds an entry's path. VS Code's session schema is a few levels
// deep (requests.<i>.result.metadata…); a path far longer is not VS Code's,
// and following it would cost a rebuild of the request at every level.
const maxPath = 32

// entryType names an entry for its unknown event: its kind and its path,
// indices as "*" (set/requests.*.modelState).
func entryType(kind int64, path [][]byte) string {
	var name string
	switch kind {
	case kindInitial:
		name = "initial"
	case kindSet:
		name = "set"
	case kindPush:
		name = "push"
	case kindDelete:
		name = "delete"
	default:
		name = "kind" + strconv.FormatInt(kind, 10)
	}
	if len(path) == 0 {
		return name
	}
	keys := make([]string, len(path))
	for i, p := range path {
		if s, ok := rawjson.String(p); ok {
			keys[i] = s
		} else {
			keys[i] = "*"
		}
	}
	return name + "/" + strings.Join(keys, ".")
}

// initial reads the log's first entry, the whole session: its start, and
// every request (a request already read gives nothing again: a log is
// rewritten whole as one entry when it grows long).
func (lp *logParser) initial(v rawjson.Object) {
	if lp.ctx.Session() == "" && !v.Has("sessionId") {
		lp.ctx.SetSession(fileSession(lp.ctx.File()))
	}
	lp.sessionStart(lp.st, v, "")
	old := lp.st.Requests
	lp.st.Requests = nil
	for i, raw := range rawjson.AsArray(v.Get("requests")) {
		obj := rawjson.AsObject(raw)
		id := rawjson.AsString(obj.Get("requestId"))
		var prev *req
		for _, o := range old {
			if o.ID == id && id != "" {
				prev = o
			}
		}
		lp.add(obj, raw, i, prev)
	}
}

// fileSession is the session a file's name names: chatSessions/<session>
// .jsonl, when the name is a session id (VS Code's are UUIDs).
func fileSession(file string) string {
	name := path.Base(strings.ReplaceAll(file, `\`, "/"))
	id := strings.TrimSuffix(strings.TrimSuffix(name, ".jsonl"), ".json")
	if !isUUID(id) {
		return ""
	}
	return id
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		default:
			return false
		}
	}
	return true
}

// add appends a request read whole (in the first entry, or pushed): its
// prompt, unless prev says it was read before, and its response when it is
// final.
func (lp *logParser) add(obj rawjson.Object, raw []byte, index int, prev *req) {
	r := prev
	if r == nil {
		r = &req{ID: rawjson.AsString(obj.Get("requestId"))}
	}
	lp.st.Requests = append(lp.st.Requests, r)
	if r.Done {
		return
	}
	if r.First == "" {
		lp.setProject(obj)
		rq := newRequest(obj, index)
		r.First = lp.prompt(rq)
		r.Last, r.Typed = r.First, lp.out[len(lp.out)-1].UserTurn.Meta == ""
	}
	r.setBody(raw)
	lp.finishObject(r, index, obj)
}

// setProject records the folder a request says the session works in.
func (lp *logParser) setProject(obj rawjson.Object) {
	if cwd := workspaceFolder(obj); cwd != "" {
		lp.ctx.SetProject(transcript.Project{Cwd: cwd})
	}
}

// finish emits a request's response once it is final, and lets its body
// go.
func (lp *logParser) finish(r *req, index int) {
	lp.finishObject(r, index, rawjson.AsObject(r.body()))
}

// finishObject is finish with the body's members already read.
func (lp *logParser) finishObject(r *req, index int, obj rawjson.Object) {
	if r.Done || obj == nil || !complete(obj) {
		return
	}
	lp.setProject(obj)
	start := len(lp.out)
	lp.response(newRequest(obj, index), r.Last)
	if len(lp.out) > start {
		r.Last = lp.out[len(lp.out)-1].EventID
	}
	r.Done = true
	r.setBody(nil)
}

// requests applies an entry to the session's requests (path is below
// "requests"): new requests pushed, requests cut off (a rewind), a
// request's fields set or pushed to.
func (lp *logParser) requests(kind int64, path [][]byte) {
	st := lp.st
	if len(path) == 0 {
		switch kind {
		case kindPush:
			cut := -1
			if i := lp.m.Get("i"); rawjson.IsNumber(i) {
				cut = int(rawjson.Int(i))
			}
			if cut >= 0 && cut < len(st.Requests) {
				lp.rewind(cut)
			}
			for _, raw := range rawjson.AsArray(lp.m.Get("v")) {
				lp.add(rawjson.AsObject(raw), raw, len(st.Requests), nil)
			}
		case kindSet:
			// The whole list replaced: what it no longer starts with is cut
			// off, what it brings is added.
			list := rawjson.AsArray(lp.m.Get("v"))
			keep := 0
			for keep < len(list) && keep < len(st.Requests) && rawjson.AsString(rawjson.AsObject(list[keep]).Get("requestId")) == st.Requests[keep].ID {
				keep++
			}
			if keep < len(st.Requests) {
				lp.rewind(keep)
			}
			for _, raw := range list[keep:] {
				lp.add(rawjson.AsObject(raw), raw, len(st.Requests), nil)
			}
		}
		return
	}
	if !rawjson.IsNumber(path[0]) {
		return
	}
	i := int(rawjson.Int(path[0]))
	switch {
	case i < 0 || i > len(st.Requests):
		return
	case i == len(st.Requests):
		if len(path) == 1 && kind == kindSet && rawjson.IsObject(lp.m.Get("v")) {
			raw := lp.m.Get("v")
			lp.add(rawjson.AsObject(raw), raw, i, nil)
		}
		return
	}
	r := st.Requests[i]
	if len(path) == 1 {
		// The request replaced by another (its key changed).
		if kind == kindSet && rawjson.IsObject(lp.m.Get("v")) && rawjson.AsString(rawjson.AsObject(lp.m.Get("v")).Get("requestId")) != r.ID {
			lp.rewind(i)
			raw := lp.m.Get("v")
			lp.add(rawjson.AsObject(raw), raw, i, nil)
		}
		return
	}
	if r.Done || len(r.body()) == 0 {
		return // a final request's fields change no event (a vote, followups)
	}
	var body []byte
	var ok bool
	switch kind {
	case kindSet:
		v := lp.m.Get("v")
		if v == nil {
			v = []byte("null")
		}
		body, ok = setIn(r.body(), path[1:], v)
	case kindDelete:
		body, ok = setIn(r.body(), path[1:], nil)
	case kindPush:
		cut := -1
		if c := lp.m.Get("i"); rawjson.IsNumber(c) {
			cut = int(rawjson.Int(c))
		}
		body, ok = pushIn(r.body(), path[1:], rawjson.AsArray(lp.m.Get("v")), cut)
	}
	if !ok || !rawjson.IsObject(body) {
		return
	}
	r.setBody(body)
	// Only these fields say a response is final: a change to another
	// (a part streamed in) cannot make it so, and reading the request
	// through to find out would cost as much as the request at every part.
	switch rawjson.AsString(path[1]) {
	case "modelState", "result", "isCanceled":
		lp.finish(r, i)
	}
}

// rewind cuts the session's requests at i: the person went back before
// request i (undoing it and what followed, or editing and resending it).
// The rewind names the first event dropped, the last kept and the prompts
// that went.
func (lp *logParser) rewind(i int) {
	st := lp.st
	rw := &transcript.Rewind{Dropped: st.Requests[i].First}
	if i > 0 {
		rw.To = st.Requests[i-1].Last
	}
	for _, r := range st.Requests[i:] {
		if r.Typed {
			rw.Turns++
		}
	}
	st.Requests = st.Requests[:i]
	e := lp.event(transcript.KindRewind, "", "", "/requests/"+strconv.Itoa(i))
	e.ParentID = rw.To
	e.Rewind = rw
}
