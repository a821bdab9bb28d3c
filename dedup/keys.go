package dedup

import (
	"slices"
	"strings"
	"sync"
)

// The key words: what keeps two memories that share most of their words
// distinct. Word coverage says how much of a new memory's vocabulary an
// existing one holds; it cannot see that "plugin enable" and "plugin disable",
// "pool is 20" and "pool is 50", or a macOS and a Windows shortcut table say
// different things. The fingerprint therefore also records:
//
//   - numbers (digits, a number with a unit such as 30s or 120G, and the
//     number words two to twelve, so "three" meets "3"), identifiers (words
//     mixing letters and digits: rs256, arm64) and code tokens (flags, paths
//     and file names, compared by their last element, snake_case and
//     camelCase names, URLs, and every word written in backticks or a code
//     block, with the order of the words of a command): a new memory that
//     names one the existing memory does not says something it does not.
//     Links are references, not keys;
//   - opposites: pairs of words (enable/disable, add/remove, allow/deny,
//     push/pull, on/off after a verb that takes them, …) and prefixed forms
//     (publish/unpublish, connect/disconnect, valid/invalid): one text with
//     one word and the other with its opposite, neither with both, in the
//     texts or in their titles;
//   - negations (not, no, never, n't, without, instead of): a word negated
//     in one text that the other says only in sentences without a negation
//     ("is not supported" against "is supported"; not "no mocks" against
//     "instead of mocking");
//   - platforms and environments (macOS, Windows, Linux, iOS, Android,
//     distributions, staging, production): each text naming one the other
//     does not;
//   - subjects: a word of the title the text says again (what an imported
//     section is about: "secret rm" against "config rm", "Create a new board"
//     against "Create a new project"), and names (a capitalised word inside a
//     sentence: Frankfurt, Virginia; a word of a markdown link's text, which
//     names the page it links to: [npm ping](…)); each text with one the
//     other lacks.
//
// Any of these is a Conflict, and a conflicting pair scores at most 0.5:
// never a duplicate, still related.

// Conflict names what keeps two memories distinct, "" when nothing does.
type Conflict string

// The conflicts, in the order Compare looks for them.
const (
	ConflictNumber     Conflict = "number"     // the new memory has a number the other lacks
	ConflictIdentifier Conflict = "identifier" // … an identifier or code token
	ConflictOpposite   Conflict = "opposite"   // one says enable, the other disable
	ConflictNegation   Conflict = "negation"   // one negates what the other says
	ConflictPlatform   Conflict = "platform"   // each names a platform the other does not
	ConflictSubject    Conflict = "subject"    // each is about a thing the other never names
)

// conflictCap is the most a conflicting pair scores: memories that say
// different things in the same words stay related (above the related
// threshold, in the mined related band) and never reach a duplicate threshold
// above one half.
const conflictCap = 0.5

// Tags keep the hashes of the kinds of key apart.
const (
	tagNumber = 0x6e756d6265720001 // "number"
	tagCode   = 0x636f646500000002 // "code"
	tagPair   = 0x7061697200000003 // "pair": an entry of opposites
)

// polarWord is a word that has an opposite: root names the pair (for a
// prefixed word, the hash of the rest of its stem, whose plain form is side
// 0), side which of its forms this is.
type polarWord struct {
	root uint64
	side uint8
}

func comparePolar(a, b polarWord) int {
	switch {
	case a.root < b.root:
		return -1
	case a.root > b.root:
		return 1
	}
	return int(a.side) - int(b.side)
}

