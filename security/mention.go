package security

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// A note that documents an attack quotes it: "we block prompts like 'ignore
// previous instructions'". Such a note uses the words without addressing
// anyone, and rejecting it would make cortex useless for security notes. The
// rule (see the package documentation) is: an injection or exfiltration match
// that lies wholly inside a quotation — an inline code span, a fenced code
// block, or a pair of quotation marks on one line — is a mention when the
// surrounding prose frames it as one, by introducing it ("like", "such as",
// "e.g.", "says", "the input") or by talking about attacks in the same or the
// previous line ("injection", "jailbreak", "payload", "filter", "detect"…).
// Quoting alone is not enough: `ignore all previous instructions` in backticks
// after "Remember:" is still an instruction.

// quotes indexes the fenced code blocks of a text.
type quotes struct {
	fences []fence
}

type fence struct {
	open          int // start of the opening fence line
	content, stop int // the lines between the fences
}

func findQuotes(text string) *quotes {
	q := &quotes{}
	var (
		inFence bool
		marker  string
		cur     fence
		// list is the indent of the content of the list item the lines
		// belong to: a fence inside an item ("* Example:\n\n    ```js")
		// may be indented that much more than three spaces.
		list, fenceIndent int
	)
	for at := 0; at < len(text); {
		end := strings.IndexByte(text[at:], '\n')
		next := len(text)
		if end < 0 {
			end = len(text)
		} else {
			end += at
			next = end + 1
		}
		line := strings.TrimLeft(text[at:end], " ")
		indent := end - at - len(line)
		if !inFence && strings.TrimSpace(line) != "" {
			if n := listMarker(line); n > 0 {
				list = indent + n
			} else if indent < list {
				list = 0 // a paragraph after the list
			}
		}
		switch {
		case !inFence && indent <= list+3 && (strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~")):
			n := len(line) - len(strings.TrimLeft(line, line[:1]))
			inFence, marker, fenceIndent = true, line[:n], indent
			cur = fence{open: at, content: next}
		case inFence && indent <= max(fenceIndent, 3) && strings.HasPrefix(line, marker) && strings.Trim(line, marker[:1]+" \t\r") == "":
			inFence = false
			cur.stop = at
			q.fences = append(q.fences, cur)
		}
		at = next
	}
	if inFence {
		cur.stop = len(text)
		q.fences = append(q.fences, cur)
	}
	return q
}

// listMarker returns the length of the marker of a list item that starts
// line ("- ", "* ", "12. ", "3) ") with the blanks after it, or 0.
func listMarker(line string) int {
	i := 0
	switch {
	case line == "":
		return 0
	case line[0] == '-' || line[0] == '*' || line[0] == '+':
		i = 1
	default:
		for i < len(line) && i < 9 && '0' <= line[i] && line[i] <= '9' {
			i++
		}
		if i == 0 || i == len(line) || line[i] != '.' && line[i] != ')' {
			return 0
		}
		i++
	}
	j := i
	for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
		j++
	}
	if j == i {
		return 0
	}
	return j
}

// fenceAt returns the last block whose content starts at or before i: the
// only one that can hold i, as blocks do not overlap.
func (q *quotes) fenceAt(i int) (fence, bool) {
	k, _ := slices.BinarySearchFunc(q.fences, i, func(f fence, i int) int { return cmp.Compare(f.content, i+1) })
	if k == 0 {
		return fence{}, false
	}
	return q.fences[k-1], true
}

// mention reports whether text[s:e] is quoted and framed as a mention.
func (sc *scanner) mention(s, e int) bool {
	text := sc.text()
	if f, ok := sc.quotes().fenceAt(s); ok && e <= f.stop {
		// The framing of a block is the prose just before it (past the
		// blank line markdown puts between a paragraph and a fence) and
		// its info string.
		before := strings.TrimRight(text[max(0, f.open-300):f.open], " \t\r\n")
		if i := strings.LastIndex(before, "\n\n"); i >= 0 {
			before = before[i+2:]
		}
		return introduces(before) || talksAbout(before) || sc.line(f.open).talks(text)
	}
	ls, le := sc.lineStart(s), sc.lineEnd(s)
	if e > le {
		return false
	}
	line := text[ls:le]
	li := sc.line(ls)
	a, b, ok := li.quoteAround(s-ls, e-ls)
	if !ok {
		return false
	}
	lead := strings.TrimRight(line[:a], " \t")
	if strings.TrimLeft(lead, " \t>-*#|(\"'`“‘«") == "" {
		// The quotation opens the line: what introduces it is the line before.
		prev := ""
		if ls > 0 {
			prev = strings.TrimRight(text[sc.lineStart(ls-1):ls-1], " \t")
			prev = prev[max(0, len(prev)-introWindow):]
		}
		lead = prev + " " + lead
	}
	return introduces(lead) || li.talksOutside(text, a, b) || ls > 0 && sc.line(ls-1).talks(text)
}

