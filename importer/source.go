package importer

import (
	"context"

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
func (s *Source) Read(ctx context.Context, path string, progress func(done, total int)) (*memories.ImportSet, error) {
	o := s.Options
	o.Progress = progress
	res, err := Collect(ctx, path, o)
	if err != nil {
		return nil, err
	}
	set := &memories.ImportSet{Files: res.Files, Candidates: make([]memories.ImportCandidate, len(res.Items))}
	links := itemLinks(res.Items, o.Vault)
	for i := range res.Items {
		it := &res.Items[i]
		set.Candidates[i] = memories.ImportCandidate{
			Source: it.Source,
			Links:  links[i],
			Request: memories.SaveRequest{
				Content: it.Content, Title: it.Title, Tags: it.Tags, Aliases: it.Aliases, Project: it.Project,
				Type: string(it.Type), Created: it.Created, Source: memories.SourceImport,
				Provenance: memories.Provenance{SourcePath: it.Source, SourceTool: "import:" + string(it.Kind), SourceHash: it.Hash()},
			},
		}
	}
	for _, sk := range res.Skips {
		set.Skips = append(set.Skips, memories.ImportSkip{Source: sk.Source, Reason: sk.Reason, Kind: res.Kinds[sk.Source]})
	}
	return set, nil
}