// opposites are pairs of words, as they are written (their stems are what
// matches), that say opposite things in otherwise identical sentences.
// Forms made with a prefix (un-, dis-, de-, non-, in-, im-) need no entry.
var opposites = [][2]string{
	{"enable", "disable"}, {"enabled", "disabled"}, {"allow", "deny"}, {"allowed", "denied"},
	{"accept", "reject"}, {"true", "false"}, {"show", "hide"}, {"shown", "hidden"},
	{"include", "exclude"}, {"increase", "decrease"}, {"import", "export"}, {"upload", "download"},
	{"push", "pull"}, {"start", "stop"}, {"add", "remove"}, {"always", "never"}, {"promote", "demote"},
	{"encrypt", "decrypt"}, {"encode", "decode"}, {"attach", "detach"}, {"open", "close"},
	{"input", "output"}, {"inbound", "outbound"}, {"ingress", "egress"}, {"public", "private"},
	{"internal", "external"}, {"horizontal", "vertical"}, {"ascending", "descending"},
	{"expand", "collapse"}, {"grant", "revoke"}, {"login", "logout"}, {"read", "write"},
	{"maximum", "minimum"}, {"first", "last"}, {"left", "right"}, {"light", "dark"},
	{"online", "offline"}, {"required", "optional"}, {"create", "delete"}, {"join", "leave"},
	{"ctrl", "cmd"}, {"upper", "lower"}, {"success", "failure"}, {"allowlist", "denylist"},
}

// stopOpposites are opposites among the stop words, matched as written.
var stopOpposites = [][2]string{{"on", "off"}, {"in", "out"}, {"up", "down"}}

// polarPrefixes turn a word into its opposite, with the shortest rest of a
// stem they apply to: "unpin" is a pair with "pin", "input" is none with
// "put". Unrelated words that look prefixed ("design" and "sign") meet only
// when each text has one of them and not the other.
var polarPrefixes = []struct {
	prefix string
	min    int
}{{"un", 3}, {"dis", 4}, {"de", 4}, {"non", 3}, {"in", 4}, {"im", 4}}

// phrasalVerbs take on/off, in/out, up/down as opposites: "turn it off",
// "log in", "scale down".
var phrasalVerbs = []string{"turn", "switch", "toggle", "log", "sign", "scale", "opt", "power", "spin", "zoom",
	"check", "roll", "shut", "boot", "swap"}

// headingWords name a part of a document, not what it is about: an imported
// section's title is its heading path ("run › Examples › Set working
// directory"), and "examples" is no subject.
var headingWords = []string{"example", "examples", "description", "overview", "introduction", "usage", "options",
	"notes", "note", "summary", "details", "reference", "about", "general", "faq", "tips", "background",
	"section", "chapter", "appendix", "index", "readme", "changelog", "guide", "howto", "tutorial"}

// negations are the words that turn a statement around; the content words
// after one, in the same sentence, are negated. "n't" splits into a token
// ending in n ("doesn", "isn") and "t"; "can't" into "can" and "t"; "instead
// of" is one too.
var negations = sync.OnceValue(func() map[string]struct{} {
	return setOf("not", "no", "never", "cannot", "unable", "nor", "neither", "none", "nothing", "without",
		"non", "don", "doesn", "didn", "isn", "aren", "wasn", "weren", "hasn", "haven",
		"hadn", "couldn", "wouldn", "shouldn", "mustn", "needn", "won", "shan", "mightn", "ain")
})

// platforms are the operating systems, and the deployment environments, a
// note can be specific to; each group is one platform.
var platforms = [][]string{
	{"macos", "mac", "osx", "macbook", "darwin"}, {"windows", "win32", "win64", "win10", "win11"},
	{"linux"}, {"ios", "iphone"}, {"ipados", "ipad"}, {"android"}, {"freebsd"}, {"openbsd"},
	{"ubuntu"}, {"debian"}, {"fedora"}, {"centos"}, {"rhel"}, {"chromeos"}, {"watchos"},
	{"production", "prod"}, {"staging"}, {"development", "dev"}, {"qa"}, {"sandbox"},
}

// numberWords are the number words a paraphrase may spell out; "one" is left
// out, as a pronoun far more often than a number.
var numberWords = [][2]string{{"two", "2"}, {"three", "3"}, {"four", "4"}, {"five", "5"}, {"six", "6"},
	{"seven", "7"}, {"eight", "8"}, {"nine", "9"}, {"ten", "10"}, {"eleven", "11"}, {"twelve", "12"}, {"zero", "0"}}

// special is what the table of special tokens says about one written token.
type special struct {
	stop     bool // a stop word
	negation bool
	platform uint32 // a bit per platform
	polar    polarWord
	isPolar  bool
	number   uint64 // the number key of a number word
}

