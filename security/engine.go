package security

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// rule is one row of the table. A rule fires at a trigger: a short lowercase
// string that every match contains at a fixed place, found in one pass over the
// text (the way gitleaks uses keywords). Only there is the regular expression
// run, anchored, over a window of at most maxLen bytes. Go's regexp package has
// no fast path for an unanchored search without a literal prefix, so running
// some seventy expressions over a whole note would cost milliseconds; anchored
// at the few places a trigger occurs they cost microseconds.
type rule struct {
	id       string // "<category>.<name>"
	category Category
	desc     string

	// triggers are lowercase strings of at least two bytes. The match starts
	// where one occurs or, with back, at the start of the token that holds it
	// (so "password" in DB_PASSWORD= starts the match at "DB_"). An = ends a
	// token: in DATABASE_URL=postgres://… the value is a token of its own.
	triggers []string
	back     bool

	// pattern is the expression, matched at the start of its window. When it has
	// capturing groups the finding is the first that took part (the secret in
	// "token: …"), otherwise the whole match.
	pattern string

	// forms, when set, replace triggers and pattern: alternatives that each
	// have their own triggers, expression and check. Small expressions keep
	// Go's regexp on its backtracking matcher, several times faster than the
	// NFA a large alternation needs.
	forms []form
	// on is the text the pattern is matched against: the original, the
	// case-folded text (pattern then in lower case) or the folded text with
	// digit-for-letter substitutions undone ("1gn0re" reads "ignore"). Offsets are
	// the same in all three.
	on variant
	// maxLen bounds a match; 0 means defaultMaxLen.
	maxLen int

	// before is checked on the byte preceding the match, after on the byte
	// following the finding.
	before, after boundary

	// check, when set, vets a finding and may move its bounds. It sees the
	// original text.
	check func(text string, start, end int) (int, int, bool)
	// vet is a check that needs more than the text: what the scan builds
	// once and shares (lines, quotations, shell commands). It runs last.
	vet func(sc *scanner, start, end int) (int, int, bool)

	// run marks a pattern that matches a run of characters: a trigger inside
	// the last run matched is part of it and is not tried again, so a long
	// run costs one match per maxLen bytes, not one per character.
	run bool
}

const defaultMaxLen = 200

// variant names one of the texts a pattern can be matched against.
type variant uint8

const (
	original variant = iota
	folded
	unleet
)

// boundary constrains the byte next to a match.
type boundary uint8

const (
	anyByte  boundary = iota
	notWord           // not a letter, digit or underscore
	notAlnum          // not a letter or digit
	notToken          // not a letter, digit or one of _-+/=. (the alphabets of keys)
)

