package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcripts"
	"github.com/cortexmem/cortex/wiring"
)

func newTranscriptsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "transcripts",
		Short: "Search every agent's conversations on this machine",
		Long: `transcripts searches the raw conversations coding agents write to disk — not
the memories, but what was said: what you asked, what the agent answered, the
tools it ran and the files it touched — in every session of every tool cortex
reads (` + strings.Join(scribe.Tools(), ", ") + `).

Its index lives in the state folder (<home>/transcripts/index/, per machine,
never in the vault) and is brought up to date before every search: new
sessions are read, sessions that grew are read from where the last search
stopped, rewritten ones again, deleted ones dropped. Credentials are redacted
before anything is indexed. Each tool's home override is honoured
(CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &usageError{msg: fmt.Sprintf("transcripts: unknown command %q", args[0]), hint: cmd.CommandPath()}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newTranscriptsSearchCmd(a), newTranscriptsShowCmd(a), newTranscriptsSourcesCmd(a),
		newTranscriptsReindexCmd(a), newTranscriptsEvalCmd(a))
	return cmd
}

// transcripts is the transcript index of the state folder, over the
// transcripts discovery finds, redacted with the config's rules.
func (a *app) transcripts() (*transcripts.Service, error) {
	if err := a.resolve(); err != nil {
		return nil, err
	}
	o := wiring.TranscriptOptions{Env: a.scribeEnv()}
	if isTerminal(a.stderr) {
		o.Progress = func(read, total int) {
			fmt.Fprintf(a.stderr, "\rcortex: indexing transcripts %d/%d", read, total)
			if read == total {
				fmt.Fprintln(a.stderr)
			}
		}
	}
	return wiring.Transcripts(a.settings, o), nil
}

// warnBusy tells the person when the index was searched while another
// process was updating it.
func (a *app) warnBusy(rep *transcripts.SyncReport) {
	if rep != nil && rep.Busy {
		fmt.Fprintln(a.stderr, "cortex: another cortex process is updating the transcript index; these results may miss the newest turns")
	}
}