// specials maps the hash of a written token to what it is.
var specials = sync.OnceValue(func() *table[special] {
	m := map[uint64]special{}
	for w := range stopWords() {
		m[hashString(w)] = special{stop: true}
	}
	for w := range negations() {
		h := hashString(w)
		s := m[h]
		s.negation = true
		m[h] = s
	}
	for i, group := range platforms {
		for _, w := range group {
			h := hashString(w)
			s := m[h]
			s.platform |= 1 << i
			m[h] = s
		}
	}
	for i, pair := range stopOpposites {
		for side, w := range pair {
			h := hashString(w)
			s := m[h]
			s.polar, s.isPolar = polarWord{root: mix(tagPair, uint64(1000+i)), side: uint8(side + 1)}, true
			m[h] = s
		}
	}
	for _, wn := range numberWords {
		w, n := wn[0], wn[1]
		h := hashString(w)
		s := m[h]
		s.number = numberKey(n)
		m[h] = s
	}
	t := newTable[special](len(m))
	for h, s := range m {
		t.put(h, s)
	}
	return t
})

// wordInfo is what the tables say about a word (as the word set holds it).
type wordInfo struct {
	polar   polarWord // its side of a pair of opposites, if isPolar
	isPolar bool
	phrasal bool // a verb that takes on/off
	heading bool // a heading's word, never a subject
}

// wordInfos maps the word hash of every word of opposites, phrasalVerbs and
// headingWords to what it is, so that a token costs one lookup.
var wordInfos = sync.OnceValue(func() *table[wordInfo] {
	m := map[uint64]wordInfo{}
	hash := func(w string) uint64 {
		h, _ := word([]byte(w), hashString(w), nil)
		return h
	}
	roots := map[string]uint64{}
	for i, pair := range opposites {
		// Forms of one pair ("enable", "enabled") share its root.
		key := stem(pair[0]) + "/" + stem(pair[1])
		root, ok := roots[key]
		if !ok {
			root = mix(tagPair, uint64(i))
			roots[key] = root
		}
		for side, w := range pair {
			info := m[hash(w)]
			info.polar, info.isPolar = polarWord{root: root, side: uint8(side + 1)}, true
			m[hash(w)] = info
		}
	}
	for _, w := range phrasalVerbs {
		info := m[hash(w)]
		info.phrasal = true
		m[hash(w)] = info
	}
	for _, w := range headingWords {
		info := m[hash(w)]
		info.heading = true
		m[hash(w)] = info
	}
	t := newTable[wordInfo](len(m))
	for h, info := range m {
		t.put(h, info)
	}
	return t
})

// prefixPolar is the opposite entry of a stem that starts with a polar
// prefix: the root is the hash of the rest, the side the prefix's.
func prefixPolar(st []byte) (polarWord, bool) {
	if len(st) < 5 || st[0] != 'u' && st[0] != 'd' && st[0] != 'n' && st[0] != 'i' {
		return polarWord{}, false
	}
	for i, p := range polarPrefixes {
		if len(st) >= len(p.prefix)+p.min && string(st[:len(p.prefix)]) == p.prefix {
			for _, c := range st {
				if c < 'a' || c > 'z' {
					return polarWord{}, false
				}
			}
			return polarWord{root: hashBytes(st[len(p.prefix):]), side: uint8(10 + i)}, true
		}
	}
	return polarWord{}, false
}

// containsHash reports whether the sorted set s holds h.
func containsHash(s []uint64, h uint64) bool {
	_, ok := slices.BinarySearch(s, h)
	return ok
}

// forms is a text's, or its title's, words and words with an opposite.
type forms struct {
	words []uint64
	polar []polarWord
}

// has reports whether the text holds the form side of root: its plain word
// (side 0, for a prefixed pair) or the entry.
func (f forms) has(root uint64, side uint8) bool {
	if side == 0 {
		return containsHash(f.words, root)
	}
	_, ok := slices.BinarySearchFunc(f.polar, polarWord{root, side}, comparePolar)
	return ok
}

// opposed reports whether a and b hold opposite forms of a word, each only
// one: "enable" in a and "disable" in b, or "publish" in one and "unpublish"
// in the other, with neither holding both.
func opposed(a, b forms) bool {
	return opposedTo(a, b) || opposedTo(b, a)
}

