package claudecode

import (
	"encoding/json"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// editTools are the tools whose calls change one file.
var editTools = map[string]bool{"Edit": true, "MultiEdit": true, "Write": true, "NotebookEdit": true}

// fileEdit builds the file_edit of a tool result: from the tool's structured
// result when the call succeeded (its structuredPatch, else the content
// before and after), else from the call's input. It returns nil when the
// result is not an edit.
func fileEdit(c call, structured []byte, ok bool) *transcript.FileEdit {
	res := rawjson.AsObject(structured)
	tool := c.Name
	if tool == "" {
		tool = guessTool(res)
	}
	if !editTools[tool] {
		return nil
	}
	if ok && res != nil {
		if fe := fromResult(tool, res, rawjson.AsObject(c.Input)); fe != nil {
			return fe
		}
	}
	in := rawjson.AsObject(c.Input)
	if in == nil {
		return nil
	}
	fe := fromInput(tool, in)
	fe.OK = ok
	return fe
}

// guessTool names the edit tool a structured result came from, when the call
// was not seen (a stream read from the middle, a call without id).
func guessTool(res rawjson.Object) string {
	switch {
	case res == nil || rawjson.AsString(res.Get("filePath")) == "":
		return ""
	case res.Get("edits") != nil:
		return "MultiEdit"
	case res.Get("oldString") != nil:
		return "Edit"
	case rawjson.AsString(res.Get("type")) == "create" || rawjson.AsString(res.Get("type")) == "update":
		return "Write"
	}
	return ""
}

func fromResult(tool string, res, in rawjson.Object) *transcript.FileEdit {
	path := rawjson.AsString(res.Get("filePath"))
	if path == "" {
		path = rawjson.AsString(in.Get("file_path"))
	}
	if path == "" {
		return nil
	}
	fe := &transcript.FileEdit{Tool: tool, Path: path, Op: transcript.OpUpdate, OK: true}
	var hunks []transcript.Hunk
	patched := res.Get("structuredPatch") != nil && json.Unmarshal(res.Get("structuredPatch"), &hunks) == nil && len(hunks) > 0
	original, hasOriginal := rawjson.String(res.Get("originalFile"))
	if tool == "MultiEdit" {
		original, hasOriginal = rawjson.String(res.Get("originalFileContents"))
	}
	switch tool {
	case "Write":
		fe.New = rawjson.AsString(res.Get("content"))
		if rawjson.AsString(res.Get("type")) == "create" {
			fe.Op = transcript.OpCreate
		}
		if hasOriginal {
			fe.Old = original
		}
		switch {
		case patched:
		case fe.Op == transcript.OpCreate || hasOriginal:
			hunks = transcript.Diff(original, fe.New)
			fe.From = transcript.FromContent
		default:
			return nil
		}
	case "Edit":
		fe.Old, fe.New = rawjson.AsString(res.Get("oldString")), rawjson.AsString(res.Get("newString"))
		if !patched {
			if !hasOriginal {
				return nil
			}
			hunks = transcript.Diff(original, replace(original, fe.Old, fe.New, rawjson.Bool(res.Get("replaceAll"))))
			fe.From = transcript.FromContent
		}
	case "MultiEdit":
		if !patched {
			if !hasOriginal {
				return nil
			}
			after := original
			for _, raw := range rawjson.AsArray(res.Get("edits")) {
				e := rawjson.AsObject(raw)
				after = replace(after, rawjson.AsString(e.Get("old_string")), rawjson.AsString(e.Get("new_string")), rawjson.Bool(e.Get("replace_all")))
			}
			hunks = transcript.Diff(original, after)
			fe.From = transcript.FromContent
		}
	case "NotebookEdit":
		return nil
	}
	if fe.From == "" {
		fe.From = transcript.FromToolPatch
	}
	oldPath := path
	if fe.Op == transcript.OpCreate {
		oldPath = "/dev/null"
	}
	fe.Unified = transcript.FormatUnified(oldPath, path, hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// fromInput builds an edit from a call's arguments alone: the diff of the
// replaced text (a Fragment: its line numbers are not the file's), or of the
// written content.
func fromInput(tool string, in rawjson.Object) *transcript.FileEdit {
	path := rawjson.AsString(in.Get("file_path"))
	if path == "" {
		path = rawjson.AsString(in.Get("notebook_path"))
	}
	fe := &transcript.FileEdit{Tool: tool, Path: path, Op: transcript.OpUpdate, From: transcript.FromInput, Fragment: true}
	if fe.Path == "" {
		fe.Path = "(unknown)"
	}
	var hunks []transcript.Hunk
	switch tool {
	case "Edit":
		fe.Old, fe.New = rawjson.AsString(in.Get("old_string")), rawjson.AsString(in.Get("new_string"))
		hunks = transcript.Diff(fe.Old, fe.New)
	case "MultiEdit":
		for _, raw := range rawjson.AsArray(in.Get("edits")) {
			e := rawjson.AsObject(raw)
			hunks = append(hunks, transcript.Diff(rawjson.AsString(e.Get("old_string")), rawjson.AsString(e.Get("new_string")))...)
		}
	case "Write":
		fe.New = rawjson.AsString(in.Get("content"))
		hunks = transcript.Diff("", fe.New)
	case "NotebookEdit":
		fe.New = rawjson.AsString(in.Get("new_source"))
	}
	fe.Unified = transcript.FormatUnified(fe.Path, fe.Path, hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// replace does what Claude Code's Edit does to a file's content.
func replace(s, old, new string, all bool) string {
	if old == "" {
		return s
	}
	if all {
		return strings.ReplaceAll(s, old, new)
	}
	return strings.Replace(s, old, new, 1)
}
