package security

import (
	"cmp"
	"slices"
	"strings"
)

// maxRedactRounds bounds the rescans of Redact. A marker can end a token
// early ("AKIA…" followed by a secret that becomes "[REDACTED:…]" now ends at
// a boundary), so the output is scanned again until it is clean; real text
// needs one or two rounds.
const maxRedactRounds = 8

// Redact replaces every credential finding with "[REDACTED:<rule>]" and
// returns the new text and the findings replaced, one per marker, with
// offsets in text. Overlapping findings are merged into one marker named after
// the longest (then the first), so no part of a secret is left; every other
// byte is kept. Redacting the output again changes nothing.
func Redact(text string) (string, []Finding) {
	found := mergeSpans(ScanCredentials(text))
	if len(found) == 0 {
		return text, nil
	}
	out, marks := applyMarkers(text, found)
	for round := 1; round < maxRedactRounds; round++ {
		more := ScanCredentials(out)
		if len(more) == 0 {
			break
		}
		grown := false
		for _, f := range more {
			f.Start, f.End = toInput(marks, f.Start, false), toInput(marks, f.End, true)
			if !covered(found, f) {
				grown = true
			}
			found = append(found, f)
		}
		if !grown {
			break
		}
		found = mergeSpans(found)
		out, marks = applyMarkers(text, found)
	}
	return out, finish(text, found)
}

// mergeSpans merges overlapping findings whatever their rule; the longest
// names the merged span, the earliest when two are as long.
func mergeSpans(fs []Finding) []Finding {
	if len(fs) == 0 {
		return nil
	}
	fs = slices.Clone(fs)
	slices.SortFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(b.End, a.End), strings.Compare(a.Rule, b.Rule))
	})
	out := fs[:1]
	longest := fs[0].End - fs[0].Start
	for _, f := range fs[1:] {
		p := &out[len(out)-1]
		if f.Start < p.End {
			if n := f.End - f.Start; n > longest {
				p.Rule, p.Category, longest = f.Rule, f.Category, n
			}
			p.End = max(p.End, f.End)
			continue
		}
		out = append(out, f)
		longest = f.End - f.Start
	}
	return out
}

func covered(fs []Finding, f Finding) bool {
	for _, g := range fs {
		if g.Start <= f.Start && f.End <= g.End {
			return true
		}
	}
	return false
}

// mark records one replacement: text[in0:in1] became out[out0:out1].
type mark struct{ in0, in1, out0, out1 int }

func applyMarkers(text string, fs []Finding) (string, []mark) {
	var b strings.Builder
	marks := make([]mark, 0, len(fs))
	at := 0
	for _, f := range fs {
		b.WriteString(text[at:f.Start])
		m := mark{in0: f.Start, in1: f.End, out0: b.Len()}
		b.WriteString(redactedPrefix)
		b.WriteString(f.Rule)
		b.WriteByte(']')
		m.out1 = b.Len()
		marks = append(marks, m)
		at = f.End
	}
	b.WriteString(text[at:])
	return b.String(), marks
}

// toInput maps an offset of the redacted text back to the input: inside a
// marker, to the start (or, for an end, the end) of what it replaced.
func toInput(marks []mark, pos int, isEnd bool) int {
	delta := 0
	for _, m := range marks {
		if pos <= m.out0 {
			break
		}
		if pos < m.out1 {
			if isEnd {
				return m.in1
			}
			return m.in0
		}
		delta = m.in1 - m.out1
	}
	return pos + delta
}
