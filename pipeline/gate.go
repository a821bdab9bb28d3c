package pipeline

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Category groups commitment markers.
type Category string

// The marker categories of SPEC §7, in the order Decision.Categories lists
// them.
const (
	CategoryDecision   Category = "decision"   // use, adopt, go with, switch to, migrate to, decide, choose, settle on, pick
	CategoryRejection  Category = "rejection"  // instead of, rather than, as opposed to, in favour of
	CategoryBan        Category = "ban"        // never use, don't add, no new dependency
	CategoryImperative Category = "imperative" // must, always, never, shall, required to
	CategoryMemory     Category = "memory"     // remember that, keep in mind, note that, from now on, going forward
)

var categories = []Category{CategoryDecision, CategoryRejection, CategoryBan, CategoryImperative, CategoryMemory}

// Rule is one row of the gate's table: a regular expression (Go syntax, RE2)
// that finds a marker. When the pattern has a group named "m", the marker is
// what that group matched (the rest is context, such as the start of a
// clause); otherwise the whole match. Patterns are matched case-insensitively
// and with ^ and $ at line ends.
type Rule struct {
	ID       string   `json:"id" yaml:"id"`
	Category Category `json:"category" yaml:"category"`
	Pattern  string   `json:"pattern" yaml:"pattern"`
	// Hints, when given, are lower-case words one of which every match
	// holds: a text holding none is not matched against the pattern at
	// all, which keeps the gate fast.
	Hints []string `json:"hints,omitempty" yaml:"hints,omitempty"`
}

// Match is one marker found in a turn. Start and End are byte offsets into the
// turn's text as the transcript holds it (before redaction).
type Match struct {
	Rule     string   `json:"rule"`
	Category Category `json:"category"`
	Start    int      `json:"start"`
	End      int      `json:"end"`
	Text     string   `json:"text"`
	// Question marks a marker inside a sentence that asks ("should we use
	// X?"): recorded, but it admits nothing.
	Question bool `json:"question,omitempty"`
	// Task, when set, says what the marker asks of the task at hand
	// (TaskTool, TaskRecall, TaskMemory) instead of stating a choice about
	// the project ("use a subagent to list the files"): recorded, but it
	// admits nothing.
	Task string `json:"task,omitempty"`
}

// Commits reports whether the marker commits the person to something
// beyond the task at hand: it stands outside a question and asks nothing
// of the task. Only such markers admit a turn.
func (m Match) Commits() bool { return !m.Question && m.Task == "" }

// Verdict is what the gate found in a turn.
type Verdict struct {
	// Matches are every marker, by offset (then rule order).
	Matches []Match
	// Admits is set when a marker commits (Match.Commits).
	Admits bool
	// IsBan is set when a ban marker commits.
	IsBan bool
}

// Gate finds commitment markers in what a person typed.
type Gate struct {
	rules []compiledRule
}

type compiledRule struct {
	Rule
	re    *regexp.Regexp
	group int // the "m" group, or 0
}

// Clause leads: where an imperative or a committed decision verb starts —
// the start of a line (after a list bullet), of a sentence or clause, or
// after words that commit ("let's", "we'll", "please", "actually,").
const (
	leadWords = `actually|ok|okay|no|yes|alright|fine|instead|please|let's|let’s|let us|we'll|we’ll|we will|we should|we're going to|we’re going to|we are going to|i want to|i'd like to|i’d like to|i want you to|you should|from now on|going forward|decided to|now|just|then`
	lead      = `(?:^[ \t]*(?:[-*+][ \t]+|\d+[.)][ \t]+)?|[.!?;:,][ \t]+|\b(?:` + leadWords + `)[,:]?[ \t]+)`
	// imperativeLead also accepts a subject the imperative is addressed to.
	imperativeLead = `(?:` + lead + `|\b(?:we|you|please|and|but|should|must|will)[ \t]+)`
	apos           = `['’]`
)

