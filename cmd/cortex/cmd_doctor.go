package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/transcripts"
	"github.com/cortexmem/cortex/vault"
)

func newDoctorCmd(a *app) *cobra.Command {
	var fix bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the vault, the index and the configuration",
		Long: `Doctor brings the index up to date, then checks that it agrees with the vault,
and lists notes cortex cannot read, ids shared by several notes, leftover
temporary files, links in cortex's notes that lead nowhere (note, line and
target), notes that are symbolic links, and what a git merge or a sync
tool left: notes holding conflict markers, conflict copies (never indexed,
so never recalled twice) and memories replaced on two machines. It trusts
nothing the index remembers: it checks that the index was built from this
vault, reads every folder and compares every note; an index that does not hold the notes as they
are is rebuilt from them. It also brings the transcript index up to date and
checks that it holds every exchange of the agents' transcripts (rebuilding it
when it does not), and lists the transcripts it cannot read. It exits with 1
when an index still disagrees with what it indexes.

With --fix it points the links cortex wrote itself (related, supersedes,
superseded_by, and the links of notes mined from transcripts) that a rename
outside Obsidian left dangling at the notes they meant, found by id. (A move
the index sees — a note gone and one new with its id — is followed by the
next command on its own; --fix is for the ones it did not see, such as
renames that came before this machine's first index.) A link in a person's
text whose note moved is listed with where the note is now, never changed.`,
		Args: args(0, 0, "takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDoctor(cmd.Context(), a, fix)
		},
	}
	cmd.Flags().BoolVar(&fix, "fix", false, "repair the links cortex wrote that lead nowhere")
	return cmd
}

type doctorJSON struct {
	Vault      string        `json:"vault"`
	Folder     string        `json:"folder"`
	State      string        `json:"state"`
	VaultState string        `json:"vault_state"`
	ConfigFile string        `json:"config_file"`
	ConfigUsed bool          `json:"config_found"`
	Healthy    bool          `json:"healthy"`
	Health     *store.Health `json:"index"`
	*vaultLinksReport
	Agents agentsJSON `json:"agents"`
	// Transcripts is the transcript index's health.
	Transcripts *transcripts.Health `json:"transcripts"`
}

// errUnhealthy is doctor's verdict when the index disagrees with the vault.
var errUnhealthy = errors.New("the index disagrees with the vault: run cortex reindex --full")

func runDoctor(ctx context.Context, a *app, fix bool) error {
	if _, err := a.open(); err != nil {
		return err
	}
	// Both read every note: the link check runs beside the index's.
	type linkCheck struct {
		lc  *vault.LinkCheck
		err error
	}
	checked := make(chan linkCheck, 1)
	go func() {
		lc, err := a.store.Vault().CheckLinks()
		checked <- linkCheck{lc, err}
	}()
	h, err := a.store.Check(ctx)
	lc := <-checked
	if err != nil {
		return err
	}
	if lc.err != nil {
		return fmt.Errorf("check links: %w", lc.err)
	}
	links, err := checkVaultLinks(ctx, a, lc.lc, fix)
	if err != nil {
		return err
	}
	th, err := doctorTranscripts(ctx, a)
	if err != nil {
		return err
	}
	s := a.settings
	_, cerr := os.Stat(s.ConfigFile)
	found := !errors.Is(cerr, fs.ErrNotExist)
	bin, agents := a.agentsReport()
	if a.asJSON {
		if err := a.printJSON(doctorJSON{
			Vault: s.Vault, Folder: s.VaultFolder, State: s.Home, VaultState: a.store.VaultState(), ConfigFile: s.ConfigFile,
			ConfigUsed: found, Healthy: h.InStep() && transcriptsHealthy(th), Health: h, vaultLinksReport: links,
			Agents: agentsToJSON(bin, agents), Transcripts: th,
		}); err != nil {
			return err
		}
	} else {
		w := a.stdout
		fmt.Fprintf(w, "  vault       %s (cortex writes only in %s/)\n", s.Vault, s.VaultFolder)
		fmt.Fprintf(w, "  state       %s (this vault's index: %s)\n", s.Home, a.store.VaultState())
		if found {
			fmt.Fprintf(w, "  config      %s\n", s.ConfigFile)
		} else {
			fmt.Fprintf(w, "  config      %s (not found: defaults in use)\n", s.ConfigFile)
		}
		if r := h.Sync; r != nil && r.Full && r.Reason != "" {
			fmt.Fprintf(w, "! index       rebuilt from the notes: %s\n", r.Reason)
		}
		if h.Rebuilt > 0 {
			fmt.Fprintf(w, "! index       %d notes were not indexed as they are on disk; rebuilt from the notes\n", h.Rebuilt)
		}
		switch {
		case h.InStep():
			fmt.Fprintf(w, "✓ index       %d notes, in step with the vault\n", h.Notes)
		case h.BuiltFrom != h.Vault:
			fmt.Fprintf(w, "✗ index       built from %s, not from this vault (%s)\n", h.BuiltFrom, h.Vault)
		default:
			fmt.Fprintf(w, "✗ index       %d notes in the catalog, %d documents in the full-text index, %d changes not indexed, %d notes not as on disk\n",
				h.Notes, h.Documents, h.Pending, h.Mismatched)
		}
		if len(h.Broken) == 0 {
			fmt.Fprintln(w, "✓ notes       every note can be read")
		} else {
			fmt.Fprintf(w, "! notes       %d cannot be read; they are skipped and never rewritten:\n", len(h.Broken))
			for _, b := range h.Broken {
				fmt.Fprintf(w, "                %s\n", b)
			}
		}
		if len(h.SharedIDs) == 0 {
			fmt.Fprintln(w, "✓ ids         every id is held by one note")
		} else {
			fmt.Fprintf(w, "! ids         %d ids are written in more than one note (copied files?); the first keeps it:\n", len(h.SharedIDs))
			for _, sh := range h.SharedIDs {
				fmt.Fprintf(w, "                %s: %v\n", sh.ID, sh.Paths)
			}
		}
		printLeftovers(w, h)
		if h.MapRepaired {
			fmt.Fprintln(w, "! map         _index.md did not match the notes; rewritten")
		} else {
			fmt.Fprintln(w, "✓ map         _index.md matches the notes")
		}
		if len(h.Temps) == 0 {
			fmt.Fprintln(w, "✓ temp files  none left over")
		} else {
			fmt.Fprintf(w, "! temp files  %d left over by an interrupted write (removed by the next save):\n", len(h.Temps))
			for _, t := range h.Temps {
				fmt.Fprintf(w, "                %s\n", t)
			}
		}
		printTranscriptsHealth(w, th)
		printVaultLinks(w, a.store.Vault(), links)
		printAgents(w, bin, agents)
	}
	if !h.InStep() {
		return errUnhealthy
	}
	if !transcriptsHealthy(th) {
		return errTranscriptsUnhealthy
	}
	return nil
}

