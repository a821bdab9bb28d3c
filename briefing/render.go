package briefing

import (
	"fmt"
	"strings"
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

// choice is how an item is shown: at which variant (an index into
// variants), -1 when it is not.
type selection struct {
	mat *Material
	// pick[s][i] is the variant of item i of section s, -1 when left out.
	pick  [][]int
	notes []bool
}

// Render is the briefing of mat within budget tokens: the sections in
// order, each item at the longest form that fits, every section getting its
// share before the rest is filled. note, when set, opens the briefing (why
// synthesis was not used) and counts against the budget. Render is a pure
// function of its arguments.
func Render(mat *Material, budget int, note string) *Briefing {
	sel := &selection{mat: mat, pick: make([][]int, len(mat.Sections)), notes: make([]bool, len(mat.Sections))}
	for i, s := range mat.Sections {
		sel.pick[i] = make([]int, len(s.Items))
		for j := range sel.pick[i] {
			sel.pick[i][j] = -1
		}
	}
	fits := func() bool { return Tokens(sel.markdown(note)) <= budget }
	// First turn: each section up to its share.
	for i, s := range mat.Sections {
		limit := int(shares[s.Name] * float64(budget))
		for j, it := range s.Items {
			for v := range variants(it) {
				sel.pick[i][j] = v
				if fits() && Tokens(sel.section(i)) <= limit {
					break
				}
				sel.pick[i][j] = -1
			}
		}
	}
	// Second turn: what is left, in order.
	for i, s := range mat.Sections {
		for j, it := range s.Items {
			if sel.pick[i][j] >= 0 {
				continue
			}
			for v := range variants(it) {
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
		for j, it := range s.Items {
			if v := sel.pick[i][j]; v >= 0 {
				out.Items = append(out.Items, variants(it)[v])
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

// variants are the forms an item can be shown in, longest first: its text
// at each limit with its edits, then its title with its edits, then its
// title alone.
func variants(it Item) []Item {
	var out []Item
	for _, n := range textLimits {
		v := it
		v.Text = clip(it.Text, n)
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
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n-1])
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return cut + "…"
}

func (sel *selection) markdown(note string) string {
	var b strings.Builder
	q := clip(sel.mat.Query, maxQueryShown)
	fmt.Fprintf(&b, "# Briefing: %s\n\nProject %s.\n", q, sel.mat.Project)
	if note != "" {
		fmt.Fprintf(&b, "\n_%s_\n", note)
	}
	for i := range sel.mat.Sections {
		b.WriteString(sel.section(i))
	}
	return b.String()
}

// section is section i's markdown as chosen: empty when nothing of it is
// shown.
func (sel *selection) section(i int) string {
	s := sel.mat.Sections[i]
	var b strings.Builder
	for j, it := range s.Items {
		if v := sel.pick[i][j]; v >= 0 {
			writeItem(&b, variants(it)[v])
		}
	}
	if b.Len() == 0 && !sel.notes[i] {
		return ""
	}
	body := b.String()
	if body == "" {
		body = "_" + s.Note + "_\n"
	}
	return "\n## " + s.Title + "\n\n" + body
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
