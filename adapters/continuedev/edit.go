package continuedev

import (
	"strconv"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/searchreplace"
)

// fileEdits builds the file edits of an edit tool's call: the extensions'
// create_new_file, single_find_and_replace, multi_edit,
// search_and_replace_in_file and edit_existing_file, and the CLI's Write,
// Edit and MultiEdit. nil for other tools.
func fileEdits(c call, output string, ok bool) []*transcript.FileEdit {
	args := rawjson.AsObject(c.args)
	path := rawjson.AsString(args.Get("filepath"))
	if path == "" {
		path = rawjson.AsString(args.Get("file_path"))
	}
	var out []*transcript.FileEdit
	patch := outputHunks(output)
	switch c.name {
	case "create_new_file", "Write":
		content := rawjson.AsString(args.Get("contents"))
		if content == "" {
			content = rawjson.AsString(args.Get("content"))
		}
		fe := &transcript.FileEdit{Path: path, Op: transcript.OpCreate, New: content, From: transcript.FromInput}
		if len(patch) > 0 {
			fe.Op, fe.From = transcript.OpUpdate, transcript.FromToolPatch
			out = append(out, finish(fe, c.name, patch))
		} else {
			if ok && strings.Contains(output, "created file") {
				fe.From = transcript.FromContent
			}
			out = append(out, finish(fe, c.name, transcript.Diff("", content)))
		}
	case "single_find_and_replace", "Edit", "multi_edit", "MultiEdit":
		var pairs [][2]string
		if edits := rawjson.AsArray(args.Get("edits")); edits != nil {
			for _, e := range edits {
				o := rawjson.AsObject(e)
				pairs = append(pairs, [2]string{rawjson.AsString(o.Get("old_string")), rawjson.AsString(o.Get("new_string"))})
			}
		} else {
			pairs = append(pairs, [2]string{rawjson.AsString(args.Get("old_string")), rawjson.AsString(args.Get("new_string"))})
		}
		if len(patch) > 0 && ok {
			fe := &transcript.FileEdit{Path: path, Op: transcript.OpUpdate, From: transcript.FromToolPatch}
			if len(pairs) == 1 {
				fe.Old, fe.New = pairs[0][0], pairs[0][1]
			}
			out = append(out, finish(fe, c.name, patch))
			break
		}
		for _, pr := range pairs {
			fe := &transcript.FileEdit{Path: path, Op: transcript.OpUpdate, Old: pr[0], New: pr[1], From: transcript.FromInput, Fragment: true}
			out = append(out, finish(fe, c.name, transcript.Diff(pr[0], pr[1])))
		}
	case "search_and_replace_in_file":
		var diffs []string
		for _, d := range rawjson.AsArray(args.Get("diffs")) {
			diffs = append(diffs, rawjson.AsString(d))
		}
		for _, b := range searchreplace.Parse(strings.Join(diffs, "\n")) {
			fe := &transcript.FileEdit{Path: path, Op: transcript.OpUpdate, Old: b.Search, New: b.Replace, From: transcript.FromInput, Fragment: true}
			out = append(out, finish(fe, c.name, transcript.Diff(b.Search, b.Replace)))
		}
	case "edit_existing_file":
		// The changes elide the unchanged code ("// ... existing code
		// ..."): no diff can be made of them.
		fe := &transcript.FileEdit{Path: path, Op: transcript.OpUpdate, New: rawjson.AsString(args.Get("changes")), From: transcript.FromInput, Fragment: true}
		out = append(out, finish(fe, c.name, nil))
	}
	kept := out[:0]
	for _, fe := range out {
		if fe.Path != "" {
			fe.OK = ok
			kept = append(kept, fe)
		}
	}
	return kept
}

// finish sets an edit's tool, diff and counts.
func finish(fe *transcript.FileEdit, tool string, hunks []transcript.Hunk) *transcript.FileEdit {
	fe.Tool = tool
	oldPath := headerPath(fe.Path)
	if fe.Op == transcript.OpCreate {
		oldPath = "/dev/null"
	}
	fe.Unified = transcript.FormatUnified(oldPath, headerPath(fe.Path), hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// outputHunks reads the diff a tool's output carries after "Diff:" (the
// CLI's Edit, MultiEdit and Write on an existing file).
func outputHunks(output string) []transcript.Hunk {
	i := strings.Index(output, "Diff:\n")
	if i < 0 {
		return nil
	}
	return transcript.ReadHunks(output[i+len("Diff:\n"):])
}

// headerPath is a path as a diff's --- and +++ lines name it: quoted when it
// holds a line break or another control character.
func headerPath(path string) string {
	if strings.IndexFunc(path, func(r rune) bool { return r < ' ' || r == 0x7f }) < 0 {
		return path
	}
	return strconv.Quote(path)
}
