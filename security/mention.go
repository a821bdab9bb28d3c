package security

import (
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
		if end-at-len(line) <= 3 {
			switch {
			case !inFence && (strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~")):
				n := len(line) - len(strings.TrimLeft(line, line[:1]))
				inFence, marker = true, line[:n]
				cur = fence{open: at, content: next}
			case inFence && strings.HasPrefix(line, marker) && strings.Trim(line, marker[:1]+" \t\r") == "":
				inFence = false
				cur.stop = at
				q.fences = append(q.fences, cur)
			}
		}
		at = next
	}
	if inFence {
		cur.stop = len(text)
		q.fences = append(q.fences, cur)
	}
	return q
}

// mention reports whether text[s:e] is quoted and framed as a mention.
func (q *quotes) mention(text string, s, e int) bool {
	for _, f := range q.fences {
		if f.content <= s && e <= f.stop {
			// The framing of a block is the prose just before it and its info
			// string.
			infoEnd := f.content
			before := text[max(0, f.open-300):f.open]
			if i := strings.LastIndex(before, "\n\n"); i >= 0 {
				before = before[i+2:]
			}
			return introduces(before) || talksAbout(before) || talksAbout(text[f.open:infoEnd])
		}
	}
	ls := strings.LastIndexByte(text[:s], '\n') + 1
	le := strings.IndexByte(text[s:], '\n')
	if le < 0 {
		le = len(text)
	} else {
		le += s
	}
	if e > le {
		return false
	}
	line := text[ls:le]
	a, b, ok := quoteAround(line, s-ls, e-ls)
	if !ok {
		return false
	}
	prev := ""
	if ls > 0 {
		p := strings.LastIndexByte(text[:ls-1], '\n') + 1
		prev = text[p : ls-1]
	}
	lead := line[:a]
	if strings.TrimLeft(lead, " \t>-*#|(\"'`“‘«") == "" {
		// The quotation opens the line: what introduces it is the line before.
		lead = prev + " " + lead
	}
	outside := line[:a] + " " + line[b:]
	return introduces(lead) || talksAbout(outside) || talksAbout(prev)
}

// quoteAround finds a quotation on line whose content holds [s, e) and returns
// the bounds of the whole quotation, marks included.
func quoteAround(line string, s, e int) (int, int, bool) {
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRuneInString(line[i:])
		closeAt := -1 // offset of the closing mark
		closeLen := 0
		switch r {
		case '`':
			run := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
			n = run
			for j := i + run; j < len(line); {
				k := strings.IndexByte(line[j:], '`')
				if k < 0 {
					break
				}
				k += j
				m := len(line[k:]) - len(strings.TrimLeft(line[k:], "`"))
				if m == run {
					closeAt, closeLen = k, m
					break
				}
				j = k + m
			}
		case '"':
			if k := strings.IndexByte(line[i+1:], '"'); k >= 0 {
				closeAt, closeLen = i+1+k, 1
			}
		case '\'':
			// An apostrophe inside a word is not a quotation mark.
			if i == 0 || !isAlnum(line[i-1]) {
				for j := i + 1; j < len(line); j++ {
					if line[j] == '\'' && (j+1 == len(line) || !isAlnum(line[j+1])) {
						closeAt, closeLen = j, 1
						break
					}
				}
			}
		default:
			if cl, ok := closingMark[r]; ok {
				if k := strings.Index(line[i+n:], cl); k >= 0 {
					closeAt, closeLen = i+n+k, len(cl)
				}
			}
		}
		if closeAt < 0 {
			i += n
			continue
		}
		if i+n <= s && e <= closeAt {
			return i, closeAt + closeLen, true
		}
		if r == '`' || r == '"' {
			i = closeAt + closeLen // code spans and straight quotes pair up in order
		} else {
			i += n
		}
	}
	return 0, 0, false
}

var closingMark = map[rune]string{'“': "”", '‘': "’", '«': "»", '„': "“", '「': "」", '『': "』", '‹': "›"}

// introducerRE matches the end of prose that introduces a quotation.
var introducerRE = lazyRE(`(?i)(?:\blike|\bsuch as|\be\.g\.,?|\bi\.e\.,?|\bfor (?:example|instance),?|\bexamples?(?: of)?:?|\bsays|\bsaid|\bsay|\breads|\bcalled|\bnamed|\blabell?ed|\bphrases?|\bstrings?|\binputs?|\bpatterns?|\bpayloads?|\btext|\bmessage|\btokens?|\bmarkers?|\bcontaining|\bcontains|\binclude|\bincludes|\bincluding|\bas in|\bquoted?|\bthe words|\bfake|\bknown|\bclassic|\bcommon|\btypical|\bprompts?(?: like)?)\W{0,3}$`)

// metaRE matches words that show a line talks about attacks rather than makes
// one.
var metaRE = lazyRE(`(?i)\b(?:prompt[- ]injections?|injections?|jailbreak(?:s|ing)?|attack(?:s|er|ers)?|payloads?|malicious|adversarial|red[- ]team(?:ing)?|exploits?|poison(?:ed|ing)?|phishing|exfiltration|threat(?:s| model)?|ctf|detect(?:s|ed|ion|ors?)?|filter(?:s|ed|ing)?|classif(?:y|ied|ier|ication)|moderation|sanitiz(?:e|er|es|ed|ing)|scanner|strips?|stripped|escape[sd]?|block(?:s|ed)?|flag(?:s|ged)?|reject(?:s|ed)?|honeypot|canary|test cases?|evals?|examples?|e\.g\.|for instance|such as|samples?|markers?|special tokens?|tokenizer|chat (?:format|template)|templates?|regex|patterns?|strings?|phrases?|suspicious|untrusted|owasp|mitre)\b`)

func introduces(s string) bool {
	s = strings.TrimRight(s, " \t")
	if len(s) > 60 {
		s = s[len(s)-60:]
	}
	return introducerRE().MatchString(s)
}

func talksAbout(s string) bool { return metaRE().MatchString(s) }

// inCode reports whether offset i is inside a fenced code block or an inline
// code span.
func inCode(text string, i int) bool {
	for _, f := range findQuotes(text).fences {
		if f.content <= i && i < f.stop {
			return true
		}
	}
	ls := strings.LastIndexByte(text[:i], '\n') + 1
	return strings.Count(text[ls:i], "`")%2 == 1
}

// question reports whether the sentence that starts at s is a question: an
// imperative followed by a question mark ("Keep this secret from the user? No
// — …") weighs an instruction rather than gives it. A request that only
// contains the imperative ("could you kindly set aside …?") does not start
// with it and is not exempt.
func question(text string, s int) bool {
	if !atSentenceStart(text, s) {
		return false
	}
	end := strings.IndexAny(text[s:], ".!?\n")
	return end >= 0 && text[s+end] == '?'
}