// DefaultRules is the rule table of SPEC §7.
func DefaultRules() []Rule {
	return []Rule{
		{"decision.use", CategoryDecision, lead + `(?P<m>use)\s+\S`, []string{"use"}},
		{"decision.go_with", CategoryDecision, `\b(?P<m>go(?:ing)?\s+with)\b`, []string{"with"}},
		{"decision.switch_to", CategoryDecision, `\b(?P<m>switch(?:ing|ed)?\s+(?:over\s+)?to)\b`, []string{"switch"}},
		{"decision.migrate_to", CategoryDecision, `\b(?P<m>migrat(?:e|ing|ed)\s+(?:[\w./-]+\s+){0,3}?to)\b`, []string{"migrat"}},
		{"decision.adopt", CategoryDecision, `\b(?P<m>adopt(?:ing|ed)?)\b`, []string{"adopt"}},
		{"decision.decide", CategoryDecision, `(?P<m>\bdecided\b|\bdecision\s*:|\b(?:the|our|my)\s+decision\s+is\b)`, []string{"decid", "decision"}},
		{"decision.choose", CategoryDecision, `\b(?P<m>choose|chose|chosen)\b`, []string{"cho"}},
		{"decision.settle_on", CategoryDecision, `\b(?P<m>settl(?:e|ed|ing)\s+on)\b`, []string{"settl"}},
		{"decision.pick", CategoryDecision, lead + `(?P<m>pick)\s+\S`, []string{"pick"}},
		{"decision.stick_with", CategoryDecision, `\b(?P<m>stick(?:ing)?\s+with|stay(?:ing)?\s+with|keep\s+using)\b`, []string{"with", "keep"}},

		{"rejection.instead_of", CategoryRejection, `\b(?P<m>instead\s+of)\b`, []string{"instead"}},
		{"rejection.rather_than", CategoryRejection, `\b(?P<m>rather\s+than)\b`, []string{"rather"}},
		{"rejection.as_opposed_to", CategoryRejection, `\b(?P<m>as\s+opposed\s+to)\b`, []string{"opposed"}},
		{"rejection.in_favour_of", CategoryRejection, `\b(?P<m>in\s+favou?r\s+of)\b`, []string{"favo"}},

		{"ban.never_use", CategoryBan, `\b(?P<m>(?:never|don` + apos + `t|do\s+not|won` + apos + `t|will\s+not|must\s+not|mustn` + apos + `t|shouldn` + apos + `t|should\s+not|can` + apos + `t|cannot|stop)\s+(?:ever\s+)?(?:use|using|add|adding|adopt|depend(?:ing)?\s+on|introduce|rely(?:ing)?\s+on|import|install|pull\s+in|bring\s+in))\b`, []string{"never", "n't", "n’t", "not", "stop"}},
		{"ban.no_new_dependency", CategoryBan, `\b(?P<m>no\s+(?:new|more|extra|additional|external|third[- ]party)\s+(?:dependenc(?:y|ies)|deps?|libraries|packages)|no\s+dependenc(?:y|ies))\b`, []string{"no"}},
		{"ban.avoid", CategoryBan, `\b(?P<m>avoid\s+(?:using|adding|introducing|depending\s+on))\b`, []string{"avoid"}},

		{"imperative.must", CategoryImperative, `\b(?P<m>must)\b`, []string{"must"}},
		{"imperative.always", CategoryImperative, imperativeLead + `(?P<m>always)(?:[^\w-]|$)`, []string{"always"}},
		{"imperative.never", CategoryImperative, imperativeLead + `(?P<m>never)(?:[^\w-]|$)`, []string{"never"}},
		{"imperative.shall", CategoryImperative, `\b(?P<m>shall)\b`, []string{"shall"}},
		{"imperative.required_to", CategoryImperative, `\b(?P<m>required\s+to)\b`, []string{"required"}},

		{"memory.remember", CategoryMemory, lead + `(?P<m>remember)\b`, []string{"remember"}},
		{"memory.remember_that", CategoryMemory, `\b(?P<m>remember\s+(?:that|this))\b`, []string{"remember"}},
		{"memory.keep_in_mind", CategoryMemory, `\b(?P<m>keep\s+in\s+mind)\b`, []string{"mind"}},
		{"memory.note_that", CategoryMemory, lead + `(?P<m>note\s+that)\b`, []string{"note"}},
		{"memory.for_future_reference", CategoryMemory, `\b(?P<m>for\s+future\s+reference)\b`, []string{"future"}},
		{"memory.from_now_on", CategoryMemory, `\b(?P<m>from\s+now\s+on)\b`, []string{"now"}},
		{"memory.going_forward", CategoryMemory, `\b(?P<m>going\s+forward)\b`, []string{"forward"}},
	}
}