// ok reports whether c, next to a match, satisfies the boundary.
func (b boundary) ok(c byte) bool {
	switch b {
	case notWord:
		return !isAlnum(c) && c != '_'
	case notAlnum:
		return !isAlnum(c)
	case notToken:
		return !isTokenByte(c)
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isTokenByte(c byte) bool {
	switch c {
	case '_', '-', '+', '/', '=', '.':
		return true
	}
	return isAlnum(c)
}

// form is one alternative of a rule. Its check runs before the rule's.
type form struct {
	triggers []string
	// need, when set, lists strings of which one must occur in the window
	// (in the text the pattern is matched against) before the expression
	// runs: a second keyword, cheaper to look for than to match.
	need []string
	// needWithin bounds the window need looks at; 0 means the whole window.
	needWithin int
	// needSet and need2Set are need and need2 indexed by first byte, made
	// when the table is built.
	needSet, need2Set *keywordSet
	// need2, when set, lists strings of which one must occur in the same
	// part of the window as well: a noun and the word that makes it the
	// model's ("text" and "above"), each common alone, rarely together.
	need2 []string
	// afterTrigger matches pattern from the end of the trigger rather than its
	// start (the finding still starts at the trigger): a form led by one of
	// forty verbs does not spell them out again, and its expression stays
	// small.
	afterTrigger bool
	// notInRun skips a trigger preceded by the byte it starts with: in a run
	// of "=" only the first "==" opens a banner.
	notInRun bool
	// follows, when set, is the byte the trigger must come right after (in
	// the original text): a marker inside a key (the Q of Azure's Q~) that
	// a trigger cannot start with, since letters start triggers only at a
	// word's start. Checked before the expression, so a ~ elsewhere costs a
	// byte comparison.
	follows byte
	// at, when set, is where a match must start (a sentence or a line),
	// tested before the expression, which costs far more: "the model"
	// in the middle of a sentence is not an address to the model. Only
	// for forms whose finding starts where the expression does (no
	// capturing group, not afterTrigger; TestStartConditions checks).
	at func(text string, i int) bool
	// pre, when set, is a cheaper test the window must pass before the
	// expression runs, one that every match of it passes (what must follow
	// a key's name for a value to be assigned to it).
	pre     func(text string, i int) bool
	pattern string
	check   func(text string, start, end int) (int, int, bool)
	// re is the expression, compiled the first time a trigger of the form
	// is found: compiling all of them took about 14 ms of CPU, paid by
	// every save and capture (each its own process) for the few forms a
	// text ever triggers.
	re *lazyRE
}

// ruleTable is the compiled table and the trigger index over it.
type ruleTable struct {
	rules []*rule
	rows  []row // one per form
	// Two tries of triggers. A trigger that starts with a letter or digit is
	// looked up only where a word starts (after a byte that is neither, or at
	// a camelCase hump: "Password" in dbPassword); the others ("://", ".env",
	// invisible characters, CJK) at every byte.
	atWord, anywhere trie
}

type row struct {
	rule *rule
	form *form
}

// trie is a byte trie of triggers, flattened for the cache: node n's
// children are labels/kids[first[n]:first[n]+count[n]], its rows rows[n].
type trie struct {
	root   [256]int32
	first  []int32
	count  []uint8
	labels []byte
	kids   []int32
	rows   [][]int // the rows whose trigger ends at each node
	// pairs has a bit for each two bytes a trigger found by walk can start
	// with (a byte that starts a gap stands for a space): most places a
	// walk would start lead nowhere after one byte, and the walk's calls
	// and child lookups were most of a scan of long prose.
	pairs *[256 * 256 / 64]uint64
}

// trigger is a trigger of a trie and the row it leads to.
type trigger struct {
	s   string
	row int
}

// newTrie builds the trie of triggers (each of two bytes at least). The
// triggers are sorted, so that the triggers below a node are a run of
// them: each node's children are laid out together in the flat tables
// before any of them is built, and no list of children is kept per node.
// Building it is paid by every process that scans a text (each save, each
// capture); with a list per node, grown an edge at a time, it took about
// half the table's making.
func newTrie(ts []trigger) trie {
	var t trie
	for i := range t.root {
		t.root[i] = -1
	}
	slices.SortFunc(ts, func(a, b trigger) int {
		if c := strings.Compare(a.s, b.s); c != 0 {
			return c
		}
		return cmp.Compare(a.row, b.row)
	})
	ts = slices.Compact(ts)
	// A trigger adds a node for each byte past what it shares with the one
	// before it: the tables are made at their size.
	nodes := 0
	for i, tr := range ts {
		shared := 0
		if i > 0 {
			p := ts[i-1].s
			for shared < len(p) && shared < len(tr.s) && p[shared] == tr.s[shared] {
				shared++
			}
		}
		nodes += len(tr.s) - shared
	}
	t.first, t.count = make([]int32, 0, nodes), make([]uint8, 0, nodes)
	t.labels, t.kids = make([]byte, 0, nodes), make([]int32, 0, nodes)
	t.rows = make([][]int, 0, nodes)
	rows := make([]int, 0, len(ts)) // every node's rows, in node order
	for i := 0; i < len(ts); {
		j := i + 1
		for j < len(ts) && ts[j].s[0] == ts[i].s[0] {
			j++
		}
		n := t.node()
		t.root[ts[i].s[0]] = n
		rows = t.fill(n, ts[i:j], 1, rows)
		i = j
	}
	t.pairs = new([256 * 256 / 64]uint64)
	for c0, n := range t.root {
		if n < 0 {
			continue
		}
		f := t.first[n]
		for _, c1 := range t.labels[f : f+int32(t.count[n])] {
			t.setPair(byte(c0), c1)
			if c1 == ' ' {
				for c, g := range gapStart {
					if g {
						t.setPair(byte(c0), byte(c))
					}
				}
			}
		}
	}
	return t
}

func (t *trie) node() int32 {
	t.first = append(t.first, 0)
	t.count = append(t.count, 0)
	t.rows = append(t.rows, nil)
	return int32(len(t.first) - 1)
}

// fill lays out node n, whose triggers ts (sorted, each once) share their
// first d bytes: its rows (those of the triggers d bytes long), then its
// children, then each child's own. It returns rows with n's and its
// descendants' appended (n's rows are a window of it).
func (t *trie) fill(n int32, ts []trigger, d int, rows []int) []int {
	i, at := 0, len(rows)
	for ; i < len(ts) && len(ts[i].s) == d; i++ {
		rows = append(rows, ts[i].row)
	}
	if len(rows) > at {
		t.rows[n] = rows[at:len(rows):len(rows)]
	}
	ts = ts[i:]
	first := int32(len(t.labels))
	for j := range ts {
		if j == 0 || ts[j].s[d] != ts[j-1].s[d] {
			t.labels = append(t.labels, ts[j].s[d])
			t.kids = append(t.kids, -1)
		}
	}
	count := int32(len(t.labels)) - first
	if count > 255 {
		panic("security: trie fan-out over 255")
	}
	t.first[n], t.count[n] = first, uint8(count)
	for k, j := first, 0; j < len(ts); k++ {
		e := j + 1
		for e < len(ts) && ts[e].s[d] == ts[j].s[d] {
			e++
		}
		kid := t.node()
		t.kids[k] = kid
		rows = t.fill(kid, ts[j:e], d+1, rows)
		j = e
	}
	return rows
}

func (t *trie) setPair(a, b byte) {
	k := int(a)<<8 | int(b)
	t.pairs[k/64] |= 1 << (k % 64)
}

// mayStart reports whether a trigger may start at u[i:]: its first two
// bytes are those of a trigger (a trigger has two bytes at least).
func (t *trie) mayStart(u string, i int) bool {
	if i+1 >= len(u) {
		return false
	}
	k := int(u[i])<<8 | int(u[i+1])
	return t.pairs[k/64]&(1<<(k%64)) != 0
}

// match calls fn with the rows and the length of every trigger that starts
// at u[i:]. A space of a trigger matches a whole gap in the text (a run of
// white space, no-break spaces and markdown emphasis, as sep does in the
// expressions): "do not" is found in "do  not" and "do\n**not**".
func (t *trie) match(u string, i int, fn func(rows []int, n int)) {
	t.walk(u, i, i, t.root[u[i]], fn)
}

// walk goes on from node n, whose label is u[i], for a trigger that starts
// at u[at].
func (t *trie) walk(u string, at, i int, n int32, fn func(rows []int, n int)) {
	for n >= 0 {
		if rs := t.rows[n]; len(rs) > 0 {
			fn(rs, i+1-at)
		}
		i++
		if i >= len(u) {
			return
		}
		if c := u[i]; !gapStart[c] {
			n = t.child(n, c)
		} else {
			n, i = t.gap(u, at, i, n, fn)
		}
	}
}

// gap goes on from node n at u[i], which may start a gap between words: to
// the node after a space of a trigger, past the whole gap, when there is one.
// It returns the next node and the offset of the last byte it took.
func (t *trie) gap(u string, at, i int, n int32, fn func(rows []int, n int)) (int32, int) {
	c := u[i]
	kid, sp := t.child(n, c), int32(-1)
	if c == ' ' {
		sp = kid
	} else {
		sp = t.child(n, ' ')
	}
	if sp < 0 {
		// No trigger goes on with a space here: the gap is not read, so
		// that a long run of gap bytes after each of many triggers (a run
		// of zero-width characters, each one a trigger) costs nothing.
		return kid, i
	}
	g := gapLen(u, i)
	if g == 0 {
		return kid, i
	}
	if kid >= 0 && kid != sp {
		t.walk(u, at, i, kid, fn) // "**" is a trigger as well as a gap
	}
	return sp, i + g - 1
}

// gapStart marks the bytes a gap between words can start with.
var gapStart = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '\f': true, '*': true, '_': true, '~': true, 0xc2: true, 0xd8: true, 0xe2: true}

// child returns the child of node n labelled c, or -1.
func (t *trie) child(n int32, c byte) int32 {
	f := t.first[n]
	for j, l := range t.labels[f : f+int32(t.count[n])] {
		if l == c {
			return t.kids[f+int32(j)]
		}
	}
	return -1
}

// gapLen returns the length of the gap between words that starts at u[i]
// (the bytes sep matches), or 0.
func gapLen(u string, i int) int {
	j := i
	for j < len(u) {
		switch u[j] {
		case ' ', '\t', '\n', '\r', '\f', '*', '_', '~':
			j++
			continue
		case 0xc2:
			if j+1 < len(u) && u[j+1] == 0xa0 {
				j += 2
				continue
			}
		case 0xd8, 0xe2:
			if n := invisibleGap(u[j:]); n > 0 {
				j += n
				continue
			}
		}
		break
	}
	return j - i
}

// table returns the rules, compiled on first use: a command that never scans
// does not pay for them.
func table() *ruleTable { return theTable.get() }

var theTable = &lazy[*ruleTable]{build: func() *ruleTable {
	var rules []*rule
	for _, group := range [][]*rule{unicodeRules(), injectionRules(), exfiltrationRules(), credentialRules(), configCredentialRules()} {
		rules = append(rules, group...)
	}
	return buildTable(rules)
}}

// lazy is a value built on first use. Declared as a composite literal whose
// build function captures nothing, it costs nothing at start-up (the linker
// lays it out), where sync.OnceValue allocates its closures at every start
// of every command, scanning or not.
type lazy[T any] struct {
	once  sync.Once
	build func() T
	v     T
}

// get builds the value on first use.
func (l *lazy[T]) get() T {
	l.once.Do(func() { l.v = l.build() })
	return l.v
}

func buildTable(rules []*rule) *ruleTable {
	t := &ruleTable{rules: rules}
	var atWord, anywhere []trigger
	for _, r := range rules {
		if r.maxLen == 0 {
			r.maxLen = defaultMaxLen
		}
		if len(r.forms) == 0 {
			r.forms = []form{{triggers: r.triggers, pattern: r.pattern}}
		}
		for fi := range r.forms {
			f := &r.forms[fi]
			f.re = &lazyRE{pattern: `^(?:` + f.pattern + `)`}
			f.needSet, f.need2Set = newKeywordSet(f.need), newKeywordSet(f.need2)
			ri := len(t.rows)
			t.rows = append(t.rows, row{rule: r, form: f})
			for _, s := range f.triggers {
				if len(s) < 2 || s != foldString(s) {
					panic("security: trigger " + s + " of " + r.id + " is not folded or shorter than two bytes")
				}
				// Triggers are looked for in the unleet text, which every
				// text maps onto: a trigger found in the folded text is found
				// there too.
				s = unleetString(s)
				if isAlnum(s[0]) {
					atWord = append(atWord, trigger{s, ri})
				} else {
					anywhere = append(anywhere, trigger{s, ri})
				}
			}
		}
	}
	t.atWord, t.anywhere = newTrie(atWord), newTrie(anywhere)
	return t
}

// triggered calls fn with the rows of every trigger found in the unleet text
// u (whose original is text), the offset where it starts and its length.
func (t *ruleTable) triggered(text, u string, fn func(rows []int, at, n int)) {
	var at int
	each := func(rows []int, n int) { fn(rows, at, n) }
	word := true // at a word start
	for at = 0; at < len(u); at++ {
		c := u[at]
		if isAlnum(c) {
			if word || 'A' <= text[at] && text[at] <= 'Z' && ('a' <= text[at-1] && text[at-1] <= 'z' ||
				// the end of an acronym: the T of ETSYToken
				'A' <= text[at-1] && text[at-1] <= 'Z' && at+1 < len(text) && 'a' <= text[at+1] && text[at+1] <= 'z') {
				if t.atWord.mayStart(u, at) {
					t.atWord.match(u, at, each)
				}
			}
			word = false
			continue
		}
		word = true
		if t.anywhere.root[c] >= 0 && t.anywhere.mayStart(u, at) {
			t.anywhere.match(u, at, each)
		}
	}
}

// texts holds the three variants of a scanned text; offsets agree in all.
type texts [3]string

// scanner is the state of one scan: the text in its three variants, and what
// checks build from it on first use and share (the line index, the
// quotations, the shell commands read), so that the thousandth trigger on a
// long line costs what the first does.
type scanner struct {
	v         texts
	nl        []int // offsets of the newlines; nil until lines is called
	ticks     []int // offsets of the backticks; nil until ticksIn is called
	q         *quotes
	lineInfos map[int]*lineInfo // by the start of their line
	shells    map[int]*shell    // by the start of their logical line
	needMemo  [8]needResult     // the last searches for keywords
	needNext  int
}

func (sc *scanner) text() string { return sc.v[original] }

// lines returns the offsets of the newlines of the text.
func (sc *scanner) lines() []int {
	if sc.nl == nil {
		sc.nl = indexAll(sc.text(), '\n')
	}
	return sc.nl
}

func indexAll(s string, c byte) []int {
	at := make([]int, 0, 16)
	for i := 0; ; {
		j := strings.IndexByte(s[i:], c)
		if j < 0 {
			return at
		}
		at = append(at, i+j)
		i += j + 1
	}
}

// lineStart returns the start of the line holding offset i.
func (sc *scanner) lineStart(i int) int {
	nl := sc.lines()
	k, _ := slices.BinarySearch(nl, i) // nl[k-1] < i <= nl[k]
	if k == 0 {
		return 0
	}
	return nl[k-1] + 1
}

// lineEnd returns the end of the line holding offset i (its newline, or the
// end of the text).
func (sc *scanner) lineEnd(i int) int {
	nl := sc.lines()
	if k, _ := slices.BinarySearch(nl, i); k < len(nl) {
		return nl[k]
	}
	return len(sc.text())
}

// ticksIn returns the number of backticks in text[a:b].
func (sc *scanner) ticksIn(a, b int) int {
	if sc.ticks == nil {
		sc.ticks = indexAll(sc.text(), '`')
	}
	i, _ := slices.BinarySearch(sc.ticks, a)
	j, _ := slices.BinarySearch(sc.ticks, b)
	return j - i
}

// quotes returns the fenced code blocks of the text.
func (sc *scanner) quotes() *quotes {
	if sc.q == nil {
		sc.q = findQuotes(sc.text())
	}
	return sc.q
}

// needKey names one search for a list of keywords in a window.
type needKey struct {
	list       *string // the list's first element
	start, end int
}

// holds reports whether src[start:end] holds one of the keywords. The forms
// that share a trigger often share their keywords too (the override forms
// look for "instructions", "rules"… at every verb): each window is searched
// once.
func (sc *scanner) holds(keywords *keywordSet, src string, start, end int) bool {
	if keywords == nil {
		return true
	}
	k := needKey{&keywords.words[0], start, end}
	for i := range sc.needMemo {
		if sc.needMemo[i].key == k {
			return sc.needMemo[i].holds
		}
	}
	v := keywords.in(src[start:end])
	// The forms of one trigger are tried together: the last few searches
	// are all a memo needs to keep.
	sc.needMemo[sc.needNext%len(sc.needMemo)] = needResult{k, v}
	sc.needNext++
	return v
}

// keywordSet is a list of keywords indexed by their first byte: one pass
// over a window finds whether it holds any of them, where a search per
// keyword passed over it as many times as the list is long (the override
// forms' list has 27).
type keywordSet struct {
	words  []string // the list, shared: the memo of holds keys on it
	sorted []string // the keywords ordered by first byte
	// lo and hi bound, for each byte, the keywords that start with it
	lo, hi [256]uint8
	// second has, for each byte, a bit for the low six bits of the second
	// byte of each keyword that starts with it (all of them for a keyword
	// of one byte): in prose most letters start a keyword, and the byte
	// after them turns away most of those places without comparing.
	second [256]uint64
}

// newKeywordSet indexes keywords, or returns nil for none.
func newKeywordSet(keywords []string) *keywordSet {
	if len(keywords) == 0 {
		return nil
	}
	if len(keywords) > 255 {
		panic("security: more than 255 keywords in one list")
	}
	if slices.Contains(keywords, "") {
		panic("security: an empty keyword")
	}
	k := &keywordSet{words: keywords, sorted: slices.Clone(keywords)}
	slices.SortStableFunc(k.sorted, func(a, b string) int { return cmp.Compare(a[0], b[0]) })
	for i, w := range k.sorted {
		c := w[0]
		if k.hi[c] == 0 {
			k.lo[c] = uint8(i)
		}
		k.hi[c] = uint8(i + 1)
		if len(w) < 2 {
			k.second[c] = ^uint64(0)
		} else {
			k.second[c] |= 1 << (w[1] & 63)
		}
	}
	return k
}

// in reports whether s holds one of the keywords.
func (k *keywordSet) in(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		m := k.second[c]
		if m == 0 || i+1 < len(s) && m&(1<<(s[i+1]&63)) == 0 {
			continue
		}
		for _, w := range k.sorted[k.lo[c]:k.hi[c]] {
			if strings.HasPrefix(s[i:], w) {
				return true
			}
		}
	}
	return false
}