// printLeftovers lists what a merge or a sync left in the vault.
func printLeftovers(w io.Writer, h *store.Health) {
	if len(h.Leftovers) == 0 {
		fmt.Fprintln(w, "✓ merges      no conflict markers or conflict copies")
	} else {
		fmt.Fprintf(w, "! merges      %d left by a merge or a sync; nothing was overwritten:\n", len(h.Leftovers))
		for _, l := range h.Leftovers {
			switch {
			case l.Kind == "copy":
				fmt.Fprintf(w, "                %s: a conflict copy %s made of %s; %s\n", l.Path, l.Tool, l.Original, l.Fix)
			case l.Properties:
				fmt.Fprintf(w, "                %s: git conflict markers in the properties; %s\n", l.Path, l.Fix)
			default:
				fmt.Fprintf(w, "                %s: git conflict markers at lines %s; %s\n", l.Path, joinInts(l.Lines), l.Fix)
			}
		}
	}
	if len(h.Forks) == 0 {
		fmt.Fprintln(w, "✓ supersedes  no memory replaced twice")
	} else {
		fmt.Fprintf(w, "! supersedes  %d memories replaced more than once:\n", len(h.Forks))
		for _, f := range h.Forks {
			fmt.Fprintf(w, "                %s replaced by %s (%s); %s\n", f.ID, strings.Join(f.By, ", "), strings.Join(f.Paths, ", "), f.Fix)
		}
	}
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// errTranscriptsUnhealthy is doctor's verdict when the transcript index does
// not hold what the transcripts make, even after a rebuild.
var errTranscriptsUnhealthy = errors.New("the transcript index disagrees with the transcripts: run cortex transcripts reindex --full")

// doctorTranscripts brings the transcript index up to date and checks it
// against the transcripts, rebuilding it when it disagrees.
func doctorTranscripts(ctx context.Context, a *app) (*transcripts.Health, error) {
	svc, err := a.transcripts()
	if err != nil {
		return nil, err
	}
	return svc.Check(ctx)
}

// transcriptsHealthy: in step, or being updated by another process.
func transcriptsHealthy(h *transcripts.Health) bool {
	return h.InStep() || h.Sync != nil && h.Sync.Busy
}

func printTranscriptsHealth(w io.Writer, h *transcripts.Health) {
	if h.Rebuilt != "" {
		fmt.Fprintf(w, "! transcripts rebuilt: %s\n", h.Rebuilt)
	}
	switch {
	case h.InStep():
		fmt.Fprintf(w, "✓ transcripts %d %s from %d %s, in step (%s)\n", h.Exchanges, scribePlural(h.Exchanges, "exchange", "exchanges"),
			h.Files, scribePlural(h.Files, "transcript", "transcripts"), h.Dir)
	case h.Sync != nil && h.Sync.Busy:
		fmt.Fprintf(w, "! transcripts another cortex process is updating the index (%d exchanges so far)\n", h.Documents)
	default:
		fmt.Fprintf(w, "✗ transcripts %d exchanges in the manifest, %d documents in the full-text index, %d transcripts changed since\n",
			h.Exchanges, h.Documents, h.Pending)
	}
	if n := len(h.Unreadable); n > 0 {
		fmt.Fprintf(w, "! transcripts %d cannot be read; they are skipped:\n", n)
		for _, u := range h.Unreadable {
			fmt.Fprintf(w, "                %s: %s\n", u.Path, u.Reason)
		}
	}
}
