package vscodecopilot

import (
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// VS Code records what an edit did to a file as a textEditGroup part of the
// response: {uri, edits: [[{text, range: {startLineNumber, startColumn,
// endLineNumber, endColumn}}], …], done}, the new text of a range of the
// document as it stood (lines and columns 1-based, columns in UTF-16 code
// units). It holds the new text, not the old: a diff can be built from it
// alone only where nothing was replaced, and with the call's old text where
// the range covers whole lines.

// textEdit is one edit of a group.
type textEdit struct {
	text           string
	sl, sc, el, ec int
}

// empty reports whether the edit replaces nothing (an insertion).
func (t textEdit) empty() bool { return t.sl == t.el && t.sc == t.ec }

// group is one textEditGroup.
type group struct {
	path    string
	edits   []textEdit
	agent   string // the subagent whose edit it is
	index   int    // its place among the response's parts
	claimed bool
}

// editSet is a response's text edit groups, each given to at most one
// call.
type editSet struct {
	groups []*group
	// invocations are the places of the response's tool invocations, to
	// tell which edits follow which.
	invocations []int
}

func newEditSet(parts []part) *editSet {
	es := &editSet{}
	for i, p := range parts {
		switch p.kind {
		case "toolInvocationSerialized":
			es.invocations = append(es.invocations, i)
		case "textEditGroup":
			g := &group{path: uriPath(p.obj.Get("uri")), agent: p.agent, index: i}
			for _, batch := range rawjson.AsArray(p.obj.Get("edits")) {
				for _, raw := range rawjson.AsArray(batch) {
					o := rawjson.AsObject(raw)
					r := rawjson.AsObject(o.Get("range"))
					g.edits = append(g.edits, textEdit{text: rawjson.AsString(o.Get("text")),
						sl: int(rawjson.Int(r.Get("startLineNumber"))), sc: int(rawjson.Int(r.Get("startColumn"))),
						el: int(rawjson.Int(r.Get("endLineNumber"))), ec: int(rawjson.Int(r.Get("endColumn")))})
				}
			}
			if g.path != "" && len(g.edits) > 0 {
				es.groups = append(es.groups, g)
			}
		}
	}
	return es
}

// uriPath is the file a serialized URI names: its fsPath, else its path.
func uriPath(raw []byte) string {
	u := rawjson.AsObject(raw)
	if s := rawjson.AsString(u.Get("fsPath")); s != "" {
		return s
	}
	return rawjson.AsString(u.Get("path"))
}

// claim gives the first unclaimed group of the main agent that edits path.
func (es *editSet) claim(path string) *group {
	for _, g := range es.groups {
		if !g.claimed && g.agent == "" && g.path == path {
			g.claimed = true
			return g
		}
	}
	return nil
}

// forCall builds the file edits of a call of the agent's edit tools, from
// its arguments and the text edits it made; known says the call's result is
// recorded (without it, only a call whose text edit is there made an
// edit). It returns nothing for other tools.
func (es *editSet) forCall(tool string, args rawjson.Object, ok, known bool) []*transcript.FileEdit {
	var out []*transcript.FileEdit
	add := func(fe *transcript.FileEdit) {
		fe.Tool = tool
		if !ok {
			fe.OK = false
			fe.From = transcript.FromInput
		}
		out = append(out, fe)
	}
	switch tool {
	case "create_file":
		p := argPath(args)
		if g := es.claim(p); g != nil || known {
			add(createEdit(p, rawjson.AsString(args.Get("content"))))
		}
	case "replace_string_in_file":
		p := argPath(args)
		if g := es.claim(p); g != nil || known {
			add(replaceEdit(p, rawjson.AsString(args.Get("oldString")), rawjson.AsString(args.Get("newString")), g))
		}
	case "multi_replace_string_in_file":
		for _, raw := range rawjson.AsArray(args.Get("replacements")) {
			r := rawjson.AsObject(raw)
			p := argPath(r)
			if g := es.claim(p); g != nil || known {
				add(replaceEdit(p, rawjson.AsString(r.Get("oldString")), rawjson.AsString(r.Get("newString")), g))
			}
		}
	case "insert_edit_into_file":
		p := argPath(args)
		if g := es.claim(p); g != nil {
			for _, fe := range groupEdits(g, false) {
				add(fe)
			}
		} else if known {
			add(fragment(p, "", rawjson.AsString(args.Get("code"))))
		}
	case "apply_patch":
		patch := rawjson.AsString(args.Get("input"))
		for _, op := range transcript.ParsePatch(patch) {
			if g := es.claim(op.Path); g != nil || known {
				add(op.Edit())
			}
		}
	}
	return out
}

// forInvocation builds the file edits of a subagent's tool invocation: the
// text edit groups of its agent after it, before the next invocation. A
// tool that creates files makes the whole new file.
func (es *editSet) forInvocation(p part, tool string, ok bool) []*transcript.FileEdit {
	start, end := p.index, 1<<30
	for _, i := range es.invocations {
		if i > start {
			end = min(end, i)
		}
	}
	create := strings.Contains(strings.ToLower(tool), "create")
	var out []*transcript.FileEdit
	for _, g := range es.groups {
		if g.claimed || g.agent != p.agent || g.index <= start || g.index >= end {
			continue
		}
		g.claimed = true
		for _, fe := range groupEdits(g, create) {
			fe.Tool = tool
			if !ok {
				fe.OK, fe.From = false, transcript.FromInput
			}
			out = append(out, fe)
		}
	}
	return out
}

// rest is the edits of the main agent's groups no call claimed: code
// blocks applied in ask and edit modes, edits of tools the adapter does not
// know.
func (es *editSet) rest() []*transcript.FileEdit {
	var out []*transcript.FileEdit
	for _, g := range es.groups {
		if g.claimed || g.agent != "" {
			continue
		}
		g.claimed = true
		out = append(out, groupEdits(g, false)...)
	}
	return out
}

// argPath is the file a call's arguments name.
func argPath(args rawjson.Object) string {
	for _, k := range []string{"filePath", "path", "file_path"} {
		if s := rawjson.AsString(args.Get(k)); s != "" {
			return s
		}
	}
	return ""
}

func orUnknown(p string) string {
	if p == "" {
		return "(unknown)"
	}
	return p
}

// createEdit is a new file's whole content (create_file refuses a file that
// exists).
func createEdit(path, text string) *transcript.FileEdit {
	path = orUnknown(path)
	hunks := transcript.Diff("", text)
	fe := &transcript.FileEdit{Path: path, Op: transcript.OpCreate, OK: true, New: text, From: transcript.FromContent}
	fe.Unified = transcript.FormatUnified("/dev/null", path, hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// fragment is a diff of a replaced text and its replacement alone (its
// line numbers are not the file's).
func fragment(path, old, new string) *transcript.FileEdit {
	path = orUnknown(path)
	hunks := transcript.FragmentDiff(old, new)
	fe := &transcript.FileEdit{Path: path, Op: transcript.OpUpdate, OK: true, Old: old, New: new,
		From: transcript.FromInput, Fragment: true}
	fe.Unified = transcript.FormatUnified(path, path, hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// replaceEdit is old replaced by new in path. When the call's text edit is
// one edit of exactly that — new text in place of whole lines that old
// fills, from the start of its first line to the start of the line after
// it — the diff has the file's line numbers; otherwise it is a fragment.
func replaceEdit(path, old, new string, g *group) *transcript.FileEdit {
	if g != nil && len(g.edits) == 1 {
		if hunks, ok := wholeLines(g.edits[0], old); ok && g.edits[0].text == new {
			return shifted(orUnknown(path), old, new, hunks)
		}
	}
	return fragment(path, old, new)
}

// wholeLines returns the diff of an edit that replaces old, whole lines of
// the file, with the file's line numbers; false when the edit's range is not
// old's lines.
func wholeLines(t textEdit, old string) ([]transcript.Hunk, bool) {
	if t.sc != 1 || t.sl < 1 || t.ec != 1 || old != "" && !strings.HasSuffix(old, "\n") {
		return nil, false
	}
	if t.el != t.sl+strings.Count(old, "\n") {
		return nil, false
	}
	hunks := transcript.Diff(old, t.text)
	for i := range hunks {
		hunks[i].OldStart += t.sl - 1
		hunks[i].NewStart += t.sl - 1
	}
	return hunks, true
}

// shifted is an edit whose hunks have the file's line numbers.
func shifted(path, old, new string, hunks []transcript.Hunk) *transcript.FileEdit {
	fe := &transcript.FileEdit{Path: path, Op: transcript.OpUpdate, OK: true, Old: old, New: new, From: transcript.FromToolPatch}
	fe.Unified = transcript.FormatUnified(path, path, hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// groupEdits builds the file edits of a text edit group alone: a new file
// (create, one insertion at its start) whole; an insertion of whole lines
// with the file's line numbers; any other edit a fragment of its new text
// (what it replaced is not recorded: Removed counts nothing).
func groupEdits(g *group, create bool) []*transcript.FileEdit {
	if create && len(g.edits) == 1 && g.edits[0].empty() && g.edits[0].sl == 1 && g.edits[0].sc == 1 {
		return []*transcript.FileEdit{createEdit(g.path, g.edits[0].text)}
	}
	var out []*transcript.FileEdit
	for _, t := range g.edits {
		if t.empty() && t.sc == 1 && t.sl >= 1 && strings.HasSuffix(t.text, "\n") {
			if hunks, ok := wholeLines(textEdit{text: t.text, sl: t.sl, sc: 1, el: t.sl, ec: 1}, ""); ok {
				out = append(out, shifted(g.path, "", t.text, hunks))
				continue
			}
		}
		out = append(out, fragment(g.path, "", t.text))
	}
	return out
}
