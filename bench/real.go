package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cortexmem/cortex/memories"
)

// RealProject is the one project of every real-shaped memory: a documentation
// vault imported whole lands in one project folder, tens of thousands of notes
// side by side, which is what made real vaults an order of magnitude slower
// than the synthetic ones spread over twelve projects.
const RealProject = "handbook"

// langShare is the share of real-shaped notes in each language, in parts; a
// language of the corpus not named here gets one part. English leads, as in
// most documentation vaults, then the languages the corpus has whole guides
// in; the languages of the multilingual corpus share the rest.
var langShare = map[string]int{"en": 30, "zh": 8, "ja": 8, "ru": 8, "es": 6, "pt": 6, "ko": 6, "fa": 6}

// entityParts make the code identifiers, file names and product names that
// real notes are full of and that give a real vault its long tail of words
// found in a few notes only.
var entityParts = strings.Fields(`task query filter sort group status date due start done cancel
	render parse config cache index vault plugin theme layout route page link embed block
	heading table list file folder path user session token client server request response
	worker queue job batch stream buffer reader writer handler service store record event
	search match score rank limit offset cursor shard replica backup restore migrate deploy
	build test bench trace metric log level mode flag option setting default custom local
	remote sync merge commit branch review release version schema field value key type`)

// RealGenerator makes memories with the shape of a real documentation vault
// imported into cortex: one project, notes of real length (a few hundred bytes
// to tens of kilobytes, a few kilobytes typically) in many languages and
// scripts, markdown with headings, lists, tables, callouts, fenced code and
// links, titles that are heading paths, and a vocabulary with a long tail of
// identifiers. Its text is real documentation recombined (see Corpus). The
// same seed and corpus always give the same memories.
type RealGenerator struct {
	r      *rand.Rand
	c      *Corpus
	start  time.Time
	langs  []string
	cum    []int // cumulative shares of langs
	zipf   *rand.Zipf
	titles []string // note titles so far, for links
	// minted is the time of the last id: a person's notes get their ids
	// when cortex import writes them, about 0.65 ms apart, so an import's
	// ids share their first eight characters by the hundred (see
	// index.Catalog.ShortID), however old the notes are.
	minted time.Time
}

// mintStep is the time between two ids minted by an import.
const mintStep = 650 * time.Microsecond

// NewRealGenerator returns a real-shaped generator over c whose dates fall in
// the three years before end.
func NewRealGenerator(c *Corpus, seed uint64, end time.Time) *RealGenerator {
	r := rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc909))
	g := &RealGenerator{r: r, c: c, start: end.AddDate(-3, 0, 0), zipf: rand.NewZipf(r, 1.1, 2, 1<<22), minted: end.Add(-time.Hour)}
	total := 0
	for _, l := range c.Langs {
		share, ok := langShare[l]
		if !ok {
			share = 1
		}
		total += share
		g.langs = append(g.langs, l)
		g.cum = append(g.cum, total)
	}
	return g
}

// Projects implements Source.
func (g *RealGenerator) Projects() []string { return []string{RealProject} }

func (g *RealGenerator) lang() string {
	n := g.r.IntN(g.cum[len(g.cum)-1])
	for i, c := range g.cum {
		if n < c {
			return g.langs[i]
		}
	}
	return g.langs[0]
}

func (g *RealGenerator) doc(lang string) *corpusDoc {
	ds := g.c.docs[lang]
	return &ds[g.r.IntN(len(ds))]
}

// entity is the i-th identifier of an endless list; the generator draws i
// from a Zipf distribution, so a few are everywhere and most are rare.
func entity(i uint64) string {
	p := uint64(len(entityParts))
	a, b, c := entityParts[i%p], entityParts[(i/p)%p], i/(p*p)
	switch i % 5 {
	case 0:
		return fmt.Sprintf("%s%s%d", a, strings.ToUpper(b[:1])+b[1:], c)
	case 1:
		return fmt.Sprintf("%s_%s_%d", a, b, c)
	case 2:
		return fmt.Sprintf("src/%s/%s%d.ts", a, b, c)
	case 3:
		return fmt.Sprintf("%s-%s-%d", a, b, c)
	}
	return fmt.Sprintf("%s.%s%d()", strings.ToUpper(a[:1])+a[1:], b, c)
}