// needResult is a remembered search for keywords.
type needResult struct {
	key   needKey
	holds bool
}

// rowState is what a scan remembers of one row. Its zero value is a row not
// tried yet.
type rowState struct {
	gen   uint32 // the scan that set it (see rowStates)
	tried int    // 1 + the last start tried
	reach int    // the end of the last run matched
	prev  [2]int // the last finding judged (a finding is never empty)
}

// rowStates is the state of every row for one scan at a time. A state set
// by another scan (its gen not the scan's) counts as the zero value, so
// that a scan neither allocates nor clears a state per row, of which it
// touches a few: a new table of them per scan was a tenth of scanning a
// real-shaped import.
type rowStates struct {
	gen  uint32
	rows []rowState
}

var rowStatePool = sync.Pool{New: func() any { return new(rowStates) }}

// scan runs the rules that keep accepts (all when nil) over text.
func scan(text string, keep func(*rule) bool) []Finding {
	t := table()
	sc := &scanner{}
	sc.v[original] = text
	sc.v[folded], sc.v[unleet] = foldTexts(text)
	u := sc.v[unleet]
	rs := rowStatePool.Get().(*rowStates)
	defer rowStatePool.Put(rs)
	if len(rs.rows) != len(t.rows) || rs.gen == ^uint32(0) {
		rs.rows, rs.gen = make([]rowState, len(t.rows)), 0
	}
	rs.gen++
	gen := rs.gen
	var (
		found []Finding
		state = rs.rows
	)
	// tokenStart returns the start of the token that holds offset i (see
	// rule.back). Triggers come in order, so the look back stops where the
	// last one's token began: a long token is read once.
	tokAt, tokStart := 0, 0
	tokenStart := func(i int) int {
		j := i
		for j > tokAt && isTokenByte(text[j-1]) && text[j-1] != '=' {
			j--
		}
		if j > tokAt || i < tokAt {
			tokStart = j
			if i < tokAt {
				for tokStart > 0 && isTokenByte(text[tokStart-1]) && text[tokStart-1] != '=' {
					tokStart--
				}
			}
		}
		tokAt = i
		return tokStart
	}
	try := func(rows []int, i, n int) {
		for _, ri := range rows {
			r, f := t.rows[ri].rule, t.rows[ri].form
			if keep != nil && !keep(r) {
				continue
			}
			start := i
			if r.back {
				start = tokenStart(i)
			}
			st := &state[ri]
			if st.gen != gen {
				*st = rowState{gen: gen}
			}
			if st.tried > start || r.run && start < st.reach {
				continue
			}
			st.tried = start + 1
			from := start
			if f.afterTrigger {
				from = i + n
			}
			s, e, ok := r.match(f, sc, start, from, &st.reach)
			if !ok || st.prev == [2]int{s, e} {
				// A command's triggers all find the whole command: it has
				// been judged once.
				continue
			}
			st.prev = [2]int{s, e}
			if r.category == CategoryInjection && (question(sc, s) || reported(sc.text(), s)) {
				continue
			}
			if (r.category == CategoryInjection || r.category == CategoryExfiltration) && sc.mention(s, e) {
				continue
			}
			found = append(found, Finding{Rule: r.id, Category: r.category, Start: s, End: e})
		}
	}
	t.triggered(text, u, try)
	return finish(text, found)
}

