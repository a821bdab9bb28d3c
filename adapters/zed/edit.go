package zed

import (
	"cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// fileEdit builds the file edit of an edit tool's result: edit_file and
// streaming_edit_file ({path, mode, edits?, content?}; the output
// {input_path, old_text, new_text, diff} or {error}), write_file ({path,
// content}), delete_path ({path}) and move_path ({source_path,
// destination_path}). Nil for other tools and when nothing says what
// changed.
// editTools are the tools fileEdit reads.
var editTools = map[string]bool{"edit_file": true, "streaming_edit_file": true, "write_file": true, "delete_path": true, "move_path": true}

func fileEdit(tr *tree, tool string, input, output rawjson.Object, ok bool) *transcript.FileEdit {
	switch tool {
	case "edit_file", "streaming_edit_file", "write_file":
	case "delete_path":
		path := rawjson.AsString(input.Get("path"))
		if path == "" {
			return nil
		}
		return &transcript.FileEdit{Tool: tool, Path: path, Op: transcript.OpDelete, OK: ok, From: transcript.FromInput}
	case "move_path":
		src, dst := rawjson.AsString(input.Get("source_path")), rawjson.AsString(input.Get("destination_path"))
		if src == "" || dst == "" {
			return nil
		}
		return &transcript.FileEdit{Tool: tool, Path: src, MovePath: dst, Op: transcript.OpMove, OK: ok, From: transcript.FromInput}
	default:
		return nil
	}
	path := cmp.Or(rawjson.AsString(output.Get("input_path")), rawjson.AsString(output.Get("original_path")), rawjson.AsString(input.Get("path")))
	if path == "" {
		return nil
	}
	mode := rawjson.AsString(input.Get("mode"))
	fe := &transcript.FileEdit{Tool: tool, Path: path, Op: transcript.OpUpdate, OK: ok}
	if mode == "create" {
		fe.Op = transcript.OpCreate
	}
	oldText, hasOld := rawjson.String(output.Get("old_text"))
	newText, hasNew := rawjson.String(output.Get("new_text"))
	var hunks []transcript.Hunk
	switch {
	case ok && hasOld && hasNew:
		if oldText == "" && mode != "edit" {
			fe.Op = transcript.OpCreate
		}
		hunks, fe.From = transcript.Diff(oldText, newText), transcript.FromContent
		if mode != "edit" {
			fe.Old, fe.New = oldText, newText
		}
	case ok && rawjson.AsString(output.Get("diff")) != "":
		_, _, hs, err := transcript.ParseUnified(rawjson.AsString(output.Get("diff")))
		if err != nil || len(hs) == 0 {
			return nil
		}
		hunks, fe.From = hs, transcript.FromToolPatch
	default:
		fe.From, fe.Fragment = transcript.FromInput, true
		if content, has := rawjson.String(input.Get("content")); has {
			fe.New = content
			hunks = transcript.Diff("", content)
			if fe.Op == transcript.OpCreate {
				fe.Fragment, fe.From = false, transcript.FromInput
			}
		}
		for _, e := range tr.arr(input.Get("edits")) {
			eo := tr.obj(e)
			hunks = append(hunks, transcript.Diff(rawjson.AsString(eo.Get("old_text")), rawjson.AsString(eo.Get("new_text")))...)
		}
		if len(hunks) == 0 {
			return nil
		}
	}
	oldPath := path
	if fe.Op == transcript.OpCreate {
		oldPath = "/dev/null"
	}
	fe.Unified = transcript.FormatUnified(oldPath, path, hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}
