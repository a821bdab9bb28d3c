package droid

import (
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// editTools are the tools whose calls change files.
var editTools = map[string]bool{"Create": true, "Edit": true, "MultiEdit": true, "ApplyPatch": true}

// fileEdits builds the file edits of an edit tool's call from its input and
// the text of its result; nil for other calls.
func fileEdits(c call, result string, ok bool) []*transcript.FileEdit {
	in := rawjson.AsObject(c.Input)
	if in == nil {
		return nil
	}
	path := rawjson.AsString(in.Get("file_path"))
	if path == "" {
		path = rawjson.AsString(in.Get("path"))
	}
	var out []*transcript.FileEdit
	switch c.Name {
	case "Create":
		content := rawjson.AsString(in.Get("content"))
		out = append(out, edit(c.Name, path, transcript.OpCreate, "", content, transcript.Diff("", content), false))
	case "Edit":
		old, new := rawjson.AsString(in.Get("old_str")), rawjson.AsString(in.Get("new_str"))
		hunks, from := resultHunks(result), transcript.FromToolPatch
		if len(hunks) == 0 {
			hunks, from = transcript.Diff(old, new), transcript.FromInput
		}
		fe := edit(c.Name, path, transcript.OpUpdate, old, new, hunks, true)
		fe.From = from
		out = append(out, fe)
	case "MultiEdit":
		for _, raw := range rawjson.AsArray(in.Get("edits")) {
			e := rawjson.AsObject(raw)
			old, new := rawjson.AsString(e.Get("old_str")), rawjson.AsString(e.Get("new_str"))
			out = append(out, edit(c.Name, path, transcript.OpUpdate, old, new, transcript.Diff(old, new), true))
		}
	case "ApplyPatch":
		for _, op := range transcript.ParsePatch(rawjson.AsString(in.Get("input"))) {
			fe := op.WrittenEdit()
			fe.Tool = c.Name
			out = append(out, fe)
		}
	}
	kept := out[:0]
	for _, fe := range out {
		if fe.Path == "" {
			continue
		}
		fe.OK = ok
		kept = append(kept, fe)
	}
	return kept
}

// edit is a file edit of one change made from the call's input.
func edit(tool, path, op, old, new string, hunks []transcript.Hunk, fragment bool) *transcript.FileEdit {
	fe := &transcript.FileEdit{Tool: tool, Path: path, Op: op, Old: old, New: new, From: transcript.FromInput, Fragment: fragment}
	oldPath := path
	if op == transcript.OpCreate {
		oldPath = "/dev/null"
	}
	fe.Unified = transcript.FormatUnified(oldPath, path, hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// resultHunks reads the Edit tool's result, {"diffLines": [{type: added |
// removed | unchanged, content}], …}, as one hunk (without line numbers:
// the diff is a fragment).
func resultHunks(result string) []transcript.Hunk {
	t := strings.TrimSpace(result)
	if !strings.HasPrefix(t, "{") {
		return nil
	}
	b := []byte(t)
	diffLines := rawjson.AsObject(b).Get("diffLines")
	if diffLines == nil || !rawjson.Valid(b) {
		return nil
	}
	var lines []string
	for _, raw := range rawjson.AsArray(diffLines) {
		l := rawjson.AsObject(raw)
		content := strings.TrimSuffix(rawjson.AsString(l.Get("content")), "\n")
		switch rawjson.AsString(l.Get("type")) {
		case "added":
			lines = append(lines, "+"+content)
		case "removed":
			lines = append(lines, "-"+content)
		case "unchanged":
			lines = append(lines, " "+content)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return []transcript.Hunk{{OldStart: 1, NewStart: 1, Lines: lines}}
}