// match tries form f of r with its window starting at start; the expression
// is matched from from (start, or the end of the trigger). reach is set to
// the end of what the expression matched.
func (r *rule) match(f *form, sc *scanner, start, from int, reach *int) (int, int, bool) {
	text := sc.text()
	if start > 0 && (!r.before.ok(text[start-1]) || f.notInRun && text[start-1] == text[start]) {
		return 0, 0, false
	}
	if f.follows != 0 && (start == 0 || text[start-1] != f.follows) {
		return 0, 0, false
	}
	if f.at != nil && !f.at(text, start) || f.pre != nil && !f.pre(text, start) {
		return 0, 0, false
	}
	src := sc.v[r.on]
	end := alignEnd(src, start+r.maxLen)
	if len(f.need) > 0 {
		we := needEnd(src, start, end, f.needWithin)
		if !sc.holds(f.needSet, src, start, we) || !sc.holds(f.need2Set, src, start, we) {
			return 0, 0, false
		}
	}
	if from > end {
		return 0, 0, false
	}
	loc := f.re.get().FindStringSubmatchIndex(src[from:end])
	if loc == nil {
		return 0, 0, false
	}
	s, e := start, from+loc[1]
	*reach = e
	if !f.afterTrigger {
		s = from + loc[0]
	}
	for g := 2; g+1 < len(loc); g += 2 {
		if loc[g] >= 0 {
			s, e = from+loc[g], from+loc[g+1]
			break
		}
	}
	if s == e || e < len(text) && !r.after.ok(text[e]) {
		return 0, 0, false
	}
	if r.category == CategoryCredential && strings.Contains(text[s:e], redactedPrefix) {
		// A redaction marker is not a secret; without this Redact would not be
		// idempotent.
		return 0, 0, false
	}
	for _, check := range [...]func(string, int, int) (int, int, bool){f.check, r.check} {
		if check == nil {
			continue
		}
		var ok bool
		if s, e, ok = check(text, s, e); !ok || s >= e {
			return 0, 0, false
		}
	}
	if r.vet != nil {
		var ok bool
		if s, e, ok = r.vet(sc, s, e); !ok || s >= e {
			return 0, 0, false
		}
	}
	return s, e, true
}

