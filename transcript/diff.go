package transcript

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// DiffContext is the number of unchanged lines Diff keeps around a change.
const DiffContext = 3

// maxEdits bounds the work of Diff: past this many differing lines it stops
// looking for the shortest edit and replaces the rest of the differing middle
// whole — still a correct diff, only a longer one.
const maxEdits = 1000

// noNewline is the line a unified diff puts after a line that has no newline.
const noNewline = `\ No newline at end of file`

// Hunk is one hunk of a unified diff, in the form of jsdiff's structuredPatch
// (which Claude Code writes): starts are 1-based, and a side the hunk covers
// no line of starts where it would insert (FormatUnified writes that start one
// lower, as the format wants). Lines carry their prefix: ' ' unchanged, '-'
// removed, '+' added, and `\ No newline at end of file` after a line that
// has no newline.
type Hunk struct {
	OldStart int      `json:"oldStart"`
	OldLines int      `json:"oldLines"`
	NewStart int      `json:"newStart"`
	NewLines int      `json:"newLines"`
	Lines    []string `json:"lines"`
}

// UnifiedDiff returns the unified diff from old to new (empty when they are
// equal), naming the files oldPath and newPath (/dev/null for a side that does
// not exist).
func UnifiedDiff(oldPath, newPath, old, new string) string {
	return FormatUnified(oldPath, newPath, Diff(old, new))
}