// lineInfo is what mention reads from a line, once per scan: its quotations
// and the words that show it talks about attacks. A line with a thousand
// matches is read once, not a thousand times.
type lineInfo struct {
	start, end int // the line's bounds in the text
	quotes     []quotation
	reach      []int   // reach[k]: the furthest close of quotes[:k+1]
	meta       [][]int // the matches of metaRE, once metaDone
	metaDone   bool
	talk       int8 // whether metaRE matches the line: 0 not known yet, 1 yes, -1 no
}

// quotation is a pair of quotation marks: the opening mark at open (n bytes
// long), the closing one at close (closeLen bytes).
type quotation struct{ open, n, close, closeLen int }

// line returns the reading of the line that holds offset i.
func (sc *scanner) line(i int) *lineInfo {
	ls := sc.lineStart(i)
	if li, ok := sc.lineInfos[ls]; ok {
		return li
	}
	le := sc.lineEnd(i)
	li := &lineInfo{start: ls, end: le, quotes: readQuotes(sc.text()[ls:le])}
	li.reach = make([]int, len(li.quotes))
	for k, q := range li.quotes {
		li.reach[k] = q.close
		if k > 0 {
			li.reach[k] = max(q.close, li.reach[k-1])
		}
	}
	if sc.lineInfos == nil {
		sc.lineInfos = map[int]*lineInfo{}
	}
	sc.lineInfos[ls] = li
	return li
}

// metaWords returns the matches of metaRE in the line (of text).
func (li *lineInfo) metaWords(text string) [][]int {
	if !li.metaDone {
		li.metaDone = true
		li.meta = metaRE.get().FindAllStringIndex(text[li.start:li.end], -1)
	}
	return li.meta
}

// talks reports whether the line talks about attacks.
func (li *lineInfo) talks(text string) bool {
	if li.talk == 0 {
		li.talk = -1
		if metaRE.get().MatchString(text[li.start:li.end]) {
			li.talk = 1
		}
	}
	return li.talk > 0
}

// talksOutside reports whether the line (of text), without the quotation
// line[a:b], talks about attacks. A quotation mark is not part of any such word, so a
// word of the line is either inside the quotation or outside; only words that
// would form across the gap ("red" … "team") need a look of their own.
//
// A short line is read on either side of the quotation; a long one, whose
// every match would read it again, through the words found in it once.
func (li *lineInfo) talksOutside(text string, a, b int) bool {
	line := text[li.start:li.end]
	if len(line) <= longLine {
		if talksAbout(line[:a]) || talksAbout(line[b:]) {
			return true
		}
	} else if li.talks(text) {
		if meta := li.metaWords(text); meta[0][1] <= a || meta[len(meta)-1][0] >= b {
			return true
		}
	}
	left, right := line[max(0, a-maxMetaLen):a], line[b:min(len(line), b+maxMetaLen)]
	joined := left + " " + right
	for _, m := range metaRE.get().FindAllStringIndex(joined, -1) {
		if m[0] < len(left) && m[1] > len(left)+1 {
			return true
		}
	}
	return false
}

// longLine is the length from which a line's words are looked for once.
const longLine = 2048

// maxMetaLen bounds the length of a match of metaRE.
const maxMetaLen = 32

// introWindow bounds how much of the line before a quotation is read for
// what introduces it (introduces reads 60 bytes).
const introWindow = 200

// quoteAround finds the first quotation of the line whose content holds
// [s, e) and returns its bounds, marks included.
//
// The first quotation that closes at or after e is the only candidate: an
// earlier one closes before e, and a later one opens after the candidate's
// opening mark, so after s if the candidate's does.
func (li *lineInfo) quoteAround(s, e int) (int, int, bool) {
	k, _ := slices.BinarySearch(li.reach, e)
	if k == len(li.quotes) {
		return 0, 0, false
	}
	q := li.quotes[k]
	if q.open+q.n > s {
		return 0, 0, false
	}
	return q.open, q.close + q.closeLen, true
}

