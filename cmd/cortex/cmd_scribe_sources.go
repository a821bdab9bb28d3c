package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

type scribeSourcesOptions struct {
	list bool
}

func newScribeSourcesCmd(a *app) *cobra.Command {
	var o scribeSourcesOptions
	cmd := &cobra.Command{
		Use:   "sources",
		Short: "Show where agents' transcripts were found, and what was skipped and why",
		Long: `sources lists, for every tool cortex reads, the folders it looked in (the
tool's default, or its override: CLAUDE_CONFIG_DIR for Claude Code,
COPILOT_HOME for the Copilot CLI, VSCODE_PORTABLE for VS Code), the
transcripts found there, and what it passed over and why (Windsurf's own
protobuf store among them). Tools without an adapter yet are named at the
end.`,
		Example: `  cortex scribe sources
  CLAUDE_CONFIG_DIR=~/work/.claude cortex scribe sources --list`,
		Args: args(0, 0, "takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScribeSources(a, o)
		},
	}
	cmd.Flags().BoolVar(&o.list, "list", false, "list every transcript found")
	return cmd
}

func runScribeSources(a *app, o scribeSourcesOptions) error {
	rep := scribe.Discover(a.scribeEnv())
	if a.asJSON {
		return a.printJSON(rep)
	}
	for _, d := range rep.Sources {
		printDiscovery(a.stdout, &d, o.list)
	}
	var names []string
	for _, k := range rep.NoAdapter {
		names = append(names, string(k))
	}
	if len(names) > 0 {
		fmt.Fprintf(a.stdout, "No adapter yet: %s\n", strings.Join(names, ", "))
	}
	return nil
}

// printDiscovery says, for each folder one tool's discovery looked in, how
// many transcripts it holds or why it was skipped, and then what else was
// skipped; with list, every transcript found too.
func printDiscovery(w io.Writer, d *transcript.Discovery, list bool) {
	fmt.Fprintf(w, "%s (%s)\n", d.Source.Name(), d.Source)
	rootSkip := map[string]string{}
	for _, s := range d.Skipped {
		rootSkip[s.Path] = s.Reason
	}
	for _, r := range d.Roots {
		from := r.From
		if from != "default" {
			from = "from " + from
		}
		if !r.Exists {
			fmt.Fprintf(w, "  %s (%s): skipped: %s\n", r.Path, from, rootSkip[r.Path])
			delete(rootSkip, r.Path)
			continue
		}
		var under []transcript.Found
		roles := map[string]int{}
		var size int64
		for _, f := range d.Files {
			if strings.HasPrefix(f.Path, r.Path+string(os.PathSeparator)) {
				under = append(under, f)
				roles[f.Role]++
				size += f.Size
			}
		}
		delete(rootSkip, r.Path)
		n := len(under)
		fmt.Fprintf(w, "  %s (%s): %d %s", r.Path, from, n, scribePlural(n, "transcript", "transcripts"))
		if n > 0 {
			fmt.Fprintf(w, " (%d %s, %d %s), %s", roles["session"], scribePlural(roles["session"], "session", "sessions"),
				roles["subagent"], scribePlural(roles["subagent"], "subagent", "subagents"), scribeSize(size))
		}
		fmt.Fprintln(w)
		if list {
			for _, f := range under {
				fmt.Fprintf(w, "    %s  %s, %s\n", f.Path, f.Role, scribeSize(f.Size))
			}
		}
	}
	for _, s := range d.Skipped {
		if _, ok := rootSkip[s.Path]; ok {
			fmt.Fprintf(w, "  skipped %s: %s\n", s.Path, s.Reason)
		}
	}
}

func scribeSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