// bodyLen draws a body length in bytes: log-normal around 2.4 KB, from 300
// bytes to 9 KB (a memory holds at most memories.MaxContentChars characters;
// import cuts longer sections).
func (g *RealGenerator) bodyLen() int {
	n := 2400 * math.Exp(0.8*g.r.NormFloat64())
	return int(min(max(n, 300), 9000))
}

// Memory returns the next memory the safety scan lets through (see Clean).
func (g *RealGenerator) Memory() *memories.Memory {
	for {
		if m := g.memory(); Clean(m) {
			return m
		}
	}
}

func (g *RealGenerator) memory() *memories.Memory {
	lang := g.lang()
	d := g.doc(lang)
	heading := d.title
	if len(d.headings) > 0 {
		heading = d.headings[g.r.IntN(len(d.headings))]
	}
	title := d.title
	if heading != d.title {
		title += " › " + heading
	}
	title = cutRunes(strings.Join(strings.Fields(title), " "), memories.MaxTitleChars)
	body := g.body(lang, d)
	created := g.start.Add(time.Duration(g.r.Int64N(int64(3 * 365 * 24 * time.Hour)))).UTC().Truncate(time.Second)
	tags := append([]string(nil), d.tags...)
	if g.r.IntN(3) == 0 {
		tags = append(tags, tagPool[g.r.IntN(len(tagPool))])
	}
	if tags, _ = memories.NormalizeTags(tags); len(tags) > 6 {
		tags = tags[:6]
	}
	g.titles = append(g.titles, title)
	g.minted = g.minted.Add(mintStep)
	return &memories.Memory{
		ID:         newID(g.r, g.minted),
		Title:      title,
		Type:       memories.TypeNote,
		Project:    RealProject,
		Tags:       tags,
		Source:     memories.SourceImport,
		Status:     memories.StatusActive,
		Importance: memories.DefaultImportance,
		Created:    created,
		Updated:    created,
		Body:       body,
		Provenance: memories.Provenance{
			SourcePath: "docs/" + lang + "/" + d.path,
			SourceHash: fmt.Sprintf("%016x", g.r.Uint64()),
		},
	}
}

// body recombines blocks of lang's documents, starting in d, until it has a
// real length.
func (g *RealGenerator) body(lang string, d *corpusDoc) string {
	want := g.bodyLen()
	var b strings.Builder
	i := g.r.IntN(len(d.blocks))
	for b.Len() < want {
		if i == len(d.blocks) || g.r.IntN(12) == 0 {
			d, i = g.doc(lang), 0
			if len(d.headings) > 0 {
				fmt.Fprintf(&b, "### %s\n\n", d.headings[g.r.IntN(len(d.headings))])
			}
		}
		block := g.decorate(d.blocks[i])
		i++
		if b.Len() > 0 && b.Len()+len(block) > 9500 {
			continue // too long for what is left: the next block may fit
		}
		b.WriteString(block)
		b.WriteString("\n\n")
	}
	return cutRunes(strings.TrimSpace(b.String()), memories.MaxContentChars-200)
}

// decorate adds to a paragraph what makes each real note different: the
// names of things (identifiers, files) and links to other notes.
func (g *RealGenerator) decorate(block string) string {
	if strings.HasPrefix(block, "```") || strings.HasPrefix(block, "|") || strings.HasPrefix(block, "<") {
		return block
	}
	var extra []string
	for k := g.r.IntN(4); k > 0; k-- {
		extra = append(extra, "`"+entity(g.zipf.Uint64())+"`")
	}
	if len(g.titles) > 0 && g.r.IntN(4) == 0 {
		extra = append(extra, "[["+g.titles[g.r.IntN(len(g.titles))]+"]]")
	}
	if len(extra) == 0 {
		return block
	}
	return block + " " + strings.Join(extra, " ")
}

