package codex

import (
	"path"
	"strconv"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// Codex changes files with apply_patch, whose argument is a patch in its own
// format ("V4A"):
//
//	*** Begin Patch
//	*** Add File: <path>        then the content, each line prefixed "+"
//	*** Delete File: <path>
//	*** Update File: <path>     optionally "*** Move to: <path>", then
//	@@ [context]                hunks of " ", "-", "+" lines
//	*** End of File             (optional, after a hunk)
//	*** End Patch
//
// The model writes it in three shapes: a custom (freeform) tool call whose
// input is the patch; a function call named apply_patch whose JSON arguments
// hold it as "input" or "patch"; and a shell or exec_command call running
// apply_patch with the patch as a heredoc or an argument. What Codex did with
// it is in patch_apply_end (item_completed FileChange in paginated rollouts):
// per absolute path, {type: add, content} | {type: delete, content} |
// {type: update, unified_diff, move_path}.

// patchFile is one file operation of a patch.
type patchFile struct {
	op       string // transcript.OpCreate, OpDelete, OpUpdate (OpMove when moved)
	path     string
	movePath string
	content  string     // Add File: the new content
	hunks    [][]string // Update File: each hunk's lines, with their prefix
}

// parsePatch reads the file operations of a V4A patch; lines outside
// "*** Begin Patch" … "*** End Patch" are ignored, and so is what it cannot
// read.
func parsePatch(text string) (out []patchFile) {
	lines := strings.Split(text, "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) != "*** Begin Patch" {
		i++
	}
	var cur *patchFile
	inHunk := false
	defer func() { // an operation that names no file edits nothing
		kept := out[:0]
		for _, pf := range out {
			if pf.path != "" {
				kept = append(kept, pf)
			}
		}
		out = kept
	}()
	for i++; i < len(lines); i++ {
		l := strings.TrimSuffix(lines[i], "\r")
		t := "" // a marker line's text; hunk lines are never markers
		if l == "" || l[0] != ' ' && l[0] != '-' && l[0] != '+' {
			t = strings.TrimSpace(l)
		}
		switch {
		case t == "*** End Patch":
			return out
		case strings.HasPrefix(t, "*** Add File:"):
			out = append(out, patchFile{op: transcript.OpCreate, path: strings.TrimSpace(t[len("*** Add File:"):])})
			cur, inHunk = &out[len(out)-1], false
		case strings.HasPrefix(t, "*** Delete File:"):
			out = append(out, patchFile{op: transcript.OpDelete, path: strings.TrimSpace(t[len("*** Delete File:"):])})
			cur, inHunk = &out[len(out)-1], false
		case strings.HasPrefix(t, "*** Update File:"):
			out = append(out, patchFile{op: transcript.OpUpdate, path: strings.TrimSpace(t[len("*** Update File:"):])})
			cur, inHunk = &out[len(out)-1], false
		case cur == nil:
		case strings.HasPrefix(t, "*** Move to:") && cur.op == transcript.OpUpdate:
			if cur.movePath = strings.TrimSpace(t[len("*** Move to:"):]); cur.movePath != "" {
				cur.op = transcript.OpMove
			}
		case t == "*** End of File":
			inHunk = false
		case cur.op == transcript.OpCreate:
			if strings.HasPrefix(l, "+") {
				cur.content += l[1:] + "\n"
			}
		case cur.op == transcript.OpDelete:
		case strings.HasPrefix(l, "@@"):
			cur.hunks = append(cur.hunks, nil)
			inHunk = true
		case l == "" || l[0] == ' ' || l[0] == '-' || l[0] == '+':
			if !inHunk { // Codex accepts a first hunk without its @@ line
				cur.hunks = append(cur.hunks, nil)
				inHunk = true
			}
			if l == "" {
				l = " "
			}
			h := &cur.hunks[len(cur.hunks)-1]
			*h = append(*h, l)
		}
	}
	return out
}

// edits turns a patch's operations into file edits: an added file's whole
// content, an updated file's hunks as the model wrote them (a Fragment: V4A
// hunks carry no line numbers), a deleted file with no diff (the patch does
// not hold its content). Relative paths are resolved against cwd.
func (pf patchFile) edit(cwd string) *transcript.FileEdit {
	fe := &transcript.FileEdit{Path: resolve(cwd, pf.path), Op: pf.op, From: transcript.FromInput}
	if pf.movePath != "" {
		fe.MovePath = resolve(cwd, pf.movePath)
	}
	var hunks []transcript.Hunk
	oldPath, newPath := fe.Path, fe.Path
	switch pf.op {
	case transcript.OpCreate:
		fe.New = pf.content
		hunks = transcript.Diff("", pf.content)
		oldPath = "/dev/null"
	case transcript.OpDelete:
		newPath = "/dev/null"
	default:
		fe.Fragment = true
		if fe.MovePath != "" {
			newPath = fe.MovePath
		}
		for _, lines := range pf.hunks {
			if len(lines) > 0 {
				hunks = append(hunks, transcript.Hunk{OldStart: 1, NewStart: 1, Lines: lines})
			}
		}
		if len(pf.hunks) == 1 {
			fe.Old, fe.New = sides(pf.hunks[0])
		}
	}
	fe.Unified = transcript.FormatUnified(oldPath, newPath, hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// sides returns the text a hunk replaces and its replacement.
func sides(lines []string) (old, new string) {
	var o, n strings.Builder
	for _, l := range lines {
		switch l[0] {
		case ' ':
			o.WriteString(l[1:] + "\n")
			n.WriteString(l[1:] + "\n")
		case '-':
			o.WriteString(l[1:] + "\n")
		case '+':
			n.WriteString(l[1:] + "\n")
		}
	}
	return o.String(), n.String()
}

// resolve makes a patch path absolute against cwd (when cwd is a POSIX
// path; Codex's own paths are absolute already).
func resolve(cwd, p string) string {
	if p == "" || strings.HasPrefix(p, "/") || !strings.HasPrefix(cwd, "/") || isWindowsAbs(p) {
		return p
	}
	return path.Join(cwd, p)
}

func isWindowsAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
}

// changeEdit turns one entry of patch_apply_end's changes into a file edit.
// It returns nil for a change of a type it does not know, or of no file.
func changeEdit(cwd, file string, change rawjson.Object) *transcript.FileEdit {
	if strings.TrimSpace(file) == "" {
		return nil
	}
	fe := &transcript.FileEdit{Path: resolve(cwd, file), From: transcript.FromToolPatch}
	var hunks []transcript.Hunk
	oldPath, newPath := fe.Path, fe.Path
	switch rawjson.AsString(change.Get("type")) {
	case "add":
		fe.Op, fe.New = transcript.OpCreate, rawjson.AsString(change.Get("content"))
		hunks = transcript.Diff("", fe.New)
		oldPath = "/dev/null"
	case "delete":
		fe.Op, fe.Old = transcript.OpDelete, rawjson.AsString(change.Get("content"))
		hunks = transcript.Diff(fe.Old, "")
		newPath = "/dev/null"
	case "update":
		fe.Op = transcript.OpUpdate
		if mv := rawjson.AsString(change.Get("move_path")); mv != "" {
			fe.Op, fe.MovePath = transcript.OpMove, resolve(cwd, mv)
			newPath = fe.MovePath
		}
		hunks = parseHunks(rawjson.AsString(change.Get("unified_diff")))
	default:
		return nil
	}
	fe.Unified = transcript.FormatUnified(oldPath, newPath, hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// parseHunks reads the hunks of a unified diff leniently: file headers and
// other lines outside hunks are skipped, counts are taken from the lines (the
// header's starts are kept), an empty line inside a hunk is an unchanged
// empty line.
func parseHunks(diff string) []transcript.Hunk {
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	var out []transcript.Hunk
	var cur *transcript.Hunk
	for _, l := range lines {
		if strings.HasPrefix(l, "@@") {
			oldStart, oldN, newStart, newN, ok := hunkHeader(l)
			if !ok {
				cur = nil
				continue
			}
			// A side the hunk covers no line of starts where it would
			// insert: one after the line the header names.
			if oldN == 0 {
				oldStart++
			}
			if newN == 0 {
				newStart++
			}
			out = append(out, transcript.Hunk{OldStart: oldStart, NewStart: newStart})
			cur = &out[len(out)-1]
			continue
		}
		if cur == nil {
			continue
		}
		switch {
		case l == "":
			cur.Lines = append(cur.Lines, " ")
		case l[0] == ' ' || l[0] == '-' || l[0] == '+' || l[0] == '\\':
			if (l[0] == '-' && strings.HasPrefix(l, "--- ")) || (l[0] == '+' && strings.HasPrefix(l, "+++ ")) {
				if len(cur.Lines) == 0 {
					continue
				}
			}
			cur.Lines = append(cur.Lines, l)
		default:
			cur = nil
		}
	}
	kept := out[:0]
	for _, h := range out {
		if len(h.Lines) > 0 {
			kept = append(kept, h)
		}
	}
	return kept
}

// hunkHeader reads "@@ -a[,b] +c[,d] @@…".
func hunkHeader(l string) (oldStart, oldN, newStart, newN int, ok bool) {
	f := strings.Fields(l)
	if len(f) < 3 || f[0] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, 0, 0, false
	}
	var ok1, ok2 bool
	oldStart, oldN, ok1 = hunkRange(f[1][1:])
	newStart, newN, ok2 = hunkRange(f[2][1:])
	return oldStart, oldN, newStart, newN, ok1 && ok2
}

func hunkRange(r string) (start, n int, ok bool) {
	s, c, hasCount := strings.Cut(r, ",")
	start, err := strconv.Atoi(s)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	n = 1
	if hasCount {
		if n, err = strconv.Atoi(c); err != nil || n < 0 {
			return 0, 0, false
		}
	}
	return start, n, true
}

// shellTools are the tools whose calls run a command line, in which the
// model may run apply_patch.
var shellTools = map[string]bool{
	"shell": true, "shell_command": true, "exec_command": true, "local_shell": true,
	"container.exec": true, "unified_exec": true,
}

// callPatch returns the patch a tool call carries, and the folder it runs in
// (when the arguments say): apply_patch's input, or an apply_patch command
// line of a shell call. It returns "" for other calls.
func callPatch(name string, args []byte) (patch, workdir string) {
	if name == "apply_patch" || name == "applypatch" {
		if s, ok := rawjson.String(args); ok {
			if o := rawjson.AsObject([]byte(s)); o != nil && rawjson.Valid([]byte(s)) {
				args = []byte(s)
			} else {
				return patchText(s), ""
			}
		}
		o := rawjson.AsObject(args)
		for _, k := range []string{"input", "patch"} {
			if s, ok := rawjson.String(o.Get(k)); ok {
				return patchText(s), rawjson.AsString(o.Get("workdir"))
			}
		}
		return "", ""
	}
	if !shellTools[name] {
		return "", ""
	}
	if s, ok := rawjson.String(args); ok {
		if !rawjson.Valid([]byte(s)) {
			return "", ""
		}
		args = []byte(s)
	}
	o := rawjson.AsObject(args)
	var line string
	switch c := o.Get("command"); {
	case rawjson.IsArray(c):
		line = strings.Join(rawjson.Strings(c), "\n")
	case c != nil:
		line = rawjson.AsString(c)
	default:
		line = rawjson.AsString(o.Get("cmd"))
	}
	if !strings.Contains(line, "apply_patch") && !strings.Contains(line, "applypatch") {
		return "", ""
	}
	workdir = rawjson.AsString(o.Get("workdir"))
	if workdir == "" {
		workdir = rawjson.AsString(o.Get("cwd"))
	}
	return patchText(line), workdir
}

// patchText cuts the patch out of s: from "*** Begin Patch" to the end of
// the "*** End Patch" line (a hunk line that reads so does not end it; to
// the end of s when that line is missing); "" when s holds no patch.
func patchText(s string) string {
	i := strings.Index(s, "*** Begin Patch")
	if i < 0 {
		return ""
	}
	s = s[i:]
	for off := 0; off < len(s); {
		line, _, _ := strings.Cut(s[off:], "\n")
		if strings.TrimSpace(line) == "*** End Patch" && line[0] != ' ' && line[0] != '+' && line[0] != '-' {
			return s[:off+len(line)] + "\n"
		}
		off += len(line) + 1
	}
	return s
}
