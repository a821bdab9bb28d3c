package scribe

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cortexmem/cortex/adapters"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/transcript"
)

// Tools names the tools an adapter reads, in the priority order of
// transcript.Sources.
func Tools() []string {
	var out []string
	for _, ad := range adapters.All() {
		out = append(out, string(ad.Source()))
	}
	return out
}

// SourceReport is where every tool's transcripts were looked for, what was
// found and passed over, and the tools cortex has no adapter for yet.
type SourceReport struct {
	Sources   []transcript.Discovery  `json:"sources"`
	NoAdapter []transcript.SourceKind `json:"no_adapter"`
}

// Discover runs every adapter's discovery in env: the tools' default
// folders under env.Home, or those their override variables name.
func Discover(env transcript.Env) SourceReport {
	// An empty list, not null, when every tool has an adapter.
	r := SourceReport{NoAdapter: []transcript.SourceKind{}}
	for _, ad := range adapters.All() {
		r.Sources = append(r.Sources, ad.Discover(env))
	}
	for _, k := range transcript.Sources() {
		if _, ok := adapters.For(k); !ok {
			r.NoAdapter = append(r.NoAdapter, k)
		}
	}
	return r
}

// Selection says which transcripts to read: every one discovery finds (All),
// or the files named (Paths, of the tool As names or each recognised from
// its content), written since a time.
type Selection struct {
	// All selects every transcript discovery finds in Env.
	All bool
	// Paths are transcript files a person named; they are complete (Final).
	Paths []string
	// As names the tool that wrote Paths (any name transcript.ParseSource
	// takes); empty, each file's tool is recognised from its first records.
	As string
	// Since, when set, keeps only the files modified at or after it.
	Since time.Time
	// Env is what discovery reads: the home folder and the tools' override
	// variables (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME, …).
	Env transcript.Env
}

// Check refuses selections that contradict themselves, naming the flag a
// person gives for each field.
func (s Selection) Check() error {
	switch {
	case s.All && len(s.Paths) > 0:
		return &memories.ArgError{Arg: "--all", Rule: "reads every transcript found; name files or give --all, not both"}
	case s.All && s.As != "":
		return &memories.ArgError{Arg: "--as", Rule: "names the tool of the files named; with --all each file's tool is known"}
	}
	return nil
}

// Select returns the files s selects, each with the adapter that reads it,
// and what it passed over and why: what discovery skipped, and the files
// not modified since s.Since. Named files are made absolute; one that is
// missing, a folder or of no tool cortex reads is an error (ErrInvalid),
// as is an unknown As.
func Select(s Selection) ([]File, []transcript.Skip, error) {
	if err := s.Check(); err != nil {
		return nil, nil, err
	}
	var files []File
	var skipped []transcript.Skip
	if s.All {
		files, skipped = discovered(s.Env)
	} else {
		var err error
		if files, err = named(s.Paths, s.As); err != nil {
			return nil, nil, err
		}
	}
	if s.Since.IsZero() {
		return files, skipped, nil
	}
	kept, old := modifiedSince(files, s.Since)
	return kept, append(skipped, old...), nil
}

// discovered is every transcript discovery finds, with its tool's adapter,
// and what discovery skipped.
func discovered(env transcript.Env) ([]File, []transcript.Skip) {
	var files []File
	var skipped []transcript.Skip
	for _, d := range Discover(env).Sources {
		ad, _ := adapters.For(d.Source)
		for _, f := range d.Files {
			files = append(files, File{Path: f.Path, Adapter: adapters.Resolve(ad, f.Path)})
		}
		skipped = append(skipped, d.Skipped...)
	}
	return files, skipped
}

// named opens each path to tell its adapter (the one as names, else the one
// that recognises its start) and returns the files with absolute paths.
func named(paths []string, as string) ([]File, error) {
	var files []File
	for _, p := range paths {
		t, err := Open(p, as)
		if err != nil {
			return nil, err
		}
		ad := t.Adapter
		t.Close()
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: abs, Adapter: ad, Final: true})
	}
	return files, nil
}

// modifiedSince splits files into those modified at or after since and the
// others, skipped with the reason.
func modifiedSince(files []File, since time.Time) (kept []File, skipped []transcript.Skip) {
	for _, f := range files {
		fi, err := os.Stat(f.Path)
		switch {
		case err != nil:
			skipped = append(skipped, transcript.Skip{Path: f.Path, Reason: err.Error()})
		case fi.ModTime().Before(since):
			skipped = append(skipped, transcript.Skip{Path: f.Path, Reason: fmt.Sprintf("not modified since %s", since.Format(time.RFC3339))})
		default:
			kept = append(kept, f)
		}
	}
	return kept, skipped
}
