package droid

import (
	"strconv"
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
		for _, pf := range parsePatch(rawjson.AsString(in.Get("input"))) {
			out = append(out, pf.edit(c.Name))
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
	oldPath := headerPath(path)
	if op == transcript.OpCreate {
		oldPath = "/dev/null"
	}
	fe.Unified = transcript.FormatUnified(oldPath, headerPath(path), hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// resultHunks reads the Edit tool's result, {"diffLines": [{type: added |
// removed | unchanged, content}], …}, as one hunk (without line numbers:
// the diff is a fragment).
func resultHunks(result string) []transcript.Hunk {
	t := strings.TrimSpace(result)
	if !strings.HasPrefix(t, "{") || !rawjson.Valid([]byte(t)) {
		return nil
	}
	var lines []string
	for _, raw := range rawjson.AsArray(rawjson.AsObject([]byte(t)).Get("diffLines")) {
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

// A V4A patch, as ApplyPatch takes it (the format Codex's apply_patch
// reads):
//
//	*** Begin Patch
//	*** Add File: <path>        then the content, each line prefixed "+"
//	*** Delete File: <path>
//	*** Update File: <path>     optionally "*** Move to: <path>", then
//	@@ [context]                hunks of " ", "-", "+" lines
//	*** End of File             (optional, after a hunk)
//	*** End Patch
type patchFile struct {
	op       string
	path     string
	movePath string
	content  string     // Add File: the new content
	hunks    [][]string // Update File: each hunk's lines, with their prefix
}

// parsePatch reads the file operations of a V4A patch; what it cannot read
// is skipped.
func parsePatch(text string) []patchFile {
	var out []patchFile
	lines := strings.Split(text, "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) != "*** Begin Patch" {
		i++
	}
	cur := -1
	inHunk := false
	for i++; i < len(lines); i++ {
		l := strings.TrimSuffix(lines[i], "\r")
		t := ""
		if l == "" || l[0] != ' ' && l[0] != '-' && l[0] != '+' {
			t = strings.TrimSpace(l)
		}
		if t == "*** End Patch" {
			break
		}
		if op, path, ok := fileHeader(t); ok {
			out = append(out, patchFile{op: op, path: path})
			cur, inHunk = len(out)-1, false
			continue
		}
		if cur < 0 {
			continue
		}
		pf := &out[cur]
		switch {
		case strings.HasPrefix(t, "*** Move to:") && pf.op == transcript.OpUpdate:
			if pf.movePath = strings.TrimSpace(t[len("*** Move to:"):]); pf.movePath != "" {
				pf.op = transcript.OpMove
			}
		case t == "*** End of File":
			inHunk = false
		case pf.op == transcript.OpCreate:
			if strings.HasPrefix(l, "+") {
				pf.content += l[1:] + "\n"
			}
		case pf.op == transcript.OpDelete:
		case strings.HasPrefix(l, "@@"):
			pf.hunks = append(pf.hunks, nil)
			inHunk = true
		case l == "" || l[0] == ' ' || l[0] == '-' || l[0] == '+':
			if !inHunk {
				pf.hunks = append(pf.hunks, nil)
				inHunk = true
			}
			if l == "" {
				l = " "
			}
			pf.hunks[len(pf.hunks)-1] = append(pf.hunks[len(pf.hunks)-1], l)
		}
	}
	kept := out[:0]
	for _, pf := range out {
		if pf.path != "" {
			kept = append(kept, pf)
		}
	}
	return kept
}

func fileHeader(t string) (op, path string, ok bool) {
	for _, h := range []struct{ prefix, op string }{
		{"*** Add File:", transcript.OpCreate}, {"*** Delete File:", transcript.OpDelete}, {"*** Update File:", transcript.OpUpdate},
	} {
		if rest, found := strings.CutPrefix(t, h.prefix); found {
			return h.op, strings.TrimSpace(rest), true
		}
	}
	return "", "", false
}

// edit turns one file of a patch into a file edit: an added file's whole
// content, an update's hunks as written (a Fragment: V4A hunks carry no line
// numbers), a deletion without a diff (the patch does not hold the file).
func (pf patchFile) edit(tool string) *transcript.FileEdit {
	fe := &transcript.FileEdit{Tool: tool, Path: pf.path, MovePath: pf.movePath, Op: pf.op, From: transcript.FromInput}
	oldPath, newPath := headerPath(pf.path), headerPath(pf.path)
	var hunks []transcript.Hunk
	switch pf.op {
	case transcript.OpCreate:
		fe.New = pf.content
		hunks, oldPath = transcript.Diff("", pf.content), "/dev/null"
	case transcript.OpUpdate, transcript.OpMove:
		fe.Fragment = true
		if pf.movePath != "" {
			newPath = headerPath(pf.movePath)
		}
		for _, h := range pf.hunks {
			hunks = append(hunks, transcript.Hunk{OldStart: 1, NewStart: 1, Lines: h})
		}
	}
	fe.Unified = transcript.FormatUnified(oldPath, newPath, hunks)
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
