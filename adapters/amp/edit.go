package amp

import (
	"strconv"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// fileEdit builds the file edit of an edit tool's call from its input and
// result: the result's diff (Amp's own patch, with the file's line numbers)
// when the call succeeded and has one, else the input — the replaced text
// (a Fragment) or the created file. nil for other tools.
func fileEdit(c call, result rawjson.Object, ok bool) *transcript.FileEdit {
	in := rawjson.AsObject(c.input)
	path := rawjson.AsString(in.Get("path"))
	switch c.name {
	case "edit_file", "create_file", "undo_edit":
	default:
		return nil
	}
	if path == "" {
		return nil
	}
	fe := &transcript.FileEdit{Tool: c.name, Path: path, Op: transcript.OpUpdate, OK: ok}
	if c.name == "create_file" {
		fe.Op = transcript.OpCreate
	}
	oldPath := headerPath(path)
	var hunks []transcript.Hunk
	if d, isStr := rawjson.String(result.Get("diff")); isStr && ok {
		hunks = transcript.ReadHunks(d)
	}
	switch {
	case len(hunks) > 0:
		fe.From = transcript.FromToolPatch
		if fe.Op == transcript.OpCreate && len(hunks) == 1 && hunks[0].OldLines == 0 {
			oldPath = "/dev/null"
		}
	case c.name == "create_file":
		fe.New = rawjson.AsString(in.Get("content"))
		hunks, fe.From, oldPath = transcript.Diff("", fe.New), transcript.FromInput, "/dev/null"
	case c.name == "edit_file":
		fe.Old, fe.New = rawjson.AsString(in.Get("old_str")), rawjson.AsString(in.Get("new_str"))
		hunks, fe.From, fe.Fragment = transcript.Diff(fe.Old, fe.New), transcript.FromInput, true
	default:
		return nil // an undo without its diff says nothing of the change
	}
	if c.name == "edit_file" {
		fe.Old, fe.New = rawjson.AsString(in.Get("old_str")), rawjson.AsString(in.Get("new_str"))
	}
	fe.Unified = transcript.FormatUnified(oldPath, headerPath(path), hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// headerPath is a path as a diff's --- and +++ lines name it: quoted when it
// holds a line break or another control character.
func headerPath(path string) string {
	if strings.IndexFunc(path, func(r rune) bool { return r < ' ' || r == 0x7f }) < 0 {
		return path
	}
	return strconv.Quote(path)
}