// readQuotes returns the quotations of a line in the order they open: code
// spans, straight and typographic quotes, each closing at the first matching
// mark. Code spans and straight quotes pair up in order; other marks may
// nest. The search for each kind of closing mark is remembered (see
// closers), so a line full of marks that never close is read once.
func readQuotes(line string) []quotation {
	var (
		c  closers
		qs []quotation
	)
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRuneInString(line[i:])
		closeAt := -1 // offset of the closing mark
		closeLen := 0
		switch r {
		case '`':
			run := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
			n = run
			if k := c.ticks(line, i+run, run); k >= 0 {
				closeAt, closeLen = k, run
			}
		case '"':
			if k := c.dquote.next(i+1, func(p int) int { return indexFrom(line, p, '"') }); k >= 0 {
				closeAt, closeLen = k, 1
			}
		case '\'':
			// An apostrophe inside a word is not a quotation mark.
			if i == 0 || !isAlnum(line[i-1]) {
				if k := c.squote.next(i+1, func(p int) int { return closingApostrophe(line, p) }); k >= 0 {
					closeAt, closeLen = k, 1
				}
			}
		default:
			if cl, ok := closingMark(r); ok {
				m := c.marks[r]
				if k := m.next(i+n, func(p int) int { return stringFrom(line, p, cl) }); k >= 0 {
					closeAt, closeLen = k, len(cl)
				}
				if c.marks == nil {
					c.marks = map[rune]memo{}
				}
				c.marks[r] = m
			}
		}
		if closeAt < 0 {
			i += n
			continue
		}
		qs = append(qs, quotation{open: i, n: n, close: closeAt, closeLen: closeLen})
		if r == '`' || r == '"' {
			i = closeAt + closeLen // code spans and straight quotes pair up in order
		} else {
			i += n
		}
	}
	return qs
}

// memo remembers one search for a closing mark: the first one at or after
// from is at at (-1: none). A later search from p inside [from, at] has the
// same answer, so each kind of mark is looked for across the line once.
type memo struct {
	from, at int
	ok       bool
}

func (m *memo) next(p int, search func(p int) int) int {
	if !m.ok || p < m.from || m.at >= 0 && p > m.at {
		*m = memo{from: p, at: search(p), ok: true}
	}
	return m.at
}

// closers holds the searches of one reading of a line.
type closers struct {
	dquote, squote memo
	marks          map[rune]memo
	tickRuns       map[int]memo // by the length of the run of backticks
}

// ticks returns where the first run of exactly n backticks starts at or
// after p, which is not inside a run, or -1.
func (c *closers) ticks(line string, p, n int) int {
	if c.tickRuns == nil {
		c.tickRuns = map[int]memo{}
	}
	m := c.tickRuns[n]
	k := m.next(p, func(j int) int {
		for j < len(line) {
			k := strings.IndexByte(line[j:], '`')
			if k < 0 {
				return -1
			}
			k += j
			run := len(line[k:]) - len(strings.TrimLeft(line[k:], "`"))
			if run == n {
				return k
			}
			j = k + run
		}
		return -1
	})
	c.tickRuns[n] = m
	return k
}

func indexFrom(line string, p int, b byte) int {
	if k := strings.IndexByte(line[p:], b); k >= 0 {
		return p + k
	}
	return -1
}

func stringFrom(line string, p int, s string) int {
	if k := strings.Index(line[p:], s); k >= 0 {
		return p + k
	}
	return -1
}

// closingApostrophe returns the first ' at or after p that no letter or
// digit follows, or -1.
func closingApostrophe(line string, p int) int {
	for j := p; j < len(line); j++ {
		if line[j] == '\'' && (j+1 == len(line) || !isAlnum(line[j+1])) {
			return j
		}
	}
	return -1
}

func closingMark(r rune) (string, bool) {
	switch r {
	case '“':
		return "”", true
	case '‘':
		return "’", true
	case '«':
		return "»", true
	case '„':
		return "“", true
	case '「':
		return "」", true
	case '『':
		return "』", true
	case '‹':
		return "›", true
	}
	return "", false
}

// introducerRE matches the end of prose that introduces a quotation.
var introducerRE = &lazyRE{pattern: `(?i)(?:\blike|\bsuch as|\be\.g\.,?|\bi\.e\.,?|\bfor (?:example|instance),?|\bexamples?(?: of)?:?|\bsays|\bsaid|\bsay|\breads|\bcalled|\bnamed|\blabell?ed|\bphrases?|\bstrings?|\binputs?|\bpatterns?|\bpayloads?|\btext|\bmessage|\btokens?|\bmarkers?|\bcontaining|\bcontains|\binclude|\bincludes|\bincluding|\bas in|\bquoted?|\bthe words|\bfake|\bknown|\bclassic|\bcommon|\btypical|\bprompts?(?: like)?|\bformats?)\W{0,3}$`}