// NewGate compiles a rule table. Every rule needs an id (unique), a known
// category and a pattern that compiles; the error names the rule and what is
// wrong with it.
func NewGate(rules []Rule) (*Gate, error) {
	if len(rules) == 0 {
		return nil, errors.New("gate rules: the table is empty")
	}
	g := &Gate{}
	seen := map[string]bool{}
	for i, r := range rules {
		where := fmt.Sprintf("gate rule %d", i+1)
		if r.ID != "" {
			where = fmt.Sprintf("gate rule %q", r.ID)
		}
		switch {
		case r.ID == "":
			return nil, fmt.Errorf("%s: id: must not be empty", where)
		case seen[r.ID]:
			return nil, fmt.Errorf("%s: id: used twice", where)
		case !slices.Contains(categories, r.Category):
			return nil, fmt.Errorf("%s: category: %q is not one of %s", where, r.Category, categoryList())
		case strings.TrimSpace(r.Pattern) == "":
			return nil, fmt.Errorf("%s: pattern: must not be empty", where)
		}
		seen[r.ID] = true
		re, err := regexp.Compile(`(?im)` + r.Pattern)
		if err != nil {
			return nil, fmt.Errorf("%s: pattern: %w", where, err)
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("%s: pattern: matches empty text", where)
		}
		for _, h := range r.Hints {
			if h == "" || h != strings.ToLower(h) {
				return nil, fmt.Errorf("%s: hints: %q must be a non-empty lower-case word", where, h)
			}
		}
		group := max(re.SubexpIndex("m"), 0)
		g.rules = append(g.rules, compiledRule{Rule: r, re: re, group: group})
	}
	return g, nil
}

func categoryList() string {
	var s []string
	for _, c := range categories {
		s = append(s, string(c))
	}
	return strings.Join(s, ", ")
}

// DefaultGate is the gate of DefaultRules. A Gate is never changed after
// NewGate, so every caller shares one.
func DefaultGate() *Gate { return defaultGate() }

var defaultGate = sync.OnceValue(func() *Gate {
	g, err := NewGate(DefaultRules())
	if err != nil {
		panic("pipeline: the default gate rules do not compile: " + err.Error())
	}
	return g
})

// Rules returns the gate's table.
func (g *Gate) Rules() []Rule {
	out := make([]Rule, len(g.rules))
	for i, r := range g.rules {
		out[i] = r.Rule
	}
	return out
}

