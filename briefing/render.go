package briefing

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Excerpt lengths an item is tried at, longest first, before its title
// alone.
var textLimits = []int{320, 120}

// shares are the parts of the budget each section may take before every
// section has had its turn, in section order; what is left then goes to the
// items left, in section order. A long playbook cannot crowd out the
// memories the query found.
var shares = map[string]float64{SectionPlaybook: 0.3, SectionMemories: 0.3, SectionDecisions: 0.25, SectionTranscripts: 0.15}

// maxQueryShown bounds the query in the briefing's heading.
const maxQueryShown = 80

// selection is which form of each item a briefing shows, with the size in
// characters of every piece, so that trying a form costs an addition, not a
// render.
type selection struct {
	mat *Material
	// forms[s][i] are item i of section s's forms, longest first, and
	// sizes[s][i] their sizes.
	forms [][][]Item
	sizes [][][]int
	// pick[s][i] is the form shown of item i of section s, -1 when left out.
	pick  [][]int
	notes []bool
	// head is the size of the briefing's heading; heads and noteSizes those
	// of each section's heading and note.
	head             int
	heads, noteSizes []int
}

// size is the selection's size in characters.
func (sel *selection) size() int {
	n := sel.head
	for i := range sel.mat.Sections {
		n += sel.sectionSize(i)
	}
	return n
}

func (sel *selection) sectionSize(i int) int {
	n, any := 0, false
	for j, v := range sel.pick[i] {
		if v >= 0 {
			n += sel.sizes[i][j][v]
			any = true
		}
	}
	switch {
	case any:
		return sel.heads[i] + n
	case sel.notes[i]:
		return sel.heads[i] + sel.noteSizes[i]
	}
	return 0
}