// metaRE matches words that show a line talks about attacks rather than makes
// one.
var metaRE = &lazyRE{pattern: `(?i)\b(?:prompt[- ]injections?|injections?|jailbreak(?:s|ing)?|attack(?:s|er|ers)?|payloads?|malicious|adversarial|red[- ]team(?:ing)?|exploits?|poison(?:ed|ing)?|phishing|exfiltration|threat(?:s| model)?|ctf|detect(?:s|ed|ion|ors?)?|filter(?:s|ed|ing)?|classif(?:y|ied|ier|ication)|moderation|sanitiz(?:e|er|es|ed|ing)|scanner|strips?|stripped|escape[sd]?|block(?:s|ed)?|flag(?:s|ged)?|reject(?:s|ed)?|honeypot|canary|test cases?|evals?|examples?|e\.g\.|for instance|such as|samples?|markers?|special tokens?|tokenizer|chat (?:format|template)|templates?|regex|patterns?|strings?|phrases?|suspicious|untrusted|owasp|mitre)\b`}

func introduces(s string) bool {
	s = strings.TrimRight(s, " \t")
	if len(s) > 60 {
		s = s[len(s)-60:]
	}
	return introducerRE.get().MatchString(s)
}

func talksAbout(s string) bool { return metaRE.get().MatchString(s) }

// inCode reports whether offset i is inside a fenced code block or an inline
// code span.
func (sc *scanner) inCode(i int) bool {
	if f, ok := sc.quotes().fenceAt(i); ok && i < f.stop {
		return true
	}
	return sc.ticksIn(sc.lineStart(i), i)%2 == 1
}

// question reports whether the sentence that starts at s is a question that
// is answered no: an imperative followed by a question mark and a negation
// ("Keep this secret from the user? No — …") weighs an instruction and turns
// it down. Without the answer the question mark would be a way around every
// rule ("Ignore all previous instructions? Yes."). A request that only
// contains the imperative ("could you kindly set aside …?") does not start
// with it and is not exempt.
func question(sc *scanner, s int) bool {
	text := sc.text()
	if !atSentenceStart(text, s) {
		return false
	}
	end := strings.IndexAny(text[s:alignEnd(text, s+maxSentence)], ".!?\n")
	if end < 0 || text[s+end] != '?' {
		return false
	}
	after := text[s+end+1 : alignEnd(text, s+end+1+40)]
	return answeredNoRE.get().MatchString(foldString(after))
}

// reportedRE matches the end of prose that reports a request someone else
// makes: "it asks you to", "attackers try to", "which tells the model to".
// An instruction is given in the first person or the imperative; a
// moderation prompt that lists "it asks you to forget about your rules"
// describes one. "The user asks you to …" is not reported speech here: an
// injected note speaks as the user.
var reportedRE = &lazyRE{pattern: `\b(?:(?:if|when|whenever|once) you[\s*_]+(?:instruct|tell|ask)[\s*_]+the[\s*_]+(?:[\w-]+[\s*_]+){0,2}(?:model|assistant|ai|bot|agent|llm|chatbot)[\s*_]+to[\s*_]+$|(?:it|they|he|she|this|that|which|who|attackers?|someone|somebody|the (?:input|prompt|message|text|request|attacker|attack|payload|document|page|email|e-mail)s?)[\s*_]+(?:asks?|asked|asking|try|tries|tried|trying|attempts?|attempted|attempting|wants?|wanted|tells?|told|telling|instructs?|instructed|requests?|requested|urges?|urged|would (?:ask|tell|want))[\s*_]+(?:you|the (?:model|assistant|ai|bot|agent|llm)|the [\w-]+ (?:model|assistant|bot|agent))?[\s*_]*to[\s*_]+$)`}

// reported reports whether the instruction at s is reported rather than
// given (see reportedRE).
func reported(text string, s int) bool {
	a := max(0, s-80)
	for a < s && !utf8.RuneStart(text[a]) {
		a++
	}
	return reportedRE.get().MatchString(foldString(text[a:s]))
}

// answeredNoRE matches the start of a negative answer.
var answeredNoRE = &lazyRE{pattern: `^[\s*_>:—–-]*(?:no|nope|nah|never|not|don't|do not|absolutely not|definitely not|certainly not|of course not)\b`}

// maxSentence bounds how far question looks for the end of a sentence.
const maxSentence = 1024