func needEnd(src string, start, end, within int) int {
	if within > 0 && start+within < end {
		return start + within
	}
	return end
}

// alignEnd returns min(end, len(s)), moved back so as not to split a rune: a
// window ends where ranging over the whole text would also stop.
func alignEnd(s string, end int) int {
	if end >= len(s) {
		return len(s)
	}
	for i := end - 1; i >= 0 && i >= end-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(s[i]) {
			if _, n := utf8.DecodeRuneInString(s[i:]); i+n > end {
				return i
			}
			break
		}
	}
	return end
}

// finish merges the overlapping findings of each rule, sorts by Start then
// Rule, and fills in the lines.
func finish(text string, found []Finding) []Finding {
	if len(found) == 0 {
		return nil
	}
	slices.SortFunc(found, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.Rule, b.Rule), cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
	})
	merged := found[:1]
	for _, f := range found[1:] {
		p := &merged[len(merged)-1]
		if f.Rule == p.Rule && f.Start < p.End {
			p.End = max(p.End, f.End)
			continue
		}
		merged = append(merged, f)
	}
	slices.SortFunc(merged, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), strings.Compare(a.Rule, b.Rule), cmp.Compare(a.End, b.End))
	})
	line, at := 1, 0
	for i := range merged {
		line += strings.Count(text[at:merged[i].Start], "\n")
		at = merged[i].Start
		merged[i].Line = line
	}
	return merged
}