// opposedTo looks at a's entries for their opposites in b.
func opposedTo(a, b forms) bool {
	for _, e := range a.polar {
		if b.has(e.root, e.side) {
			continue
		}
		// The other forms of the pair: the other side of a pair of words, or
		// the plain word and the other prefixes of a prefixed one.
		if e.side < 10 {
			other := 3 - e.side
			if b.has(e.root, other) && !a.has(e.root, other) {
				return true
			}
			continue
		}
		if b.has(e.root, 0) && !a.has(e.root, 0) {
			return true
		}
		for i := range polarPrefixes {
			if s := uint8(10 + i); s != e.side && b.has(e.root, s) && !a.has(e.root, s) {
				return true
			}
		}
	}
	return false
}

// negatedAgainst reports whether a word a negates is one b says, and never
// in a sentence with a negation: "X is not supported" against "X is
// supported", not "no mocks" against "instead of mocking". The texts must be
// of a length: a long section negates things a short summary of it need not
// mention.
func negatedAgainst(a, b *Fingerprint) bool {
	if len(a.words) > 2*len(b.words) || len(b.words) > 2*len(a.words) {
		return false
	}
	for _, w := range a.negated {
		if containsHash(b.words, w) && !containsHash(b.denied, w) {
			return true
		}
	}
	return false
}

// missing reports whether some of a's sorted hashes are not in the sorted set b.
func missing(a, b []uint64) bool {
	for i, j := 0, 0; i < len(a); {
		switch {
		case j == len(b) || a[i] < b[j]:
			return true
		case a[i] > b[j]:
			j++
		default:
			i++
			j++
		}
	}
	return false
}

// aboutOther reports whether each text has a subject word (a title word the
// text says again) the other never says, or each a name the other never says.
func aboutOther(a, b *Fingerprint) bool {
	return missing(a.salient, b.words) && missing(b.salient, a.words) || missing(a.names, b.words) && missing(b.names, a.words)
}

// conflict is the first reason why the new memory says something the old one
// does not, "" when there is none.
func conflict(n, o *Fingerprint) Conflict {
	switch {
	case missing(n.numbers, o.numbers):
		return ConflictNumber
	case missing(n.codes, o.codes) || missing(n.codeWords, o.words) || missing(n.codeBigrams, o.bigrams):
		return ConflictIdentifier
	case opposed(forms{n.words, n.polar}, forms{o.words, o.polar}) || opposed(forms{n.title, n.titlePolar}, forms{o.title, o.titlePolar}):
		return ConflictOpposite
	case negatedAgainst(n, o) || negatedAgainst(o, n):
		return ConflictNegation
	case n.platforms&^o.platforms != 0 && o.platforms&^n.platforms != 0:
		return ConflictPlatform
	case aboutOther(n, o):
		return ConflictSubject
	}
	return ""
}

// The raw pass: numbers, identifiers and code tokens, read from the text as
// written (the tokens lose the punctuation that makes "worker.log" a file name).

// keyScanner collects the keys of a text.
type keyScanner struct {
	numbers, codes, codeWords, codeBigrams []uint64
	buf, scratch                           []byte
	prevRun                                uint64 // the last word of code, for its bigrams
	// command says the next word of code starts a command line: the
	// program (docker, git, make), which notes name or leave out freely.
	command bool
}

// appendLinkNames appends to names the words of the text of each markdown
// link in text, [npm ping](/commands/npm-ping): what the link names, as a
// capitalised word inside a sentence names something. Without them a list
// of links to other pages ("See Also: npm bugs, npm help, npm ping") was a
// repeat of any long section of the same manual that says "npm", "bug" and
// "help", though it names pages that section never does. An image's text
// (![alt](…)) describes the image, and a wiki link ([[note]], a citation
// such as [[S:turn1]]) names a note by its file: neither is a name. scratch
// is a buffer for the words' forms.
func appendLinkNames(names []uint64, text string, scratch []byte) []uint64 {
	if !strings.Contains(text, "](") {
		return names // most notes have no link
	}
	// open is the last "[" of the line with no bracket after it.
	open := -1
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			open = -1
		case '[':
			open = i
		case ']':
			if open >= 0 && i+1 < len(text) && text[i+1] == '(' && (open == 0 || text[open-1] != '!') {
				scan(text[open+1:i], nil, func(tok []byte, _ brk) {
					if t := hashBytes(tok); !isStop(tok, t) {
						w, _ := word(tok, t, scratch[:0])
						names = append(names, w)
					}
				})
			}
			open = -1
		}
	}
	return names
}

