package transcript

import (
	"slices"
	"strings"
)

// PatchOp is one file operation of an apply_patch patch ("V4A", the format
// of OpenAI's Codex and of the agents that adopted its tool: GitHub Copilot,
// Factory Droid, Windsurf):
//
//	*** Begin Patch
//	*** Add File: <path>        then the content, each line prefixed "+"
//	*** Delete File: <path>
//	*** Update File: <path>     optionally "*** Move to: <path>", then
//	@@ [context]                hunks of " ", "-", "+" lines
//	*** End of File             (optional, after a hunk)
//	*** End Patch
type PatchOp struct {
	Op       string // OpCreate, OpUpdate, OpMove or OpDelete
	Path     string
	MovePath string // OpMove: where the file goes
	// Hunks are the operation's lines with their prefix, as written: an
	// added file's content is one hunk of "+" lines; an update's hunks are
	// split at each "@@" line and after "*** End of File" (a first hunk may
	// have no "@@", as apply_patch accepts). A deletion has none.
	Hunks [][]string
}

// ParsePatch reads the file operations of a V4A patch. It reads from the
// first "*** Begin Patch" line (from the start when there is none) to
// "*** End Patch" (a later "*** Begin Patch" starts another patch). Only a
// line that is not a hunk line (" ", "-" or "+" first) is a marker, so a
// hunk may change a line reading "*** End Patch". An operation that names
// no file is left out, and so is what it cannot read.
func ParsePatch(text string) []PatchOp {
	var out []PatchOp
	// A final line break ends the last line; it starts no empty one.
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	in := !slices.ContainsFunc(lines, func(l string) bool { return patchMarker(l) == "*** Begin Patch" })
	var cur *PatchOp
	inHunk := false
	for _, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		t := patchMarker(l)
		if t == "*** Begin Patch" {
			in, cur = true, nil
			continue
		}
		if !in {
			continue
		}
		if op, path, ok := patchHeader(t); ok {
			out = append(out, PatchOp{Op: op, Path: path})
			cur, inHunk = &out[len(out)-1], false
			continue
		}
		switch {
		case t == "*** End Patch":
			in, cur = false, nil
		case cur == nil:
		case strings.HasPrefix(t, "*** Move to:") && cur.Op == OpUpdate:
			if cur.MovePath = strings.TrimSpace(t[len("*** Move to:"):]); cur.MovePath != "" {
				cur.Op = OpMove
			}
		case t == "*** End of File":
			inHunk = false
		case cur.Op == OpCreate:
			if strings.HasPrefix(l, "+") {
				if len(cur.Hunks) == 0 {
					cur.Hunks = [][]string{nil}
				}
				cur.Hunks[0] = append(cur.Hunks[0], l)
			}
		case cur.Op == OpDelete:
		case strings.HasPrefix(l, "@@"):
			cur.Hunks = append(cur.Hunks, nil)
			inHunk = true
		case l == "" || l[0] == ' ' || l[0] == '-' || l[0] == '+':
			if !inHunk {
				cur.Hunks = append(cur.Hunks, nil)
				inHunk = true
			}
			if l == "" {
				l = " " // an unchanged empty line whose prefix was lost
			}
			h := &cur.Hunks[len(cur.Hunks)-1]
			*h = append(*h, l)
		}
	}
	kept := out[:0]
	for _, op := range out {
		if op.Path != "" {
			kept = append(kept, op)
		}
	}
	return kept
}

// patchMarker is the text of a line that may be a marker ("*** …"), "" for
// a hunk line: hunk lines are never markers.
func patchMarker(l string) string {
	if l == "" || l[0] != ' ' && l[0] != '-' && l[0] != '+' {
		return strings.TrimSpace(l)
	}
	return ""
}

// patchHeader reads an operation's first line.
func patchHeader(t string) (op, path string, ok bool) {
	for _, h := range [...]struct{ prefix, op string }{
		{"*** Add File:", OpCreate}, {"*** Delete File:", OpDelete}, {"*** Update File:", OpUpdate},
	} {
		if rest, found := strings.CutPrefix(t, h.prefix); found {
			return h.op, strings.TrimSpace(rest), true
		}
	}
	return "", "", false
}

// Sides returns the text the operation's hunks replace and their
// replacement, all hunks one after the other: for an added file "" and its
// content.
func (op PatchOp) Sides() (old, new string) {
	var o, n strings.Builder
	for _, h := range op.Hunks {
		for _, l := range h {
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
	}
	return o.String(), n.String()
}

// Edit is a patch operation as a file edit whose diff is computed from its
// sides: an added file's content, an update's hunks run together and
// diffed again (a Fragment), a deleted file with no diff (the patch does
// not hold its content).
func (op PatchOp) Edit() *FileEdit {
	fe := &FileEdit{Path: op.Path, MovePath: op.MovePath, Op: op.Op, OK: true, From: FromInput}
	oldHdr, newHdr := op.headers()
	fe.Fragment = op.Op == OpUpdate || op.Op == OpMove
	fe.Old, fe.New = op.Sides()
	hunks := Diff(fe.Old, fe.New)
	fe.Unified = FormatUnified(oldHdr, newHdr, hunks)
	fe.Added, fe.Removed = CountChanges(hunks)
	return fe
}

// WrittenEdit is a patch operation as a file edit whose diff keeps the
// hunks as the model wrote them: an added file's whole content, an
// update's hunks each as one hunk of the diff (a Fragment: V4A hunks carry
// no line numbers, so each starts at line 1), a deleted file with no diff.
// Old and New are set for an added file only; OK is left to the caller,
// who knows the call's outcome.
func (op PatchOp) WrittenEdit() *FileEdit {
	fe := &FileEdit{Path: op.Path, MovePath: op.MovePath, Op: op.Op, From: FromInput}
	oldHdr, newHdr := op.headers()
	var hunks []Hunk
	switch op.Op {
	case OpCreate:
		_, fe.New = op.Sides()
		hunks = Diff("", fe.New)
	case OpUpdate, OpMove:
		fe.Fragment = true
		for _, h := range op.Hunks {
			if len(h) > 0 {
				hunks = append(hunks, Hunk{OldStart: 1, NewStart: 1, Lines: h})
			}
		}
	}
	fe.Unified = FormatUnified(oldHdr, newHdr, hunks)
	fe.Added, fe.Removed = CountChanges(hunks)
	return fe
}

// headers are the paths a diff of the operation names on its --- and +++
// lines.
func (op PatchOp) headers() (oldHdr, newHdr string) {
	switch op.Op {
	case OpCreate:
		return "/dev/null", op.Path
	case OpDelete:
		return op.Path, "/dev/null"
	case OpMove:
		return op.Path, op.MovePath
	}
	return op.Path, op.Path
}

// FragmentDiff diffs a replaced text and its replacement as the lines they
// are part of: when neither ends a line, both go on the same way in the file
// (the rest of their last line), so they are compared as if it ended there
// — "a" to "a\n\nb" adds two lines, it does not replace one by three.
func FragmentDiff(old, new string) []Hunk {
	if old != "" && new != "" && !strings.HasSuffix(old, "\n") && !strings.HasSuffix(new, "\n") {
		old, new = old+"\n", new+"\n"
	}
	return Diff(old, new)
}
