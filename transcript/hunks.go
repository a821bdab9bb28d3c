package transcript

import (
	"strconv"
	"strings"
)

// ReadHunks reads the hunks of a unified diff as tools write it for people,
// leniently: anything outside hunks is skipped (an "Index:" line, "===="
// rules, --- and +++ headers with a tab and a label after the path, a
// markdown fence around the whole). A hunk holds the lines its header counts
// (an empty line among them is an unchanged empty line) and a "\ No newline"
// marker after them; a line that cannot be a hunk line ends it early, and
// then the counts are taken from the lines read (the header's starts are
// kept). A hunk header it cannot read is skipped with its lines; a hunk
// without lines is dropped.
func ReadHunks(diff string) []Hunk {
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	var out []Hunk
	cur := -1
	var wantOld, wantNew, seenOld, seenNew int
	for _, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		within := cur >= 0 && (seenOld < wantOld || seenNew < wantNew)
		if !within && strings.HasPrefix(l, "@@") {
			cur = -1
			oldStart, oldN, newStart, newN, ok := readHunkHeader(l)
			if !ok {
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
			out = append(out, Hunk{OldStart: oldStart, NewStart: newStart})
			cur = len(out) - 1
			wantOld, wantNew, seenOld, seenNew = oldN, newN, 0, 0
			continue
		}
		if cur < 0 {
			continue
		}
		h := &out[cur]
		switch {
		case within && l == "":
			h.Lines = append(h.Lines, " ")
			seenOld++
			seenNew++
		case l != "" && l[0] == '\\':
			h.Lines = append(h.Lines, l)
		case within && l[0] == ' ':
			h.Lines = append(h.Lines, l)
			seenOld++
			seenNew++
		case within && l[0] == '-':
			h.Lines = append(h.Lines, l)
			seenOld++
		case within && l[0] == '+':
			h.Lines = append(h.Lines, l)
			seenNew++
		default:
			cur = -1
		}
	}
	kept := out[:0]
	for _, h := range out {
		for _, l := range h.Lines {
			switch l[0] {
			case ' ':
				h.OldLines++
				h.NewLines++
			case '-':
				h.OldLines++
			case '+':
				h.NewLines++
			}
		}
		if h.OldLines+h.NewLines > 0 {
			kept = append(kept, h)
		}
	}
	return kept
}

// readHunkHeader reads "@@ -a[,b] +c[,d] @@…".
func readHunkHeader(l string) (oldStart, oldN, newStart, newN int, ok bool) {
	f := strings.Fields(l)
	if len(f) < 3 || f[0] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, 0, 0, false
	}
	var ok1, ok2 bool
	oldStart, oldN, ok1 = readHunkRange(f[1][1:])
	newStart, newN, ok2 = readHunkRange(f[2][1:])
	return oldStart, oldN, newStart, newN, ok1 && ok2
}

// maxHunkLine bounds a hunk's start and count: no file has more lines, and
// the arithmetic on them (a start moved past an empty side, start plus
// count) cannot overflow.
const maxHunkLine = 1 << 31

func readHunkRange(r string) (start, n int, ok bool) {
	s, c, hasCount := strings.Cut(r, ",")
	start, err := strconv.Atoi(s)
	if err != nil || start < 0 || start > maxHunkLine {
		return 0, 0, false
	}
	n = 1
	if hasCount {
		if n, err = strconv.Atoi(c); err != nil || n < 0 || n > maxHunkLine {
			return 0, 0, false
		}
	}
	return start, n, true
}
