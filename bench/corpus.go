package bench

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cortexmem/cortex/vault"
)

// Corpus is real documentation cut into markdown blocks, per language, for
// the real-shaped generator to recombine: paragraphs, lists, tables, fenced
// code, callouts and the headings between them, as people write them.
//
// It is read from the repository's fixtures: the Tasks plugin's Obsidian vault
// and VitePress's guide in eight languages (both MIT, see
// fixtures/import/README.md) and the multilingual corpus written for cortex's
// tests (fixtures/multilingual, twenty-seven languages and scripts). Nothing
// of it is copied into the repository by the benchmark: the vaults it makes
// are temporary.
type Corpus struct {
	// Langs are the languages, in a fixed order.
	Langs []string
	docs  map[string][]corpusDoc
}

// corpusDoc is one source document: its title, its headings and its other
// blocks in order.
type corpusDoc struct {
	path     string
	title    string
	tags     []string
	headings []string
	blocks   []string
}

// LoadCorpus reads the corpus from the repository's fixtures folder.
func LoadCorpus(fixtures string) (*Corpus, error) {
	c := &Corpus{docs: map[string][]corpusDoc{}}
	add := func(lang string, d corpusDoc) {
		if len(d.blocks) == 0 {
			return
		}
		if _, ok := c.docs[lang]; !ok {
			c.Langs = append(c.Langs, lang)
		}
		c.docs[lang] = append(c.docs[lang], d)
	}
	tasks := filepath.Join(fixtures, "import", "obsidian-tasks", "docs")
	vitepress := filepath.Join(fixtures, "import", "vitepress", "docs")
	for _, root := range []string{tasks, vitepress} {
		err := filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if de.IsDir() || !strings.HasSuffix(p, ".md") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			lang := "en"
			if root == vitepress {
				lang, _, _ = strings.Cut(rel, "/")
			}
			add(lang, parseDoc(rel, string(data)))
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("corpus: %w (-fixtures must name the repository's fixtures folder)", err)
		}
	}
	ml := filepath.Join(fixtures, "multilingual")
	files, err := filepath.Glob(filepath.Join(ml, "*.txt"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	for _, f := range files {
		lang := strings.TrimSuffix(filepath.Base(f), ".txt")
		if lang == "attacks" {
			continue // texts that must be refused
		}
		notes, err := readMultilingual(f)
		if err != nil {
			return nil, err
		}
		// Each note of the file is a paragraph of one document per language:
		// they are short, so a generated note draws several of them.
		d := corpusDoc{path: lang + ".txt", title: lang}
		for _, n := range notes {
			if h, rest, ok := strings.Cut(n, "\n"); ok && strings.HasPrefix(h, "#") {
				d.headings = append(d.headings, strings.TrimLeft(h, "# "))
				n = strings.TrimSpace(rest)
			}
			if n != "" {
				d.blocks = append(d.blocks, n)
			}
		}
		add(lang, d)
	}
	if len(c.Langs) == 0 {
		return nil, errors.New("corpus: no documents found (-fixtures must name the repository's fixtures folder)")
	}
	return c, nil
}

// readMultilingual reads the notes of a multilingual corpus file: "%%" lines
// separate them, "#" lines before the first are its header.
func readMultilingual(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var notes []string
	var cur strings.Builder
	header := true
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if header && strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "##") {
			continue
		}
		header = false
		if l == "%%" {
			notes = append(notes, strings.TrimSpace(cur.String()))
			cur.Reset()
			continue
		}
		cur.WriteString(l)
		cur.WriteByte('\n')
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		notes = append(notes, s)
	}
	return notes, sc.Err()
}

// parseDoc cuts a markdown document into blocks: runs of lines between blank
// lines, a fenced code block whole, headings on their own.
func parseDoc(path, text string) corpusDoc {
	d := corpusDoc{path: path, title: strings.TrimSuffix(filepath.Base(path), ".md")}
	if n, err := vault.ParseNote([]byte(text)); err == nil {
		text = string(n.Body)
		if t := n.String("title"); t != "" {
			d.title = t
		}
		d.tags = n.Strings("tags")
	}
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			d.blocks = append(d.blocks, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\r")
		switch {
		case strings.HasPrefix(l, "```"):
			flush()
			fence := []string{l}
			for i++; i < len(lines); i++ {
				fence = append(fence, strings.TrimRight(lines[i], "\r"))
				if strings.HasPrefix(lines[i], "```") {
					break
				}
			}
			d.blocks = append(d.blocks, strings.Join(fence, "\n"))
		case strings.HasPrefix(l, "#"):
			flush()
			h := strings.TrimSpace(strings.TrimLeft(l, "#"))
			// VitePress's heading anchors ("{#routing}") are not text.
			if j := strings.Index(h, " {#"); j > 0 {
				h = h[:j]
			}
			if h != "" {
				if strings.HasPrefix(l, "# ") && d.title == strings.TrimSuffix(filepath.Base(path), ".md") {
					d.title = h
				}
				d.headings = append(d.headings, h)
			}
		case strings.TrimSpace(l) == "":
			flush()
		default:
			cur = append(cur, l)
		}
	}
	flush()
	return d
}
