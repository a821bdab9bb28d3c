package cline

import (
	"strconv"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/searchreplace"
)

// The edit tools. Cline: write_to_file {path, content}, replace_in_file
// {path, diff (SEARCH/REPLACE blocks)}, new_rule {path, content}. Roo Code
// and Kilo Code: write_to_file, apply_diff {path, diff (blocks with
// :start_line:)}, insert_content {path, line, content}, search_and_replace
// {path, search, replace}, and edit, edit_file and search_replace
// {file_path, old_string, new_string}.

// fileEdits builds the file edits of an edit tool's call from its input and
// its result's text; nil for other tools.
func fileEdits(c call, result string, ok bool) []*transcript.FileEdit {
	path := rawjson.AsString(c.input.Get("path"))
	if path == "" {
		path = rawjson.AsString(c.input.Get("file_path"))
	}
	if path == "" {
		return nil
	}
	after, hasAfter := finalContent(result)
	var out []*transcript.FileEdit
	switch c.name {
	case "write_to_file", "new_rule":
		content := rawjson.AsString(c.input.Get("content"))
		if hasAfter {
			content = after
		}
		op := transcript.OpCreate
		if strings.Contains(result, `"operation":"modified"`) {
			op = transcript.OpUpdate
		}
		fe := &transcript.FileEdit{Path: path, Op: op, New: content, From: transcript.FromInput}
		if op == transcript.OpCreate {
			out = append(out, finish(fe, c.name, transcript.Diff("", content)))
		} else {
			// An existing file rewritten whole: what it held before is not
			// in the conversation.
			out = append(out, finish(fe, c.name, nil))
		}
	case "replace_in_file", "apply_diff":
		blocks := searchreplace.Parse(rawjson.AsString(c.input.Get("diff")))
		if before, ok := unapply(after, blocks); hasAfter && ok {
			fe := &transcript.FileEdit{Path: path, Op: transcript.OpUpdate, From: transcript.FromContent}
			if len(blocks) == 1 {
				fe.Old, fe.New = blocks[0].Search, blocks[0].Replace
			}
			out = append(out, finish(fe, c.name, transcript.Diff(before, after)))
			break
		}
		for _, b := range blocks {
			fe := &transcript.FileEdit{Path: path, Op: transcript.OpUpdate, Old: b.Search, New: b.Replace, From: transcript.FromInput, Fragment: true}
			out = append(out, finish(fe, c.name, transcript.Diff(b.Search, b.Replace)))
		}
	case "search_and_replace":
		old, new := rawjson.AsString(c.input.Get("search")), rawjson.AsString(c.input.Get("replace"))
		fe := &transcript.FileEdit{Path: path, Op: transcript.OpUpdate, Old: old, New: new, From: transcript.FromInput, Fragment: true}
		out = append(out, finish(fe, c.name, transcript.Diff(old, new)))
	case "edit", "edit_file", "search_replace":
		old, new := rawjson.AsString(c.input.Get("old_string")), rawjson.AsString(c.input.Get("new_string"))
		fe := &transcript.FileEdit{Path: path, Op: transcript.OpUpdate, Old: old, New: new, From: transcript.FromInput, Fragment: true}
		out = append(out, finish(fe, c.name, transcript.Diff(old, new)))
	case "insert_content":
		content := rawjson.AsString(c.input.Get("content"))
		line, _ := strconv.Atoi(strings.TrimSpace(rawjson.AsString(c.input.Get("line"))))
		fe := &transcript.FileEdit{Path: path, Op: transcript.OpUpdate, New: content, From: transcript.FromInput, Fragment: line <= 0}
		h := transcript.Hunk{OldStart: max(line, 1), NewStart: max(line, 1)}
		for _, l := range strings.SplitAfter(strings.TrimSuffix(content, "\n"), "\n") {
			h.Lines = append(h.Lines, "+"+strings.TrimSuffix(l, "\n"))
		}
		out = append(out, finish(fe, c.name, []transcript.Hunk{h}))
	}
	for _, fe := range out {
		fe.OK = ok
	}
	return out
}

// finalContent is the file as the extension saved it, which its result
// quotes: <final_file_content path="…">\n…\n</final_file_content>.
func finalContent(result string) (string, bool) {
	const open = "<final_file_content path=\""
	i := strings.Index(result, open)
	if i < 0 {
		return "", false
	}
	rest := result[i+len(open):]
	j := strings.Index(rest, "\">\n")
	if j < 0 {
		return "", false
	}
	rest = rest[j+3:]
	k := strings.LastIndex(rest, "\n</final_file_content>")
	if k < 0 {
		return "", false
	}
	return rest[:k+1], true
}

// unapply undoes blocks on after (the file they produced), last block
// first: each block's replacement put back to what it replaced. It fails
// when a replacement is not in the file (the person or a formatter changed
// it since), or is empty (a deletion, which cannot be placed).
func unapply(after string, blocks []searchreplace.Block) (string, bool) {
	if len(blocks) == 0 {
		return "", false
	}
	before := after
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		repl, search := b.Replace, b.Search
		if repl == "" {
			return "", false
		}
		at := strings.Index(before, repl)
		if at < 0 {
			// The file's last line may have no newline.
			repl, search = strings.TrimSuffix(repl, "\n"), strings.TrimSuffix(search, "\n")
			if at = strings.Index(before, repl); at < 0 || at+len(repl) != len(before) {
				return "", false
			}
		}
		before = before[:at] + search + before[at+len(repl):]
	}
	return before, true
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

// headerPath is a path as a diff's --- and +++ lines name it: quoted when it
// holds a line break or another control character.
func headerPath(path string) string {
	if strings.IndexFunc(path, func(r rune) bool { return r < ' ' || r == 0x7f }) < 0 {
		return path
	}
	return strconv.Quote(path)
}
