package cursor

import (
	"cmp"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// fileEdit builds the file edit of an edit tool's call: edit_file ({target_file,
// instructions, code_edit}; its result's diff {chunks: [{diffString,
// oldStart, oldLines, newStart, newLines}]}), search_replace and
// edit_file_v2 ({file_path, old_string, new_string}), write ({file_path,
// contents}) and delete_file ({target_file}). Nil for other tools.
func fileEdit(tool string, args, result rawjson.Object, ok bool) *transcript.FileEdit {
	path := cmp.Or(rawjson.AsString(args.Get("target_file")), rawjson.AsString(args.Get("file_path")),
		rawjson.AsString(args.Get("relative_workspace_path")), rawjson.AsString(args.Get("path")))
	if path == "" {
		return nil
	}
	fe := &transcript.FileEdit{Tool: tool, Path: path, Op: transcript.OpUpdate, OK: ok, From: transcript.FromInput, Fragment: true}
	var hunks []transcript.Hunk
	switch tool {
	case "edit_file":
		if hs := chunks(result); ok && len(hs) > 0 {
			hunks, fe.From, fe.Fragment = hs, transcript.FromToolPatch, false
			break
		}
		fe.New = rawjson.AsString(args.Get("code_edit"))
		hunks = transcript.Diff("", fe.New)
	case "search_replace", "edit_file_v2":
		fe.Old, fe.New = rawjson.AsString(args.Get("old_string")), rawjson.AsString(args.Get("new_string"))
		hunks = transcript.Diff(fe.Old, fe.New)
	case "write":
		fe.New = cmp.Or(rawjson.AsString(args.Get("contents")), rawjson.AsString(args.Get("content")))
		hunks = transcript.Diff("", fe.New)
	case "delete_file":
		fe.Op, fe.Fragment = transcript.OpDelete, false
		return fe
	default:
		return nil
	}
	fe.Unified = transcript.FormatUnified(path, path, hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// chunks reads an edit_file result's diff chunks as hunks; none when a chunk
// does not add up (its lines are not those its counts say).
func chunks(result rawjson.Object) []transcript.Hunk {
	var hs []transcript.Hunk
	for _, c := range rawjson.AsArray(result.Path("diff", "chunks")) {
		co := rawjson.AsObject(c)
		h := transcript.Hunk{OldStart: int(rawjson.Int(co.Get("oldStart"))), OldLines: int(rawjson.Int(co.Get("oldLines"))),
			NewStart: int(rawjson.Int(co.Get("newStart"))), NewLines: int(rawjson.Int(co.Get("newLines")))}
		body := strings.TrimSuffix(rawjson.AsString(co.Get("diffString")), "\n")
		if body == "" {
			return nil
		}
		oldN, newN := 0, 0
		for _, l := range strings.Split(body, "\n") {
			switch {
			case strings.HasPrefix(l, "-"):
				oldN++
			case strings.HasPrefix(l, "+"):
				newN++
			case strings.HasPrefix(l, " "):
				oldN++
				newN++
			default:
				return nil
			}
			h.Lines = append(h.Lines, l)
		}
		if oldN != h.OldLines || newN != h.NewLines || h.OldStart < 0 || h.NewStart < 0 {
			return nil
		}
		hs = append(hs, h)
	}
	return hs
}
