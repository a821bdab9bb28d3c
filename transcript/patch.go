package transcript

import "strings"

// PatchOp is one file operation of an apply_patch patch ("V4A": *** Begin
// Patch, *** Add File: / *** Delete File: / *** Update File: <path> with
// an optional *** Move to:, hunks of " ", "-", "+" lines after "@@"
// markers, *** End Patch).
type PatchOp struct {
	Op       string // OpCreate, OpUpdate, OpMove or OpDelete
	Path     string
	MovePath string   // OpMove: where the file goes
	Lines    []string // Add File: the content; Update File: the hunk lines
}

// ParsePatch reads the file operations of a V4A patch (the apply_patch
// format of OpenAI's and GitHub's agents); what it cannot read is left out.
func ParsePatch(text string) []PatchOp {
	var out []PatchOp
	var cur *PatchOp
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSuffix(l, "\r")
		t := strings.TrimSpace(l)
		switch {
		case t == "*** Begin Patch", t == "*** End of File":
		case t == "*** End Patch":
			cur = nil
		case strings.HasPrefix(t, "*** Add File:"):
			out = append(out, PatchOp{Op: OpCreate, Path: strings.TrimSpace(t[len("*** Add File:"):])})
			cur = &out[len(out)-1]
		case strings.HasPrefix(t, "*** Delete File:"):
			out = append(out, PatchOp{Op: OpDelete, Path: strings.TrimSpace(t[len("*** Delete File:"):])})
			cur = &out[len(out)-1]
		case strings.HasPrefix(t, "*** Update File:"):
			out = append(out, PatchOp{Op: OpUpdate, Path: strings.TrimSpace(t[len("*** Update File:"):])})
			cur = &out[len(out)-1]
		case cur == nil:
		case strings.HasPrefix(t, "*** Move to:") && cur.Op == OpUpdate:
			if cur.MovePath = strings.TrimSpace(t[len("*** Move to:"):]); cur.MovePath != "" {
				cur.Op = OpMove
			}
		case strings.HasPrefix(l, "@@"):
		case l == "" && cur.Op != OpCreate:
			cur.Lines = append(cur.Lines, " ")
		case l != "" && (l[0] == ' ' || l[0] == '-' || l[0] == '+'):
			if cur.Op != OpCreate || l[0] == '+' {
				cur.Lines = append(cur.Lines, l)
			}
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

// Edit is a patch operation as a file edit: an added file's content, an
// update's hunks as the model wrote them (a Fragment), a deleted file with
// no diff (the patch does not hold its content).
func (op PatchOp) Edit() *FileEdit {
	fe := &FileEdit{Path: op.Path, MovePath: op.MovePath, Op: op.Op, OK: true, From: FromInput}
	var old, new strings.Builder
	for _, l := range op.Lines {
		switch l[0] {
		case ' ':
			old.WriteString(l[1:] + "\n")
			new.WriteString(l[1:] + "\n")
		case '-':
			old.WriteString(l[1:] + "\n")
		case '+':
			new.WriteString(l[1:] + "\n")
		}
	}
	oldHdr, newHdr := op.Path, op.Path
	switch op.Op {
	case OpCreate:
		oldHdr = "/dev/null"
	case OpDelete:
		newHdr = "/dev/null"
	case OpMove:
		newHdr = op.MovePath
		fe.Fragment = true
	default:
		fe.Fragment = true
	}
	fe.Old, fe.New = old.String(), new.String()
	hunks := Diff(fe.Old, fe.New)
	fe.Unified = FormatUnified(oldHdr, newHdr, hunks)
	fe.Added, fe.Removed = CountChanges(hunks)
	return fe
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
