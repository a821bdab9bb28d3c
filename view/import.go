package view

import "github.com/cortexmem/cortex/memories"

// Import is what an import did (or, in a dry run, would do).
type Import struct {
	Path       string      `json:"path" jsonschema:"the file or folder imported"`
	DryRun     bool        `json:"dry_run"`
	Files      int         `json:"files" jsonschema:"how many files were read"`
	Candidates int         `json:"candidates" jsonschema:"how many memories the files hold"`
	Imported   int         `json:"imported"`
	Duplicates int         `json:"duplicates"`
	Unsafe     int         `json:"unsafe"`
	Skipped    int         `json:"skipped"`
	Memories   []Imported  `json:"memories" jsonschema:"the memories imported (in a dry run, that would be)"`
	Rejected   []Rejection `json:"rejected" jsonschema:"the candidates refused, with the reason"`
	Skips      []Skip      `json:"skips" jsonschema:"the parts of the source not read, with the reason"`
	Message    string      `json:"message" jsonschema:"the summary: Imported N memories from M candidates (…)"`
}

// Imported is a memory an import saved, or would save in a dry run.
type Imported struct {
	ID      string `json:"id,omitempty" jsonschema:"the new memory's id; absent in a dry run"`
	ShortID string `json:"short_id,omitempty"`
	Title   string `json:"title"`
	Project string `json:"project"`
	Path    string `json:"path,omitempty" jsonschema:"the note's absolute path in the Obsidian vault; absent in a dry run"`
	Source  string `json:"source" jsonschema:"where in the source the memory came from: a file, and a heading or an item"`
}

// Rejection is a candidate an import refused.
type Rejection struct {
	Source   string `json:"source"`
	Title    string `json:"title"`
	Reason   string `json:"reason" jsonschema:"the message a save would give"`
	Kind     string `json:"kind" jsonschema:"duplicate or unsafe"`
	Rule     string `json:"rule,omitempty" jsonschema:"for an unsafe candidate, the rule it broke"`
	Existing string `json:"existing,omitempty" jsonschema:"for a duplicate, the id of the memory it repeats (absent when it repeats an earlier candidate of the same import)"`
}

// Skip is a part of a source an import did not read.
type Skip struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
	Kind   string `json:"kind,omitempty" jsonschema:"what the summary counts the skip as: hidden folder, hidden file, dependency folder, Claude Code file or folder, session transcript, data file, attachment, secret store; absent for other reasons"`
}

// ImportOf is the view of an import.
func ImportOf(res *memories.ImportResult, abs Abs) Import {
	out := Import{
		Path: res.Path, DryRun: res.DryRun, Files: res.Files, Candidates: res.Candidates, Imported: res.Imported,
		Duplicates: res.Duplicates, Unsafe: res.Unsafe, Skipped: res.Skipped,
		Memories: make([]Imported, 0, len(res.Memories)), Rejected: make([]Rejection, 0, len(res.Rejected)),
		Skips: make([]Skip, 0, len(res.Skips)), Message: res.Message(),
	}
	for _, m := range res.Memories {
		path := m.Path
		if path != "" {
			path = abs(path)
		}
		out.Memories = append(out.Memories, Imported{ID: m.ID, ShortID: m.ShortID, Title: m.Title, Project: m.Project, Path: path, Source: m.Source})
	}
	for _, r := range res.Rejected {
		out.Rejected = append(out.Rejected, Rejection{Source: r.Source, Title: r.Title, Reason: r.Reason, Kind: r.Kind, Rule: r.Rule, Existing: r.Existing})
	}
	for _, s := range res.Skips {
		out.Skips = append(out.Skips, Skip{Source: s.Source, Reason: s.Reason, Kind: s.Kind})
	}
	return out
}