// Query returns a search query as a person types one: one to three words of
// a note in one of the languages, or an identifier.
func (g *RealGenerator) Query() string {
	if g.r.IntN(5) == 0 {
		return entity(g.zipf.Uint64())
	}
	for {
		d := g.doc(g.lang())
		block := d.blocks[g.r.IntN(len(d.blocks))]
		if strings.HasPrefix(block, "```") {
			continue
		}
		var words []string
		for _, w := range strings.Fields(block) {
			if w = strings.TrimFunc(w, notWordRune); w != "" {
				words = append(words, w)
			}
		}
		if len(words) == 0 {
			continue
		}
		i := g.r.IntN(len(words))
		w := words[i]
		if utf8.RuneCountInString(w) > 12 && strings.IndexFunc(w, notWordRune) < 0 {
			// A script written without spaces: a few characters of it.
			rs := []rune(w)
			at := g.r.IntN(len(rs) - 4)
			return string(rs[at : at+2+g.r.IntN(3)])
		}
		n := 1 + g.r.IntN(3)
		return strings.Join(words[i:min(i+n, len(words))], " ")
	}
}

// Question returns a longer query as an agent asks one: 8 to 16 words of a
// note's sentence, in one of the languages (a few dozen characters of a
// script written without spaces).
func (g *RealGenerator) Question() string {
	for {
		d := g.doc(g.lang())
		block := d.blocks[g.r.IntN(len(d.blocks))]
		if strings.HasPrefix(block, "```") {
			continue
		}
		words := strings.Fields(block)
		if len(words) == 1 && utf8.RuneCountInString(words[0]) > 40 {
			rs := []rune(words[0])
			at := g.r.IntN(len(rs) - 24)
			return string(rs[at : at+16+g.r.IntN(9)])
		}
		if len(words) < 8 {
			continue
		}
		n := 8 + g.r.IntN(9)
		i := g.r.IntN(len(words) - min(n, len(words)) + 1)
		return strings.Join(words[i:min(i+n, len(words))], " ")
	}
}

// WriteNotes writes a folder of markdown documents as a person's
// documentation vault holds them, with n sections to import in all: folders
// per language and topic, frontmatter, a title and sections of real length
// under "##" headings (some with "###" subsections, which import also cuts
// on).
func (g *RealGenerator) WriteNotes(dir string, n int) error {
	for i, sections := 0, 0; sections < n; i++ {
		lang := g.lang()
		d := g.doc(lang)
		sub := filepath.Join(dir, lang, fmt.Sprintf("topic-%02d", i%40))
		if err := os.MkdirAll(sub, 0o700); err != nil {
			return err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: %q\n", d.title)
		if len(d.tags) > 0 {
			fmt.Fprintf(&b, "tags: [%s]\n", strings.Join(d.tags, ", "))
		}
		fmt.Fprintf(&b, "---\n\n# %s\n\n", d.title)
		for k := 2 + g.r.IntN(6); k > 0 && sections < n; k-- {
			h := d.title
			if len(d.headings) > 0 {
				h = d.headings[g.r.IntN(len(d.headings))]
			}
			body := g.body(lang, d)
			fmt.Fprintf(&b, "## %s\n\n%s\n\n", h, body)
			sections += 1 + strings.Count(body, "\n### ")
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("note-%05d.md", i)), []byte(b.String()), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// notWordRune reports whether r is neither a letter, a digit nor a mark (the
// vowel signs of Indic scripts are marks).
func notWordRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
}

// cutRunes shortens s to at most n runes.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