// FormatUnified writes hunks as a unified diff. Each hunk's line counts are
// taken from its lines, so the result is well formed whatever the counts
// said. No hunks give an empty string.
func FormatUnified(oldPath, newPath string, hunks []Hunk) string {
	if len(hunks) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("--- " + headerPath(oldPath) + "\n+++ " + headerPath(newPath) + "\n")
	for _, h := range hunks {
		oldN, newN := 0, 0
		for _, l := range h.Lines {
			switch {
			case strings.HasPrefix(l, "-"):
				oldN++
			case strings.HasPrefix(l, "+"):
				newN++
			case strings.HasPrefix(l, `\`):
			default:
				oldN++
				newN++
			}
		}
		b.WriteString("@@ -" + rangeOf(h.OldStart, oldN) + " +" + rangeOf(h.NewStart, newN) + " @@\n")
		for _, l := range h.Lines {
			switch {
			case l == "":
				b.WriteString(" \n") // an unchanged empty line whose prefix was lost
			case l[0] == ' ' || l[0] == '-' || l[0] == '+' || l[0] == '\\':
				b.WriteString(l + "\n")
			default:
				b.WriteString(" " + l + "\n")
			}
		}
	}
	return b.String()
}

func rangeOf(start, n int) string {
	if n == 0 {
		start--
	}
	return strconv.Itoa(max(start, 0)) + "," + strconv.Itoa(n)
}

// CountChanges counts the added and removed lines of hunks.
func CountChanges(hunks []Hunk) (added, removed int) {
	for _, h := range hunks {
		for _, l := range h.Lines {
			switch {
			case strings.HasPrefix(l, "+"):
				added++
			case strings.HasPrefix(l, "-"):
				removed++
			}
		}
	}
	return added, removed
}

// splitLines splits s into lines that keep their "\n" (the last may have
// none).
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	out := make([]string, 0, n)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// edit is one step of an edit script: kind ' ', '-' or '+'; a and b are the
// positions in the old and new lines before the step.
type edit struct {
	kind byte
	a, b int
}

// Diff returns the hunks (with DiffContext lines of context) that turn old
// into new, from a shortest line edit script (Myers' algorithm) when it is
// found within a bounded effort. Lines are compared with their newline, so a
// last line losing or gaining its newline is a change.
func Diff(old, new string) []Hunk {
	a, b := splitLines(old), splitLines(new)
	return hunks(a, b, script(a, b), DiffContext)
}

// script returns an edit script from a to b.
func script(a, b []string) []edit {
	// Intern lines to ints so comparing is cheap.
	ids := map[string]int{}
	x, y := make([]int, len(a)), make([]int, len(b))
	for i, l := range a {
		id, ok := ids[l]
		if !ok {
			id = len(ids)
			ids[l] = id
		}
		x[i] = id
	}
	for i, l := range b {
		id, ok := ids[l]
		if !ok {
			id = len(ids)
			ids[l] = id
		}
		y[i] = id
	}
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	out := make([]edit, 0, len(x)+len(y))
	for i := range pre {
		out = append(out, edit{' ', i, i})
	}
	out = append(out, myers(x[pre:len(x)-suf], y[pre:len(y)-suf], pre, pre)...)
	for i := range suf {
		out = append(out, edit{' ', len(x) - suf + i, len(y) - suf + i})
	}
	return out
}

// myers returns a shortest edit script from x to y (offsets ox, oy added to
// positions), or a whole replacement when it needs more than maxEdits edits.
func myers(x, y []int, ox, oy int) []edit {
	n, m := len(x), len(y)
	replace := func() []edit {
		out := make([]edit, 0, n+m)
		for i := range n {
			out = append(out, edit{'-', ox + i, oy})
		}
		for j := range m {
			out = append(out, edit{'+', ox + n, oy + j})
		}
		return out
	}
	if n == 0 || m == 0 {
		return replace()
	}
	limit := min(n+m, maxEdits)
	off := limit + 1
	v := make([]int32, 2*limit+3)
	var trace [][]int32
	found := -1
	for d := 0; d <= limit && found < 0; d++ {
		trace = append(trace, append([]int32(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var i int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				i = int(v[off+k+1]) // down: an insertion
			} else {
				i = int(v[off+k-1]) + 1 // right: a deletion
			}
			j := i - k
			for i < n && j < m && x[i] == y[j] {
				i++
				j++
			}
			v[off+k] = int32(i)
			if i >= n && j >= m {
				found = d
				break
			}
		}
	}
	if found < 0 {
		return replace()
	}
	// Walk back through the saved rows: trace[d] is v as round d found it
	// (the result of round d-1), holding diagonals -d-1 .. d+1.
	var rev []edit
	i, j := n, m
	for d := found; d >= 0; d-- {
		prev := trace[d]
		get := func(k int) int { return int(prev[k+d+1]) }
		k := i - j
		pk := k - 1
		if k == -d || k != d && get(k-1) < get(k+1) {
			pk = k + 1
		}
		pi := get(pk)
		pj := pi - pk
		for i > pi && j > pj {
			i--
			j--
			rev = append(rev, edit{' ', ox + i, oy + j})
		}
		if d > 0 {
			if pk == k+1 {
				rev = append(rev, edit{'+', ox + pi, oy + pj})
			} else {
				rev = append(rev, edit{'-', ox + pi, oy + pj})
			}
		}
		i, j = pi, pj
	}
	out := make([]edit, len(rev))
	for k := range rev {
		out[k] = rev[len(rev)-1-k]
	}
	return out
}

// hunks groups an edit script into hunks with ctx lines of context, merging
// changes closer than 2·ctx lines.
func hunks(a, b []string, es []edit, ctx int) []Hunk {
	var out []Hunk
	i := 0
	for i < len(es) {
		for i < len(es) && es[i].kind == ' ' {
			i++
		}
		if i == len(es) {
			break
		}
		start := max(0, i-ctx) // after the previous hunk's end: changes closer were merged
		end := i
		for {
			for end < len(es) && es[end].kind != ' ' {
				end++
			}
			j := end
			for j < len(es) && es[j].kind == ' ' {
				j++
			}
			if j < len(es) && j-end <= 2*ctx {
				end = j
				continue
			}
			end = min(end+ctx, j)
			break
		}
		h := Hunk{OldStart: es[start].a + 1, NewStart: es[start].b + 1}
		for _, e := range es[start:end] {
			var line string
			switch e.kind {
			case ' ', '-':
				line = a[e.a]
			case '+':
				line = b[e.b]
			}
			switch e.kind {
			case ' ':
				h.OldLines++
				h.NewLines++
			case '-':
				h.OldLines++
			case '+':
				h.NewLines++
			}
			h.Lines = append(h.Lines, string(e.kind)+strings.TrimSuffix(line, "\n"))
			if !strings.HasSuffix(line, "\n") {
				h.Lines = append(h.Lines, noNewline)
			}
		}
		out = append(out, h)
		i = end
	}
	return out
}

// ParseUnified reads a unified diff as FormatUnified writes it: the --- and
// +++ headers (any lines before them are ignored), then hunks whose counts
// must match their lines.
func ParseUnified(s string) (oldPath, newPath string, hs []Hunk, err error) {
	if s == "" {
		return "", "", nil, nil
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	i := 0
	for i < len(lines) && !strings.HasPrefix(lines[i], "--- ") {
		i++
	}
	if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ ") {
		return "", "", nil, errors.New("no --- and +++ headers")
	}
	oldPath, newPath = lines[i][4:], lines[i+1][4:]
	i += 2
	for i < len(lines) {
		h, err := parseHeader(lines[i])
		if err != nil {
			return oldPath, newPath, hs, fmt.Errorf("line %d: %w", i+1, err)
		}
		i++
		oldN, newN := 0, 0
		for i < len(lines) && (oldN < h.OldLines || newN < h.NewLines || strings.HasPrefix(lines[i], `\`)) {
			l := lines[i]
			switch {
			case l == "":
				return oldPath, newPath, hs, fmt.Errorf("line %d: an empty line inside a hunk", i+1)
			case l[0] == ' ':
				oldN++
				newN++
			case l[0] == '-':
				oldN++
			case l[0] == '+':
				newN++
			case l[0] == '\\':
			default:
				return oldPath, newPath, hs, fmt.Errorf("line %d: %q is not a hunk line", i+1, l)
			}
			h.Lines = append(h.Lines, l)
			i++
		}
		if oldN != h.OldLines || newN != h.NewLines {
			return oldPath, newPath, hs, fmt.Errorf("hunk at -%d,%d +%d,%d has %d old and %d new lines", h.OldStart, h.OldLines, h.NewStart, h.NewLines, oldN, newN)
		}
		if h.OldLines == 0 {
			h.OldStart++
		}
		if h.NewLines == 0 {
			h.NewStart++
		}
		hs = append(hs, h)
	}
	return oldPath, newPath, hs, nil
}

func parseHeader(l string) (Hunk, error) {
	var h Hunk
	rest, ok := strings.CutPrefix(l, "@@ -")
	if !ok {
		return h, fmt.Errorf("%q is not a hunk header", l)
	}
	oldR, rest, ok1 := strings.Cut(rest, " +")
	newR, _, ok2 := strings.Cut(rest, " @@")
	if !ok1 || !ok2 {
		return h, fmt.Errorf("%q is not a hunk header", l)
	}
	var err1, err2 error
	h.OldStart, h.OldLines, err1 = parseRange(oldR)
	h.NewStart, h.NewLines, err2 = parseRange(newR)
	if err := errors.Join(err1, err2); err != nil {
		return h, fmt.Errorf("%q: %w", l, err)
	}
	return h, nil
}

func parseRange(r string) (start, n int, err error) {
	s, c, hasCount := strings.Cut(r, ",")
	start, err = strconv.Atoi(s)
	if err != nil || start < 0 {
		return 0, 0, fmt.Errorf("bad range %q", r)
	}
	n = 1
	if hasCount {
		n, err = strconv.Atoi(c)
		if err != nil || n < 0 {
			return 0, 0, fmt.Errorf("bad range %q", r)
		}
	}
	return start, n, nil
}

// Apply applies hunks to old and returns the new text. Every context and
// removed line must match; hunks must be in order and not overlap.
func Apply(old string, hs []Hunk) (string, error) {
	a := splitLines(old)
	var out []byte
	pos := 0 // lines of a consumed
	for n, h := range hs {
		at := h.OldStart - 1
		if at < pos || at > len(a) {
			return "", fmt.Errorf("hunk %d starts at old line %d, outside %d..%d", n+1, h.OldStart, pos+1, len(a)+1)
		}
		for _, l := range a[pos:at] {
			out = append(out, l...)
		}
		pos = at
		wrote := false // the last hunk line went to the output (so a marker drops its newline)
		for _, l := range h.Lines {
			if l == "" {
				l = " "
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(a) || strings.TrimSuffix(a[pos], "\n") != l[1:] {
					return "", fmt.Errorf("hunk %d: old line %d is not %q", n+1, pos+1, l[1:])
				}
				pos++
				wrote = l[0] == ' '
				if wrote {
					out = append(append(out, l[1:]...), '\n')
				}
			case '+':
				out = append(append(out, l[1:]...), '\n')
				wrote = true
			case '\\':
				if wrote {
					out = out[:len(out)-1]
					wrote = false
				}
			default:
				return "", fmt.Errorf("hunk %d: %q is not a hunk line", n+1, l)
			}
		}
	}
	for _, l := range a[pos:] {
		out = append(out, l...)
	}
	return string(out), nil
}

// headerPath is a path as a diff's --- and +++ lines name it: quoted, as git
// quotes one, when it holds a line break or another control character that
// would break the header line. A quoted path has none left, so quoting is
// done once however often a path passes here.
func headerPath(path string) string {
	if strings.IndexFunc(path, func(r rune) bool { return r < ' ' || r == 0x7f }) < 0 {
		return path
	}
	return strconv.Quote(path)
}
