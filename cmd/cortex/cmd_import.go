package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/view"
)

type importOptions struct {
	project string
	dryRun  bool
}

func newImportCmd(a *app) *cobra.Command {
	var o importOptions
	cmd := &cobra.Command{
		Use:   "import PATH",
		Short: "Import notes and other tools' memories from a file or a folder",
		Long: `Import reads a file or a folder (recursively) and saves what it holds as memories:
markdown notes and Obsidian vaults (split at headings of levels 1 to 3, each
section a memory titled by its heading path; a note's own title, tags, aliases
and dates are kept), CLAUDE.md and AGENTS.md (each section a convention of the
project they sit in), Claude Code's auto memory, the MCP memory server's JSONL
knowledge graph, and Claude.ai and ChatGPT conversations.json exports. The kind
of each file is told from its content as well as its name. Other files found in
a folder (JSON, .txt, .csv, .yaml…) are data, skipped with a reason; name one
on its own to import it (JSON as notes, anything else as plain text).

Every memory passes the checks of save: the security scan and dedup against the
memories already there and the ones imported before it. Importing the same source
again adds nothing. Binary files, attachments, files over the size limit and
notes whose frontmatter does not parse are skipped with a reason; nothing stops
the run but a broken store.

The path must be inside your home folder or a root listed in import.allowed_roots
in the config file. A folder import never reads credential stores (~/.ssh,
~/.aws, ~/.docker, ~/.kube, ~/.config/gh, .netrc, .npmrc, .pypirc, .env…),
shell histories, keychains, browser profiles or key files: each is skipped
with its rule. Name one such file on its own to import it; its content is
still scanned. (An agent's memory_import is refused all of them, and every
hidden path but agents' instruction files, unless import.agent_allow lists it.)`,
		Example: `  cortex import ~/notes
  cortex import --project my-webapp ~/src/my-webapp/CLAUDE.md
  cortex import --dry-run --json ~/Downloads/conversations.json`,
		Args: args(1, 1, "takes exactly one file or folder"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImport(cmd.Context(), a, o, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.project, "project", "", "put every imported memory in this project (default: the one the source names, else general)")
	f.BoolVar(&o.dryRun, "dry-run", false, "check everything, write nothing")
	return cmd
}

// listShown is how many rejections and skips the text output lists.
const listShown = 20

func runImport(ctx context.Context, a *app, o importOptions, path string) error {
	defer importGC(a.getenv, o.dryRun)()
	svc, err := a.open()
	if err != nil {
		return err
	}
	req := memories.ImportRequest{Path: path, Project: o.project, DryRun: o.dryRun}
	if !a.asJSON && isTerminal(a.stderr) {
		req.Progress = progress(a.stderr)
	}
	res, err := svc.Import(ctx, req)
	if err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(view.ImportOf(res, a.store.Vault().Abs))
	}
	w := a.stdout
	fmt.Fprintln(w, res.Message())
	if n := len(res.Rejected); n > 0 {
		fmt.Fprintln(w, "Rejected:")
		for _, r := range res.Rejected[:min(n, listShown)] {
			fmt.Fprintf(w, "  %s: %s\n", r.Source, r.Reason)
		}
		more(w, n)
	}
	if n := len(res.Skips); n > 0 {
		fmt.Fprintln(w, "Skipped:")
		for _, s := range res.Skips[:min(n, listShown)] {
			fmt.Fprintf(w, "  %s: %s\n", s.Source, s.Reason)
		}
		more(w, n)
	}
	return nil
}

func more(w io.Writer, n int) {
	if n > listShown {
		fmt.Fprintf(w, "  … and %d more (--json lists them all)\n", n-listShown)
	}
}

// importMemoryLimit is the memory an import's collector aims to stay under.
// An import holds about 150–300 MB live whatever its size (the texts,
// fingerprints and index analysis of two batches, the words of the pool of
// fingerprints), and with the default setting the collector lets the heap
// grow to twice what was live at its last run: peaks of 620–670 MB at
// 38,481 candidates, 815 MB at 49,000. The limit caps that growth; below it
// nothing changes (an import of 10,000 notes peaks at about 400 MB), and
// where the heap nears it the collector runs more often, never more than
// half the time (the runtime caps it). A lower limit was measured to double
// the collections of a 38,481-candidate import.
const importMemoryLimit = 512 << 20

// dryRunGCPercent is the collector's GOGC for a dry run. A dry run holds
// far less than an import that writes (no index analysis): about 40 MB live
// at 10,000 notes, where collecting at every doubling was 10% of its CPU.
// Collecting at every quadrupling took 1.76 → 1.56 s of CPU and the peak
// from 98 to 142 MB; importMemoryLimit still bounds a large dry run's heap.
const dryRunGCPercent = 300

// importGC sets importMemoryLimit for an import, and dryRunGCPercent for a
// dry run, unless the person tuned the collector (GOGC or GOMEMLIMIT in
// getenv); it returns what restores the settings before.
func importGC(getenv func(string) string, dryRun bool) (restore func()) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	limit := debug.SetMemoryLimit(importMemoryLimit)
	percent := -1
	if dryRun {
		percent = debug.SetGCPercent(dryRunGCPercent)
	}
	return func() {
		debug.SetMemoryLimit(limit)
		if dryRun {
			debug.SetGCPercent(percent)
		}
	}
}