// scanKeys reads text field by field: runs of anything but white space,
// backticks and table bars. A field inside backticks (inline code or a fenced
// block) is code whatever it looks like. List, heading and quote markers at
// the start of a line are not numbers. Links are references, not keys: the
// target of a markdown link and a wiki link are left out (their words are
// words like any other), so a link rewritten, or a citation like [[S:turn1]],
// changes no key.
func (k *keyScanner) scanKeys(text string) {
	inCode, lineStart := false, true
	ticks := 0 // backticks in a row, to know a fence's info string
	for i := 0; i < len(text); {
		switch c := text[i]; c {
		case '`':
			inCode = !inCode
			ticks++
			i++
			k.command, k.prevRun = inCode && isCommand(text[i:]), 0
			continue
		case '\n':
			lineStart = true
			ticks = 0
			i++
			k.command, k.prevRun = inCode && isCommand(text[i:]), 0
			continue
		case '|': // a table's cells, or a pipe: the tokens' bigrams stop
			ticks, k.prevRun = 0, 0
			i++
			continue
		case ' ', '\t', '\r':
			ticks = 0
			i++
			continue
		}
		// A wiki link, [[note]] or [[note|text]], names another note: no key.
		if strings.HasPrefix(text[i:], "[[") {
			if end := strings.Index(text[i:], "]]"); end >= 0 && !strings.Contains(text[i:i+end], "\n") {
				i += end + 2
				lineStart, ticks = false, 0
				continue
			}
		}
		j := i
		for j < len(text) && !isFieldEnd(text[j]) {
			j++
		}
		field := text[i:j]
		first, fence := lineStart, ticks >= 3
		lineStart, ticks = false, 0
		i = j
		switch {
		case fence:
			continue // ```console: the language of the block
		case first && isLineMarker(field):
			continue
		case inCode && (field == "$" || field == ">" || field == "#"):
			continue // a prompt
		}
		// A markdown link, [text](target): its target is where the text
		// points, not what the note says.
		if strings.IndexByte(field, ']') >= 0 {
			if p := strings.Index(field, "]("); p >= 0 {
				field = field[:p]
			}
		}
		k.field(field, inCode)
		if endsSentence(field) {
			k.prevRun = 0 // the tokens' bigrams stop there too
		}
	}
}

// Bytes trimmed off the ends of a field: brackets, quotes, emphasis, and at
// the end sentence punctuation.
var leadTrim, tailTrim = byteSet("([{\"'<*!]"), byteSet(".,;:!?)]}\"'>*")

func byteSet(chars string) (set [256]bool) {
	for i := 0; i < len(chars); i++ {
		set[chars[i]] = true
	}
	return set
}

func trimField(f string) string {
	i, j := 0, len(f)
	for i < j && leadTrim[f[i]] {
		i++
	}
	for j > i && tailTrim[f[j-1]] {
		j--
	}
	return f[i:j]
}

// endsSentence reports whether a field ends with a full stop, a colon, … (or
// one in brackets or quotes).
func endsSentence(f string) bool {
	for j := len(f) - 1; j >= 0; j-- {
		switch f[j] {
		case ')', ']', '}', '"', '\'', '>', '*':
			continue
		case '.', ':', ';', '!', '?':
			return true
		}
		return false
	}
	return false
}

// isCommand reports whether the code that starts text, up to the end of its
// span or line, is several words: a command line, whose first word is the
// program. A single word (`none`, `lint`) is a value and is kept.
func isCommand(text string) bool {
	text = strings.TrimLeft(text, " \t")
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '`', '\n':
			return false
		case ' ', '\t':
			return strings.TrimLeft(text[i:], " \t") != "" && !strings.HasPrefix(strings.TrimLeft(text[i:], " \t"), "`")
		}
	}
	return false
}