// foldTexts returns the case-folded text and the unleet text. Folding lowers
// ASCII letters always and other letters when their lower case has the same
// UTF-8 length (nearly all of them), so a match in the folded text is a match
// at the same bytes of the original. The unleet text also reads the digits and
// signs that stand in for letters as those letters (0→o 1→i 3→e 4→a 5→s 7→t
// @→a $→s), one byte for one byte.
//
// Both are made in one pass over the text, into one allocation, eight bytes
// at a time where the bytes are ASCII: folding and then unleeting the folded
// copy read the text twice a byte at a time, and that was a quarter of a
// scan of real notes. TestFoldTexts and FuzzPrefilters check it against
// foldStringByRune and unleetString.
func foldTexts(s string) (string, string) {
	i := 0
	for i+8 <= len(s) {
		w := load64(s, i)
		if w&hiBits != 0 || lowerASCII(w) != w || hasLeet(w) {
			break
		}
		i += 8
	}
	for i < len(s) && s[i] < utf8.RuneSelf && (s[i] < 'A' || s[i] > 'Z') && unleetByte[s[i]] == s[i] {
		i++
	}
	if i == len(s) {
		return s, s
	}
	buf := make([]byte, 2*len(s))
	f, u := buf[:len(s):len(s)], buf[len(s):]
	// Both start as copies, and only the bytes that change are written:
	// in a script without case most runes change in neither.
	copy(f, s)
	copy(u, s)
	folded, leet := false, false
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf && i+8 <= len(s) {
			// Not tried at a byte of a longer rune: in a script other
			// than Latin the word would rarely be ASCII.
			if w := load64(s, i); w&hiBits == 0 {
				l := lowerASCII(w)
				if l != w {
					binary.LittleEndian.PutUint64(f[i:], l)
					binary.LittleEndian.PutUint64(u[i:], l)
					folded = true
				}
				if hasLeet(l) {
					for j := i; j < i+8; j++ {
						u[j] = unleetByte[f[j]]
					}
					leet = true
				}
				i += 8
				continue
			}
		}
		if c < utf8.RuneSelf {
			l := c
			if 'A' <= c && c <= 'Z' {
				l = c + 'a' - 'A'
				folded = true
			}
			f[i], u[i] = l, unleetByte[l]
			leet = leet || u[i] != l
			i++
			continue
		}
		// Not ASCII: folded as foldString does; unleet leaves it as it is.
		n := int(caselessLead[c])
		if n == 0 || !continued(s, i, n) {
			var r rune
			r, n = utf8.DecodeRuneInString(s[i:])
			if !caseless(r) {
				if l := unicode.ToLower(r); l != r && utf8.RuneLen(l) == n {
					utf8.EncodeRune(f[i:], l)
					copy(u[i:i+n], f[i:i+n])
					folded = true
				}
			}
		}
		i += n
	}
	// Neither is written again: the strings share their bytes, where a
	// conversion would copy the whole text once more.
	fs := s
	if folded {
		fs = unsafe.String(unsafe.SliceData(f), len(f))
	}
	if !leet {
		return fs, fs
	}
	return fs, unsafe.String(unsafe.SliceData(u), len(u))
}