// Render is the briefing of mat within budget tokens: the sections in
// order, each item at the longest form that fits, every section getting its
// share before the rest is filled. note, when set, opens the briefing (why
// synthesis was not used) and counts against the budget. Render is a pure
// function of its arguments.
func Render(mat *Material, budget int, note string) *Briefing {
	n := len(mat.Sections)
	sel := &selection{mat: mat, forms: make([][][]Item, n), sizes: make([][][]int, n), pick: make([][]int, n),
		notes: make([]bool, n), heads: make([]int, n), noteSizes: make([]int, n)}
	sel.head = runes(sel.heading(note))
	for i, s := range mat.Sections {
		sel.heads[i] = runes(sectionHeading(s.Title))
		sel.noteSizes[i] = runes(noteLine(s.Note))
		sel.forms[i] = make([][]Item, len(s.Items))
		sel.sizes[i] = make([][]int, len(s.Items))
		sel.pick[i] = make([]int, len(s.Items))
		for j, it := range s.Items {
			sel.forms[i][j] = variants(it)
			for _, f := range sel.forms[i][j] {
				var b strings.Builder
				writeItem(&b, f)
				sel.sizes[i][j] = append(sel.sizes[i][j], runes(b.String()))
			}
			sel.pick[i][j] = -1
		}
	}
	room := 4 * budget // Tokens(s) ≤ budget ⟺ characters ≤ 4 × budget
	fits := func() bool { return sel.size() <= room }
	// First turn: each section up to its share.
	for i, s := range mat.Sections {
		limit := 4 * int(shares[s.Name]*float64(budget))
		for j := range s.Items {
			for v := range sel.forms[i][j] {
				sel.pick[i][j] = v
				if fits() && sel.sectionSize(i) <= limit {
					break
				}
				sel.pick[i][j] = -1
			}
		}
	}
	// Second turn: what is left, in order.
	for i, s := range mat.Sections {
		for j := range s.Items {
			if sel.pick[i][j] >= 0 {
				continue
			}
			for v := range sel.forms[i][j] {
				sel.pick[i][j] = v
				if fits() {
					break
				}
				sel.pick[i][j] = -1
			}
		}
	}
	// The notes of empty sections, when they fit.
	for i, s := range mat.Sections {
		if s.Note == "" {
			continue
		}
		sel.notes[i] = true
		if !fits() {
			sel.notes[i] = false
		}
	}
	b := &Briefing{Query: mat.Query, Project: mat.Project, Budget: budget}
	for i, s := range mat.Sections {
		out := Section{Name: s.Name, Title: s.Title, Items: []Item{}}
		if sel.notes[i] {
			out.Note = s.Note
		}
		for j := range s.Items {
			if v := sel.pick[i][j]; v >= 0 {
				out.Items = append(out.Items, sel.forms[i][j][v])
			} else {
				b.Omitted++
			}
		}
		b.Sections = append(b.Sections, out)
	}
	b.Markdown = sel.markdown(note)
	b.Tokens = Tokens(b.Markdown)
	return b
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// variants are the forms an item can be shown in, longest first: its text
// at each limit with its edits, then its title with its edits, then its
// title alone.
func variants(it Item) []Item {
	var out []Item
	text := oneLine(it.Text) // once, not once per limit
	for _, n := range textLimits {
		v := it
		v.Text = clipLine(text, n)
		if v.Text == "" && len(out) > 0 {
			break
		}
		out = append(out, v)
	}
	v := it
	v.Text = ""
	out = append(out, v)
	if len(it.Edits) > 0 {
		v.Edits = nil
		out = append(out, v)
	}
	return out
}

// clip shortens s to at most n characters on one line, at a word boundary
// when there is one, with an ellipsis.
func clip(s string, n int) string { return clipLine(oneLine(s), n) }

// clipLine is clip of a text already on one line. It counts the characters
// it keeps rather than converting the text (a note's whole body) to runes.
func clipLine(s string, n int) string {
	if !utf8.ValidString(s) {
		// A broken byte counts as one character and is kept as U+FFFD.
		r := []rune(s)
		if len(r) <= n {
			return s
		}
		return cutAtSpace(string(r[:n-1]), n)
	}
	k, end := 0, 0
	for i := range s {
		if k == n-1 {
			end = i
		}
		if k == n { // more than n characters
			return cutAtSpace(s[:end], n)
		}
		k++
	}
	return s
}

func cutAtSpace(cut string, n int) string {
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return cut + "…"
}

func (sel *selection) heading(note string) string {
	h := fmt.Sprintf("# Briefing: %s\n\nProject %s.\n", clip(sel.mat.Query, maxQueryShown), sel.mat.Project)
	if note != "" {
		h += fmt.Sprintf("\n_%s_\n", note)
	}
	return h
}

func sectionHeading(title string) string { return "\n## " + title + "\n\n" }

func noteLine(note string) string { return "_" + note + "_\n" }

func (sel *selection) markdown(note string) string {
	var b strings.Builder
	b.WriteString(sel.heading(note))
	for i, s := range sel.mat.Sections {
		var body strings.Builder
		for j, v := range sel.pick[i] {
			if v >= 0 {
				writeItem(&body, sel.forms[i][j][v])
			}
		}
		switch {
		case body.Len() > 0:
			b.WriteString(sectionHeading(s.Title))
			b.WriteString(body.String())
		case sel.notes[i]:
			b.WriteString(sectionHeading(s.Title))
			b.WriteString(noteLine(s.Note))
		}
	}
	return b.String()
}

// writeItem writes one item: a line with what to cite and where to open it,
// its text below.
func writeItem(b *strings.Builder, it Item) {
	b.WriteString("- ")
	if it.Ban {
		b.WriteString("**Ban:** ")
	}
	if it.ShortID != "" {
		fmt.Fprintf(b, "[%s] ", it.ShortID)
	}
	b.WriteString(oneLine(it.Title))
	if it.Type != "" && it.Type != "playbook" && it.Type != "exchange" {
		fmt.Fprintf(b, " (%s)", it.Type)
	}
	if it.Path != "" {
		fmt.Fprintf(b, " — %s", it.Path)
	}
	b.WriteString("\n")
	if it.Text != "" {
		for _, l := range strings.Split(it.Text, "\n") {
			fmt.Fprintf(b, "  %s\n", l)
		}
	}
	for _, e := range it.Edits {
		fmt.Fprintf(b, "  - edit [%s] %s — %s\n", e.ShortID, oneLine(e.Title), e.Path)
	}
}