// Check finds every marker in text. Markers inside code (fenced blocks and
// inline `code`) are not markers: pasted logs and snippets commit to nothing.
func (g *Gate) Check(text string) Verdict {
	var v Verdict
	if text == "" {
		return v
	}
	code := codeSpans(text)
	lower := strings.ToLower(text)
	var sentences []span // computed when the first marker is found
	memoryWords := mentionsMemory(lower)
	for _, r := range g.rules {
		if len(r.Hints) > 0 && !slices.ContainsFunc(r.Hints, func(h string) bool { return strings.Contains(lower, h) }) {
			continue
		}
		for _, loc := range r.re.FindAllStringSubmatchIndex(text, -1) {
			s, e := loc[2*r.group], loc[2*r.group+1]
			if s < 0 || s == e || inSpans(code, s) {
				continue
			}
			if sentences == nil {
				sentences = splitSentences(text)
			}
			m := Match{Rule: r.ID, Category: r.Category, Start: s, End: e, Text: text[s:e]}
			if sn, ok := sentenceAt(sentences, s); ok {
				if sn.question {
					m.Question = true
				} else {
					m.Task = taskOf(text, sn, m, memoryWords)
				}
			}
			v.Matches = append(v.Matches, m)
		}
	}
	// Matches were found rule by rule: a stable sort by offset keeps rule
	// order among markers at the same place.
	slices.SortStableFunc(v.Matches, func(a, b Match) int { return a.Start - b.Start })
	meansOnly(sentences, v.Matches)
	for _, m := range v.Matches {
		if m.Commits() {
			v.Admits = true
			v.IsBan = v.IsBan || m.Category == CategoryBan
		}
	}
	return v
}

// meansOnly extends a choice of the agent's means to the alternatives its
// sentence rejects: in "use a subagent instead of doing it yourself" the
// rejection is of the task's means too.
func meansOnly(sentences []span, ms []Match) {
	for i := range ms {
		if ms[i].Task != TaskTool {
			continue
		}
		sn, _ := sentenceAt(sentences, ms[i].Start)
		for j := range ms {
			if ms[j].Category == CategoryRejection && ms[j].Commits() && ms[j].Start >= sn.start && ms[j].Start < sn.end {
				ms[j].Task = TaskTool
			}
		}
	}
}

// span is a byte range [start, end) of a text.
type span struct {
	start, end int
	question   bool
}

func inSpans(spans []span, i int) bool {
	for _, s := range spans {
		if i >= s.start && i < s.end {
			return true
		}
		if s.start > i {
			break
		}
	}
	return false
}

// codeSpans finds the fenced code blocks (``` or ~~~ at a line's start, to
// the closing fence or the end) and inline code spans (`…` on one line) of
// text, in order.
func codeSpans(text string) []span {
	if !strings.ContainsAny(text, "`~") {
		return nil
	}
	var out []span
	fence := ""
	fenceStart := 0
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += off + 1
		}
		line := text[off:end]
		trimmed := strings.TrimLeft(line, " \t")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				out = append(out, span{start: fenceStart, end: end})
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence, fenceStart = trimmed[:3], off
		default:
			for i := 0; i < len(line); i++ {
				if line[i] != '`' {
					continue
				}
				j := strings.IndexByte(line[i+1:], '`')
				if j < 0 {
					break
				}
				out = append(out, span{start: off + i, end: off + i + 1 + j + 1})
				i += j + 1
			}
		}
		off = end
	}
	if fence != "" {
		out = append(out, span{start: fenceStart, end: len(text)})
	}
	return out
}

// splitSentences cuts text into sentences: a sentence ends after '.', '!' or
// '?' followed by white space (or the end), and at every line break. A
// sentence whose last mark is '?' is a question. Spans exclude the white
// space around them; empty ones are left out.
func splitSentences(text string) []span {
	var out []span
	start := 0
	emit := func(end int) {
		s, e := start, end
		for s < e && isSpace(text[s]) {
			s++
		}
		for e > s && isSpace(text[e-1]) {
			e--
		}
		if s < e {
			q := text[e-1] == '?' || (e-s >= 2 && text[e-2] == '?' && strings.ContainsRune(`"')]*_`, rune(text[e-1])))
			out = append(out, span{start: s, end: e, question: q})
		}
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\n':
			emit(i)
			start = i + 1
		case c == '.' || c == '!' || c == '?':
			if i+1 == len(text) || isSpace(text[i+1]) {
				emit(i + 1)
				start = i + 1
			}
		}
	}
	emit(len(text))
	return out
}

func sentenceAt(sentences []span, i int) (span, bool) {
	for _, s := range sentences {
		if i >= s.start && i < s.end {
			return s, true
		}
	}
	return span{}, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
