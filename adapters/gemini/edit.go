package gemini

import (
	"strconv"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// editTools are the tools whose calls change one file (Gemini CLI's
// EDIT_TOOL_NAMES): replace and write_file.
var editTools = map[string]bool{"replace": true, "write_file": true}

// editRank orders the sources of an edit's diff, best last: the call's
// arguments alone, the tool's own patch (FileDiff.fileDiff, which jsdiff
// made from the same two contents), the file's whole content before and
// after (exact — what was written, the person's changes to the proposal
// included — and diffed the way every adapter diffs).
var editRank = map[string]int{transcript.FromInput: 1, transcript.FromToolPatch: 2, transcript.FromContent: 3}

// fileEdit builds the file_edit of an edit tool's call: from its
// resultDisplay (a FileDiff) when the call succeeded, else from its
// arguments. It returns nil when there is nothing to build it from.
func fileEdit(tool string, args, display rawjson.Object, ok bool) *transcript.FileEdit {
	if ok && display != nil {
		if fe := fromDisplay(tool, args, display); fe != nil {
			return fe
		}
	}
	if args == nil {
		return nil
	}
	fe := fromInput(tool, args)
	fe.OK = ok
	return fe
}

// argPath is the file an edit tool's arguments name.
func argPath(args rawjson.Object) string {
	for _, k := range []string{"file_path", "absolute_path", "path"} {
		if s := rawjson.AsString(args.Get(k)); s != "" {
			return s
		}
	}
	return ""
}

// fromDisplay reads a FileDiff {fileDiff, fileName, filePath,
// originalContent, newContent, isNewFile, diffStat}: the diff of the
// content before and after when both are there, else the tool's patch.
func fromDisplay(tool string, args, display rawjson.Object) *transcript.FileEdit {
	path := rawjson.AsString(display.Get("filePath"))
	if path == "" {
		path = argPath(args)
	}
	if path == "" {
		return nil
	}
	fe := &transcript.FileEdit{Tool: tool, Path: path, Op: transcript.OpUpdate, OK: true}
	after, hasAfter := rawjson.String(display.Get("newContent"))
	before, hasBefore := rawjson.String(display.Get("originalContent"))
	if rawjson.Bool(display.Get("isNewFile")) || string(display.Get("originalContent")) == "null" {
		fe.Op, before, hasBefore = transcript.OpCreate, "", true
	}
	if tool == "write_file" {
		fe.New = after
		if !hasAfter {
			fe.New = rawjson.AsString(args.Get("content"))
		}
		if fe.Op == transcript.OpUpdate {
			fe.Old = before
		}
	} else {
		fe.Old, fe.New = rawjson.AsString(args.Get("old_string")), rawjson.AsString(args.Get("new_string"))
	}
	var hunks []transcript.Hunk
	switch {
	case hasBefore && hasAfter:
		hunks = transcript.Diff(before, after)
		fe.From = transcript.FromContent
	default:
		_, _, hs, err := transcript.ParseUnified(rawjson.AsString(display.Get("fileDiff")))
		if err != nil || len(hs) == 0 {
			return nil
		}
		hunks = hs
		fe.From = transcript.FromToolPatch
	}
	oldPath := headerPath(path)
	if fe.Op == transcript.OpCreate {
		oldPath = "/dev/null"
	}
	fe.Unified = transcript.FormatUnified(oldPath, headerPath(path), hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// fromInput builds an edit from a call's arguments alone: the diff of the
// replaced text (a Fragment: its line numbers are not the file's), or of the
// written content.
func fromInput(tool string, args rawjson.Object) *transcript.FileEdit {
	fe := &transcript.FileEdit{Tool: tool, Path: argPath(args), Op: transcript.OpUpdate, From: transcript.FromInput, Fragment: true}
	if fe.Path == "" {
		fe.Path = "(unknown)"
	}
	var hunks []transcript.Hunk
	if tool == "write_file" {
		fe.New = rawjson.AsString(args.Get("content"))
		hunks = transcript.Diff("", fe.New)
	} else {
		fe.Old, fe.New = rawjson.AsString(args.Get("old_string")), rawjson.AsString(args.Get("new_string"))
		hunks = transcript.Diff(fe.Old, fe.New)
	}
	fe.Unified = transcript.FormatUnified(headerPath(fe.Path), headerPath(fe.Path), hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// headerPath is a path as a diff's --- and +++ lines name it: quoted, as git
// quotes one, when it holds a line break or another control character that
// would break the header line (the path as given stays in FileEdit.Path).
func headerPath(path string) string {
	if strings.IndexFunc(path, func(r rune) bool { return r < ' ' || r == 0x7f }) < 0 {
		return path
	}
	return strconv.Quote(path)
}
