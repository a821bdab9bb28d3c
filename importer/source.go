package importer

import (
	"context"
	"sync"

	"github.com/cortexmem/cortex/memories"
)

// Source reads paths for memories.Import.
type Source struct {
	Options Options
}

var _ memories.Importer = (*Source)(nil)

// Read implements memories.Importer: it collects path and makes each item a
// save request whose provenance names its source and fingerprints it, with
// its wikilinks resolved to the other items (see links.go).
//
// Once the texts kept take textsHeld bytes, the text of each further item
// without links is set aside in a scratch file as soon as its file is
// parsed, and read back when the import needs it (ImportCandidate.Text):
// what a large import holds does not grow with the text it reads. Where no
// scratch file can be made, the texts stay in memory.
func (s *Source) Read(ctx context.Context, path string, progress func(done, total int)) (*memories.ImportSet, error) {
	o := s.Options
	o.Progress = progress
	texts, err := s.newTexts()
	if err != nil {
		texts = nil // keep them in memory
	}
	if texts != nil {
		o.parsed = texts.setAside
	}
	res, asides, err := collectAside(ctx, path, o)
	if err == nil && texts != nil {
		err = texts.err
	}
	if err != nil {
		if texts != nil {
			_ = texts.sc.Close() // thrown away: nothing to lose
		}
		return nil, err
	}
	set := &memories.ImportSet{Files: res.Files, Candidates: make([]memories.ImportCandidate, len(res.Items))}
	if texts != nil {
		set.Close = texts.sc.Close
	}
	links := itemLinks(res.Items, asides, o.Vault)
	for i := range res.Items {
		it := &res.Items[i]
		var a aside
		if asides != nil {
			a = asides[i]
		}
		hash := a.hash
		if hash == "" {
			hash = it.Hash()
		}
		c := memories.ImportCandidate{
			Source: it.Source,
			Links:  links[i],
			Request: memories.SaveRequest{
				Content: it.Content, Title: it.Title, Tags: it.Tags, Aliases: it.Aliases, Project: it.Project,
				Type: string(it.Type), Created: it.Created, Source: memories.SourceImport,
				Provenance: memories.Provenance{SourcePath: it.Source, SourceTool: "import:" + string(it.Kind), SourceHash: hash},
			},
		}
		if a.text > 0 {
			c.Text = texts.reader(a.text - 1)
		}
		set.Candidates[i] = c
	}
	for _, sk := range res.Skips {
		set.Skips = append(set.Skips, memories.ImportSkip{Source: sk.Source, Reason: sk.Reason, Kind: res.Kinds[sk.Source]})
	}
	return set, nil
}

// texts holds the texts of an import's items in a scratch file while the
// import runs, once those kept in memory take hold bytes.
type texts struct {
	sc   *scratch
	mu   sync.Mutex // parsing goroutines set texts aside at once
	err  error      // the first error writing one
	hold int        // textsHeld
	held int        // bytes of the texts kept in memory so far
}

// textsHeld is how many bytes of texts an import keeps in its items before
// it sets the others aside: the texts of 10,000 real-shaped notes take about
// 18 MB, and copying them to the scratch and back was a twentieth of a dry
// run's CPU. A larger import holds this much more than it did, still
// bounded.
var textsHeld = 32 << 20

func (s *Source) newTexts() (*texts, error) {
	st, err := s.Scratch()
	if err != nil {
		return nil, err
	}
	return &texts{sc: st.(*scratch), hold: textsHeld}, nil
}

// setAside works out what the import needs of an item's text while it is at
// hand (its hash, its links) and, when it has no link to render and the
// texts kept take their share of memory already, moves the text to the
// scratch file.
func (t *texts) setAside(it *Item) aside {
	a := aside{hash: it.Hash()}
	if linksKinds[it.Kind] {
		a.links, a.scanned = scanLinks(it.Content, it.Kind != KindMCPMemory), true
	}
	if len(a.links) > 0 {
		return a // its links are rendered from the text: it stays
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return a
	}
	if t.held+len(it.Content) <= t.hold {
		t.held += len(it.Content)
		return a
	}
	i := len(t.sc.ends)
	if t.err = t.sc.Put(i, []byte(it.Content)); t.err == nil {
		a.text, it.Content = i+1, ""
	}
	return a
}

// reader reads the i-th text back.
func (t *texts) reader(i int) func() (string, error) {
	return func() (string, error) { return t.sc.getString(i) }
}