const (
	loBits = 0x0101010101010101
	hiBits = 0x8080808080808080
)

// load64 returns s[i:i+8] as a little-endian word.
func load64(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// lowerASCII lowers the letters of w, eight ASCII bytes: a byte from 'A'
// to 'Z' gets its 0x20 bit. No byte carries into the next (each is below
// 0x80, and 0x7f+0x3f < 0x100).
func lowerASCII(w uint64) uint64 {
	geA := w + 0x3f*loBits // high bit set where the byte is at least 'A'
	gtZ := w + 0x25*loBits // high bit set where the byte is past 'Z'
	return w | (geA&^gtZ&hiBits)>>2
}

// hasLeet reports whether w, eight ASCII bytes, holds a byte that unleet
// changes: a digit from '0' to '7', '@' or '$' (2 and 6 are reported too,
// and then mapped to themselves).
func hasLeet(w uint64) bool {
	digit := (w + 0x50*loBits) &^ (w + 0x48*loBits) & hiBits // '0' <= byte < '8'
	return digit != 0 || hasByte(w, '@') || hasByte(w, '$')
}

// hasByte reports whether w, eight ASCII bytes, holds c.
func hasByte(w uint64, c byte) bool {
	x := w ^ uint64(c)*loBits
	return (x-loBits)&^x&hiBits != 0
}

var unleetByte = func() (m [256]byte) {
	for i := range m {
		m[i] = byte(i)
	}
	for from, to := range map[byte]byte{'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', '$': 's'} {
		m[from] = to
	}
	return m
}()

func unleetString(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = unleetByte[c]
	}
	return string(b)
}

