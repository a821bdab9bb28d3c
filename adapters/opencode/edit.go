package opencode

import (
	"cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// fileEdits builds the file edits of an edit tool's call: edit
// {filePath, oldString, newString}, multiedit {filePath, edits}, write
// {filePath, content}, patch and apply_patch (the files their metadata
// names). A successful call's edit comes from the file before and after
// when OpenCode kept them (metadata.filediff before/after), else from its
// patch (metadata.diff, filediff.patch); a failed call's, or one with
// neither, from the arguments (ok false when the call failed: attempted,
// not made). Other tools give none.
func fileEdits(tool string, input, md rawjson.Object, ok bool) []*transcript.FileEdit {
	switch tool {
	case "edit", "multiedit", "write":
		path := cmp.Or(rawjson.AsString(input.Get("filePath")), rawjson.AsString(md.Get("filepath")))
		if path == "" {
			return nil
		}
		fe := fromMetadata(tool, path, md, rawjson.AsObject(md.Get("filediff")), ok)
		if fe == nil {
			fe = fromInput(tool, path, input, md)
		}
		fe.OK = ok
		return []*transcript.FileEdit{fe}
	case "patch", "apply_patch":
		if !ok {
			return nil
		}
		var out []*transcript.FileEdit
		if fd := rawjson.AsObject(md.Get("filediff")); fd != nil {
			if fe := fromMetadata(tool, rawjson.AsString(fd.Get("file")), md, fd, ok); fe != nil {
				out = append(out, fe)
			}
		}
		for _, f := range rawjson.AsArray(md.Get("files")) {
			fo := rawjson.AsObject(f)
			path := cmp.Or(rawjson.AsString(fo.Get("filePath")), rawjson.AsString(fo.Get("file")))
			if fe := fromMetadata(tool, path, fo, fo, ok); fe != nil {
				out = append(out, fe)
			}
		}
		return out
	}
	return nil
}

// fromMetadata builds an edit from what OpenCode kept of a successful call:
// the file before and after (exact), else its patch. Nil when it kept
// neither, or for a failed call.
func fromMetadata(tool, path string, md, fd rawjson.Object, ok bool) *transcript.FileEdit {
	if !ok || path == "" {
		return nil
	}
	fe := &transcript.FileEdit{Tool: tool, Path: path, Op: transcript.OpUpdate, OK: true}
	before, hasBefore := rawjson.String(fd.Get("before"))
	after, hasAfter := rawjson.String(fd.Get("after"))
	var hunks []transcript.Hunk
	switch {
	case hasBefore && hasAfter:
		hunks = transcript.Diff(before, after)
		fe.From = transcript.FromContent
		if tool == "write" {
			fe.Old, fe.New = before, after
		}
	default:
		patch := cmp.Or(rawjson.AsString(fd.Get("patch")), rawjson.AsString(md.Get("diff")), rawjson.AsString(fd.Get("diff")))
		_, _, hs, err := transcript.ParseUnified(patch)
		if err != nil || len(hs) == 0 {
			return nil
		}
		hunks = hs
		fe.From = transcript.FromToolPatch
	}
	if rawjson.AsString(fd.Get("status")) == "added" || rawjson.AsString(fd.Get("type")) == "add" ||
		tool == "write" && string(md.Get("exists")) == "false" {
		fe.Op = transcript.OpCreate
	}
	return finish(fe, hunks)
}

// fromInput builds an edit from a call's arguments: a write of a file that
// did not exist creates it with its content (exact); the replaced text of an
// edit, each edit of a multiedit, or a write over a file whose content
// before is unknown, is a Fragment (its line numbers are not the file's).
func fromInput(tool, path string, input, md rawjson.Object) *transcript.FileEdit {
	fe := &transcript.FileEdit{Tool: tool, Path: path, Op: transcript.OpUpdate, From: transcript.FromInput}
	var hunks []transcript.Hunk
	switch tool {
	case "write":
		fe.New = rawjson.AsString(input.Get("content"))
		hunks = transcript.Diff("", fe.New)
		if string(md.Get("exists")) == "false" {
			fe.Op = transcript.OpCreate
			fe.From = transcript.FromContent
		} else {
			fe.Fragment = true
		}
	case "multiedit":
		fe.Fragment = true
		for _, e := range rawjson.AsArray(input.Get("edits")) {
			eo := rawjson.AsObject(e)
			hunks = append(hunks, transcript.Diff(rawjson.AsString(eo.Get("oldString")), rawjson.AsString(eo.Get("newString")))...)
		}
	default:
		fe.Fragment = true
		fe.Old, fe.New = rawjson.AsString(input.Get("oldString")), rawjson.AsString(input.Get("newString"))
		if !input.Has("oldString") && !input.Has("newString") {
			// Arguments of no edit but a content (seen in files other
			// tools wrote in OpenCode's layout): what was written.
			fe.New = rawjson.AsString(input.Get("content"))
		}
		hunks = transcript.Diff(fe.Old, fe.New)
	}
	return finish(fe, hunks)
}

func finish(fe *transcript.FileEdit, hunks []transcript.Hunk) *transcript.FileEdit {
	oldPath := fe.Path
	if fe.Op == transcript.OpCreate {
		oldPath = "/dev/null"
	}
	fe.Unified = transcript.FormatUnified(oldPath, fe.Path, hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}
