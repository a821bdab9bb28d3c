package copilotcli

import (
	"strconv"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// editTools are the tools whose calls change files: the CLI's create and
// edit (str_replace_editor before them), apply_patch (GPT models), and the
// VS Code agent's tools, which its copy of the log names.
var editTools = map[string]bool{
	"create": true, "edit": true, "str_replace_editor": true, "apply_patch": true,
	"create_file": true, "replace_string_in_file": true, "multi_replace_string_in_file": true,
}

func itoa(n int) string { return strconv.Itoa(n) }

// fileEdits builds the file edits of an edit tool's finished call from its
// arguments and, when it succeeded, the result's detailedContent — the
// git-style diff the CLI shows (diff --git a/<path> b/<path>, an index line,
// --- / +++ and hunks; one section per file for apply_patch). Best first:
//
//   - create (create_file): the whole new content, diffed against nothing;
//   - edit, str_replace_editor str_replace, replace_string_in_file: the CLI's
//     own diff when it reads as one (its line numbers are the file's), else
//     the replaced text and its replacement alone (a Fragment);
//   - str_replace_editor insert: the inserted lines after insert_line;
//   - apply_patch: the CLI's diff, a section a file, else the patch's own
//     operations (Fragments: V4A hunks carry no line numbers);
//   - multi_replace_string_in_file: one Fragment a replacement.
//
// A failed call's edits come from its arguments, with OK false: attempted,
// not made.
func fileEdits(tool string, rawArgs []byte, ok bool, detailed string) []*transcript.FileEdit {
	args := argsObject(rawArgs)
	var sections []section
	if ok {
		sections = parseGitDiff(detailed)
	}
	var out []*transcript.FileEdit
	add := func(fe *transcript.FileEdit) {
		if fe == nil {
			return
		}
		fe.Tool = tool
		if !ok {
			fe.OK = false
			if fe.From != transcript.FromInput {
				fe.From = transcript.FromInput
			}
		}
		out = append(out, fe)
	}
	switch tool {
	case "create", "create_file":
		add(createEdit(argPath(args), content(args), ok))
	case "edit", "replace_string_in_file":
		add(replaceEdit(argPath(args), oldText(args), newText(args), sections))
	case "str_replace_editor":
		switch rawjson.AsString(args.Get("command")) {
		case "create":
			add(createEdit(argPath(args), content(args), ok))
		case "str_replace":
			add(replaceEdit(argPath(args), oldText(args), newText(args), sections))
		case "insert":
			add(insertEdit(argPath(args), int(rawjson.Int(args.Get("insert_line"))), newText(args)))
		}
	case "multi_replace_string_in_file":
		for _, r := range rawjson.AsArray(args.Get("replacements")) {
			ro := rawjson.AsObject(r)
			add(replaceEdit(argPath(ro), oldText(ro), newText(ro), nil))
		}
	case "apply_patch":
		patch := rawjson.AsString(args.Get("input"))
		if patch == "" {
			patch = rawjson.AsString(rawArgs)
		}
		ops := transcript.ParsePatch(patch)
		if len(sections) > 0 {
			for _, s := range sections {
				add(s.edit(pathFor(s.path(), ops)))
			}
			break
		}
		for _, op := range ops {
			add(op.Edit())
		}
	}
	return out
}

// argsObject reads a call's arguments: an object, or (older logs, and the
// assistant's requests) a string holding one; nil otherwise (apply_patch's
// freeform patch).
func argsObject(raw []byte) rawjson.Object {
	if o := rawjson.AsObject(raw); o != nil {
		return o
	}
	if s, ok := rawjson.String(raw); ok && strings.HasPrefix(strings.TrimSpace(s), "{") && rawjson.Valid([]byte(s)) {
		return rawjson.AsObject([]byte(s))
	}
	return nil
}

// argPath is the file a call's arguments name (the CLI's path, the VS Code
// agent's filePath).
func argPath(args rawjson.Object) string {
	for _, k := range []string{"path", "filePath", "file_path"} {
		if s := rawjson.AsString(args.Get(k)); s != "" {
			return s
		}
	}
	return ""
}

func content(args rawjson.Object) string {
	if s, ok := rawjson.String(args.Get("file_text")); ok {
		return s
	}
	return rawjson.AsString(args.Get("content"))
}

func oldText(args rawjson.Object) string {
	if s, ok := rawjson.String(args.Get("old_str")); ok {
		return s
	}
	return rawjson.AsString(args.Get("oldString"))
}

func newText(args rawjson.Object) string {
	if s, ok := rawjson.String(args.Get("new_str")); ok {
		return s
	}
	return rawjson.AsString(args.Get("newString"))
}

// orUnknown is a path for an edit whose arguments name none.
func orUnknown(p string) string {
	if p == "" {
		return "(unknown)"
	}
	return p
}

// createEdit is a new file's whole content. The CLI's create fails on a
// file that exists, so what it made came from nothing.
func createEdit(path, text string, ok bool) *transcript.FileEdit {
	path = orUnknown(path)
	hunks := transcript.Diff("", text)
	fe := &transcript.FileEdit{Path: path, Op: transcript.OpCreate, OK: ok, New: text, From: transcript.FromContent}
	fe.Unified = transcript.FormatUnified("/dev/null", path, hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// replaceEdit is a replacement of old by new in path: the CLI's diff of the
// file when it has one for the path, else a Fragment of the two texts.
func replaceEdit(path, old, new string, sections []section) *transcript.FileEdit {
	path = orUnknown(path)
	for _, s := range sections {
		if s.op == transcript.OpUpdate && samePath(s.path(), path) {
			fe := s.edit(path)
			fe.Old, fe.New = old, new
			return fe
		}
	}
	hunks := transcript.FragmentDiff(old, new)
	fe := &transcript.FileEdit{Path: path, Op: transcript.OpUpdate, OK: true, Old: old, New: new,
		From: transcript.FromInput, Fragment: true}
	fe.Unified = transcript.FormatUnified(path, path, hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// insertEdit is str_replace_editor's insert: new text after line after (0:
// at the top). The line numbers are the file's; the diff has no context.
func insertEdit(path string, after int, text string) *transcript.FileEdit {
	path = orUnknown(path)
	if !strings.HasSuffix(text, "\n") && text != "" {
		text += "\n"
	}
	var lines []string
	for _, l := range strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n") {
		lines = append(lines, "+"+strings.TrimSuffix(l, "\n"))
	}
	var hunks []transcript.Hunk
	if text != "" {
		hunks = []transcript.Hunk{{OldStart: max(after, 0) + 1, NewStart: max(after, 0) + 1, Lines: lines}}
	}
	fe := &transcript.FileEdit{Path: path, Op: transcript.OpUpdate, OK: true, New: text, From: transcript.FromInput}
	fe.Unified = transcript.FormatUnified(path, path, hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// samePath reports whether a diff header's path names the file p: the CLI
// writes an absolute path without its leading "/" after a/ and b/.
func samePath(header, p string) bool {
	if header == "" || p == "" {
		return false
	}
	h, q := strings.TrimPrefix(header, "/"), strings.TrimPrefix(p, "/")
	if h == q {
		return true
	}
	// A relative path the model gave, against the absolute one the CLI
	// resolved it to.
	rel := strings.TrimPrefix(p, "./")
	return !strings.HasPrefix(p, "/") && strings.HasSuffix(h, "/"+rel)
}

// pathFor is the path a diff section names, as the patch wrote it when one
// of its operations is the same file (a diff header has lost the leading
// "/"), else as the header has it.
func pathFor(header string, ops []transcript.PatchOp) string {
	for _, op := range ops {
		if samePath(header, op.Path) {
			return op.Path
		}
		if op.MovePath != "" && samePath(header, op.MovePath) {
			return op.MovePath
		}
	}
	return header
}

// section is one file of a git-style diff.
type section struct {
	oldPath, newPath string // without a/ and b/; "" for /dev/null
	op               string
	hunks            []transcript.Hunk
}

// path is the file the section changes (its new name for a move).
func (s section) path() string {
	if s.newPath != "" {
		return s.newPath
	}
	return s.oldPath
}

// edit is the section as a file edit of path.
func (s section) edit(path string) *transcript.FileEdit {
	fe := &transcript.FileEdit{Path: path, Op: s.op, OK: true, From: transcript.FromToolPatch}
	oldHdr, newHdr := path, path
	switch s.op {
	case transcript.OpCreate:
		oldHdr = "/dev/null"
	case transcript.OpDelete:
		newHdr = "/dev/null"
	case transcript.OpMove:
		fe.Path = orUnknown(s.oldPath)
		fe.MovePath = path
		oldHdr = fe.Path
	}
	fe.Unified = transcript.FormatUnified(oldHdr, newHdr, s.hunks)
	fe.Added, fe.Removed = transcript.CountChanges(s.hunks)
	return fe
}

// parseGitDiff reads the sections of a git-style diff. A section whose
// hunks do not hold the lines their headers count is dropped: the caller
// falls back on the call's arguments rather than trust it.
func parseGitDiff(text string) []section {
	if !strings.Contains(text, "@@") {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var out []section
	var cur *section
	var h *transcript.Hunk
	var wantOld, wantNew, gotOld, gotNew int
	bad := false
	closeHunk := func() {
		if h != nil && (gotOld != wantOld || gotNew != wantNew) {
			bad = true
		}
		h = nil
	}
	closeSection := func() {
		closeHunk()
		if cur != nil && !bad && len(cur.hunks) > 0 && cur.path() != "" {
			out = append(out, *cur)
		}
		cur, bad = nil, false
	}
	start := func() {
		closeSection()
		cur = &section{op: transcript.OpUpdate}
	}
	for _, l := range lines {
		if h != nil && (gotOld < wantOld || gotNew < wantNew || strings.HasPrefix(l, `\`)) {
			switch {
			case l == "":
				l = " "
				fallthrough
			case l[0] == ' ':
				gotOld++
				gotNew++
			case l[0] == '-':
				gotOld++
			case l[0] == '+':
				gotNew++
			case l[0] == '\\':
			default:
				bad = true
				h = nil
				continue
			}
			h.Lines = append(h.Lines, l)
			continue
		}
		switch {
		case strings.HasPrefix(l, "diff --git "):
			start()
			a, b := gitHeaderPaths(l[len("diff --git "):])
			cur.oldPath, cur.newPath = a, b
		case cur == nil && (strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "@@")):
			start()
			if strings.HasPrefix(l, "@@") {
				closeHunk()
				h = cur.newHunk(l, &wantOld, &wantNew, &bad)
				gotOld, gotNew = 0, 0
			} else {
				cur.oldPath = diffPath(l[4:])
			}
		case cur == nil:
		case strings.HasPrefix(l, "new file mode"), strings.HasPrefix(l, "create file mode"):
			cur.op = transcript.OpCreate
		case strings.HasPrefix(l, "deleted file mode"):
			cur.op = transcript.OpDelete
		case strings.HasPrefix(l, "rename from "):
			cur.op, cur.oldPath = transcript.OpMove, l[len("rename from "):]
		case strings.HasPrefix(l, "rename to "):
			cur.op, cur.newPath = transcript.OpMove, l[len("rename to "):]
		case strings.HasPrefix(l, "--- "):
			closeHunk()
			if cur.oldPath = diffPath(l[4:]); cur.oldPath == "" {
				cur.op = transcript.OpCreate
			}
		case strings.HasPrefix(l, "+++ "):
			if cur.newPath = diffPath(l[4:]); cur.newPath == "" {
				cur.op = transcript.OpDelete
			}
		case strings.HasPrefix(l, "@@"):
			closeHunk()
			h = cur.newHunk(l, &wantOld, &wantNew, &bad)
			gotOld, gotNew = 0, 0
		case strings.HasPrefix(l, "index "), strings.HasPrefix(l, "similarity index"), strings.HasPrefix(l, "old mode"),
			strings.HasPrefix(l, "new mode"), l == "":
		default:
			bad = true
		}
	}
	closeSection()
	return out
}

// newHunk starts a hunk from its header line, reading the counts it must
// hold into wantOld and wantNew; a header that does not read marks the
// section bad.
func (s *section) newHunk(l string, wantOld, wantNew *int, bad *bool) *transcript.Hunk {
	oldStart, oldN, newStart, newN, ok := hunkHeader(l)
	if !ok {
		*bad = true
		return nil
	}
	// A side the hunk covers no line of starts where it would insert. The
	// CLI writes a new file's as -1,0 (that place already); the usual form
	// is -0,0, the line before it.
	if oldN == 0 && oldStart == 0 {
		oldStart = 1
	}
	if newN == 0 && newStart == 0 {
		newStart = 1
	}
	*wantOld, *wantNew = oldN, newN
	s.hunks = append(s.hunks, transcript.Hunk{OldStart: oldStart, NewStart: newStart})
	return &s.hunks[len(s.hunks)-1]
}

// gitHeaderPaths reads "a/<old> b/<new>" of a diff --git line (paths
// without spaces; for others the --- and +++ lines say).
func gitHeaderPaths(s string) (string, string) {
	a, b, ok := strings.Cut(s, " b/")
	if !ok || !strings.HasPrefix(a, "a/") {
		return "", ""
	}
	return a[2:], b
}

// diffPath is the path of a --- or +++ line without its a/ or b/ (and any
// tab-separated timestamp); "" for /dev/null, which the CLI also writes as
// a/dev/null.
func diffPath(s string) string {
	s, _, _ = strings.Cut(s, "\t")
	switch s {
	case "/dev/null", "a/dev/null", "b/dev/null":
		return ""
	}
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		return s[2:]
	}
	return s
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
	if err != nil || start < 0 || start > 1<<30 {
		return 0, 0, false
	}
	n = 1
	if hasCount {
		if n, err = strconv.Atoi(c); err != nil || n < 0 || n > 1<<30 {
			return 0, 0, false
		}
	}
	return start, n, true
}