// foldString lowers s without changing any offset (see foldTexts).
//
// The text is copied once and lowered in place: a lower case of the same
// length takes the bytes of its upper case. Runes of the scripts without
// case (see caseless) are not looked up: Arabic, Indic or CJK prose is most
// of a note's runes in those languages, and unicode.ToLower searches its
// table for each.
func foldString(s string) string {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, len(s))
	copy(b, s)
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
			i++
			continue
		}
		if n := caselessLead[c]; n > 0 && continued(s, i, int(n)) {
			// A rune without case, or bytes that do not decode: kept
			// as they are either way, and no rune starts inside.
			i += int(n)
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !caseless(r) {
			if l := unicode.ToLower(r); l != r && utf8.RuneLen(l) == n {
				utf8.EncodeRune(b[i:], l)
			}
		}
		i += n
	}
	// b is not written again (see foldTexts).
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// caselessRanges are spans of code points none of which unicode.ToLower
// changes (TestCaselessRanges checks every one against the tables): the
// scripts without case, from Hebrew and Arabic through the Indic scripts
// to Thai, Tibetan and Myanmar; Ethiopic; the CJK, kana and Hangul blocks.
var caselessRanges = [...][2]rune{
	{0x0557, 0x109f},
	{0x10ce, 0x139f},
	{0x13f6, 0x1c8f},
	{0x2cf3, 0xa63f},
	{0xa7f6, 0xff20},
}

// caselessLead is, for a byte that starts a UTF-8 sequence, the length of
// the sequence when every rune it can start is in caselessRanges; 0 for
// the others.
var caselessLead = func() (m [256]byte) {
	for c := 0xc2; c <= 0xef; c++ {
		n, lo, span := 2, rune(c&0x1f)<<6, rune(0x40)
		if c >= 0xe0 {
			n, lo, span = 3, rune(c&0x0f)<<12, 0x1000
		}
		if caseless(lo) && caseless(lo+span-1) && sameRange(lo, lo+span-1) {
			m[c] = byte(n)
		}
	}
	return m
}()

// continued reports whether s[i+1:i+n] are continuation bytes, so that no
// rune starts there.
func continued(s string, i, n int) bool {
	if i+n > len(s) {
		return false
	}
	for _, c := range []byte(s[i+1 : i+n]) {
		if c&0xc0 != 0x80 {
			return false
		}
	}
	return true
}

// sameRange reports whether a and b are in the same one of caselessRanges.
func sameRange(a, b rune) bool {
	for _, x := range caselessRanges {
		if x[0] <= a && b <= x[1] {
			return true
		}
	}
	return false
}

// caseless reports whether r is in caselessRanges, where its lower case is
// itself.
func caseless(r rune) bool {
	for _, x := range caselessRanges {
		if r < x[0] {
			return false
		}
		if r <= x[1] {
			return true
		}
	}
	return false
}

// invisibleGap returns the length of the invisible character that s starts
// with when sep counts it as part of a gap between words (U+200B–U+200F,
// U+2060, U+061C), or 0. The directional marks are allowed in right-to-left
// text, and an instruction must not slip past the phrase rules by putting one
// between its words.
func invisibleGap(s string) int {
	switch {
	case len(s) >= 2 && s[0] == 0xd8 && s[1] == 0x9c:
		return 2
	case len(s) >= 3 && s[0] == 0xe2 && s[1] == 0x80 && s[2] >= 0x8b && s[2] <= 0x8f,
		len(s) >= 3 && s[0] == 0xe2 && s[1] == 0x81 && s[2] == 0xa0:
		return 3
	}
	return 0
}