func isFieldEnd(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '`' || c == '|'
}

// isLineMarker reports whether a line's first field is a list, heading or
// quote marker ("1.", "2)", "-", "*", "#", ">").
func isLineMarker(f string) bool {
	switch f {
	case "-", "*", "+", ">":
		return true
	}
	if strings.Trim(f, "#") == "" {
		return true
	}
	n := len(f) - 1
	if n < 1 || n > 3 || f[n] != '.' && f[n] != ')' {
		return false
	}
	for _, c := range []byte(f[:n]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// field records the keys of one field.
func (k *keyScanner) field(f string, inCode bool) {
	f = trimField(f)
	if f == "" {
		return
	}
	if mayBeCode(f) && isCode(f, inCode) {
		k.codes = append(k.codes, mix(tagCode, codeKey(f)))
		// A token that continues a shorter one ("/run:rw,noexec",
		// "size=64k") holds it too.
		if i := strings.IndexAny(f, ":,="); i > 0 && !strings.Contains(f, "://") && isCode(f[:i], inCode) {
			k.codes = append(k.codes, mix(tagCode, codeKey(f[:i])))
		}
	}
	// Its runs of ASCII letters and digits: numbers, identifiers, and the
	// words of code. A run that touches another script is part of a longer
	// token and is left alone.
	for i := 0; i < len(f); {
		if !isAlnum(f[i]) {
			if f[i] >= 0x80 {
				k.prevRun = 0
			}
			i++
			continue
		}
		j := i
		for j < len(f) && isAlnum(f[j]) {
			j++
		}
		whole := (i == 0 || f[i-1] < 0x80) && (j == len(f) || f[j] < 0x80)
		k.run(f[i:j], inCode && whole)
		i = j
	}
}

// run records a run of ASCII letters and digits; code says it is a whole
// token of code.
func (k *keyScanner) run(r string, code bool) {
	digits := 0
	for digits < len(r) && r[digits] >= '0' && r[digits] <= '9' {
		digits++
	}
	letters := digits == 0 && allLetters(r)
	if letters && !code && !mayBeNumberWord(r) {
		return // a plain word: the tokens have it
	}
	k.buf = appendLower(k.buf[:0], r)
	h := hashBytes(k.buf)
	if code {
		k.codeWord(h)
	}
	switch {
	case letters:
		if s, ok := specials().get(h); ok && s.number != 0 {
			k.numbers = append(k.numbers, s.number)
		}
	case digits == len(r) || digits > 0 && len(r)-digits <= 3 && allLetters(r[digits:]):
		// A number, or a number and a unit: 30s, 120G, 1st.
		k.numbers = append(k.numbers, numberKey(r[:digits]))
	case (r[0] == 'v' || r[0] == 'V') && allDigits(r[1:]):
		k.numbers = append(k.numbers, numberKey(r[1:])) // v2 is 2
	default:
		// An identifier: rs256, arm64, a hash. Abbreviations the synonym
		// table knows (k8s, i18n) are words like any other.
		if _, ok := synonyms().get(h); !ok {
			k.codes = append(k.codes, mix(tagCode, h))
		}
	}
}

// mayBeNumberWord is a quick test before looking a word up in numberWords:
// three to six letters, starting as one of them does.
func mayBeNumberWord(r string) bool {
	if len(r) < 3 || len(r) > 6 {
		return false
	}
	switch r[0] | 0x20 {
	case 't', 'f', 's', 'e', 'n', 'z':
		return true
	}
	return false
}

// codeWord records a token of code, whose hash is h and which k.buf holds:
// its word, unless it is the program of a command line or a stop word, and
// its bigram with the one before.
func (k *keyScanner) codeWord(h uint64) {
	if isStop(k.buf, h) {
		return
	}
	if k.command {
		k.command = false
		return
	}
	if len(k.buf) > 1 {
		w, _ := word(k.buf, h, k.scratch[:0])
		k.codeWords = append(k.codeWords, w)
	}
	if k.prevRun != 0 {
		k.codeBigrams = append(k.codeBigrams, mix(k.prevRun, h))
	}
	k.prevRun = h
}

// numberKey is the key of a number written in digits: 007 is 7.
func numberKey(digits string) uint64 {
	if d := strings.TrimLeft(digits, "0"); d != "" {
		digits = d
	} else {
		digits = "0"
	}
	return mix(tagNumber, hashString(digits))
}

func allLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// mayBeCode is a quick test before isCode: a field of lower-case letters and
// digits is not code.
func mayBeCode(f string) bool {
	for i := 0; i < len(f); i++ {
		if c := f[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return true
		}
	}
	return false
}

// isCode reports whether a field is a code token: a flag (-f, --force), a
// variable ($HOME, %USERPROFILE%), a path (/etc/hosts, ~/.ssh), a name joined
// by _ . : = @ \ (snake_case, config.yaml, plugin:enable, key=value), or
// camelCase (useQuery, not macOS or GitHub). Outside code, a few words joined
// by slashes are prose ("read/write"), and numbers (1.2.3, 10:00) are left to
// the numbers.
func isCode(f string, inCode bool) bool {
	if len(f) < 2 {
		return false
	}
	hasLetter := false
	for i := 0; i < len(f); i++ {
		if isLetter(f[i]) {
			hasLetter = true
			break
		}
	}
	if !hasLetter {
		return false
	}
	switch {
	case f[0] == '-' && (isLetter(f[1]) || len(f) > 2 && f[1] == '-' && isLetter(f[2])):
		return true
	case (f[0] == '$' || f[0] == '%') && isLetter(f[1]):
		return true
	case f[0] == '/' || f[0] == '~' && f[1] == '/':
		return true
	}
	slash := false
	for i := 1; i < len(f)-1; i++ {
		switch f[i] {
		case '_', ':', '=', '@', '\\':
			if isAlnum(f[i-1]) || isAlnum(f[i+1]) {
				return true
			}
		case '.':
			if isAlnum(f[i-1]) && isAlnum(f[i+1]) && !initials(f) {
				return true
			}
		case '/':
			slash = true
		}
		// camelCase: two lower-case letters, an upper-case one, a lower-case one.
		if i >= 2 && i+1 < len(f) && f[0] >= 'a' && f[0] <= 'z' && f[i] >= 'A' && f[i] <= 'Z' &&
			f[i-1] >= 'a' && f[i-1] <= 'z' && f[i-2] >= 'a' && f[i-2] <= 'z' && f[i+1] >= 'a' && f[i+1] <= 'z' {
			return true
		}
	}
	return slash && (inCode || !proseSlash(f))
}

// proseSlash reports whether words joined by slashes are prose ("read/write",
// "and/or", "Windows/Linux"), not a path ("src/components", "kv/prod").
func proseSlash(f string) bool {
	if _, ok := proseSlashes()[strings.ToLower(f)]; ok {
		return true
	}
	for _, part := range strings.Split(f, "/") {
		if s, ok := specials().get(codeKey(part)); !ok || s.platform == 0 {
			return false
		}
	}
	return true // platforms: macOS/Linux
}

var proseSlashes = sync.OnceValue(func() map[string]struct{} {
	return setOf("and/or", "either/or", "read/write", "input/output", "i/o", "on/off", "yes/no",
		"pros/cons", "client/server", "ci/cd", "tcp/ip", "he/she", "his/her", "true/false", "w/o",
		"enable/disable", "start/stop", "open/close", "add/remove", "push/pull", "import/export")
})

// initials reports whether a dotted field is letters one by one: e.g, i.e.
func initials(f string) bool {
	for _, part := range strings.Split(f, ".") {
		if len(part) > 1 {
			return false
		}
	}
	return true
}

// codeKey is the hash a code token is compared by: lower-cased, a URL whole, a
// path by its last element (the file or folder it names, however the path to
// it is written: ~/.docker/config.json and $HOME/.docker/config.json meet).
func codeKey(f string) uint64 {
	if !strings.Contains(f, "://") {
		if t := strings.TrimRight(f, "/"); strings.Contains(t, "/") {
			if base := t[strings.LastIndexByte(t, '/')+1:]; base != "" {
				f = base
			}
		}
	}
	h := uint64(14695981039346656037)
	for i := 0; i < len(f); i++ {
		c := f[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}
