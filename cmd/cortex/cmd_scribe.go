package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/adapters"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/transcript"
)

func newScribeCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scribe",
		Short: "Turn coding agents' transcripts into events, and into session, decision and edit notes",
		Long: `scribe reads the transcripts coding agents write to disk and turns each into
the same stream of events — session starts, user and assistant turns, tool
calls and results, file edits as unified diffs, compactions, rewinds —
without any model call. The events are NDJSON, one per line, the same bytes
for the same input.

A deterministic pipeline then finds the decisions people stated (a gate of
marker phrases: use, instead of, never, from now on, …), the code edits that
followed, and which decision produced which edit; 'scribe run --to-vault'
writes them into the vault as linked notes.

Tools read today: ` + strings.Join(scribeTools(), ", ") + `.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &usageError{msg: fmt.Sprintf("scribe: unknown command %q", args[0]), hint: cmd.CommandPath()}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newScribeParseCmd(a), newScribeReplayCmd(a), newScribeRunCmd(a), newScribeRedactCmd(a),
		newScribeVerifyCmd(a), newScribeSourcesCmd(a))
	return cmd
}

func scribeTools() []string {
	var out []string
	for _, ad := range adapters.All() {
		out = append(out, string(ad.Source()))
	}
	return out
}

// scribeAdapter returns the adapter --as names, or the one that recognises
// the start of f (which it then rewinds).
func scribeAdapter(as, path string, f io.ReadSeeker) (transcript.Adapter, error) {
	if as != "" {
		k, ok := transcript.ParseSource(as)
		if !ok {
			var names []string
			for _, s := range transcript.Sources() {
				names = append(names, string(s))
			}
			return nil, &memories.ArgError{Arg: "--as", Rule: fmt.Sprintf("unknown tool %q (tools: %s)", as, strings.Join(names, ", "))}
		}
		ad, ok := adapters.For(k)
		if !ok {
			return nil, &memories.ArgError{Arg: "--as", Rule: fmt.Sprintf("no adapter reads %s transcripts yet (tools read: %s)", k.Name(), strings.Join(scribeTools(), ", "))}
		}
		return adapters.Resolve(ad, path), nil
	}
	head := make([]byte, 1<<20)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	ad, err := adapters.DetectFile(path, head[:n])
	if err != nil {
		return nil, &memories.ArgError{Arg: "file", Rule: fmt.Sprintf("%s: cannot tell which tool wrote it; name the tool with --as (tools read: %s)", path, strings.Join(scribeTools(), ", "))}
	}
	return ad, nil
}

// openTranscript opens a file named on the command line.
func openTranscript(path string) (*os.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &memories.ArgError{Arg: "file", Rule: path + ": no such file"}
	}
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, &memories.ArgError{Arg: "file", Rule: path + ": a folder, not a transcript file"}
	}
	return f, nil
}

type scribeParseOptions struct {
	as string
}

func newScribeParseCmd(a *app) *cobra.Command {
	var o scribeParseOptions
	cmd := &cobra.Command{
		Use:   "parse FILE",
		Short: "Print a transcript's events as NDJSON",
		Long: `parse reads one transcript and prints its events, one JSON object per line.
The tool that wrote it is recognised from its first records unless --as
names it (claude, claude-code, codex, gemini, …). A line that is not what the
tool writes becomes an "unknown" event holding it: nothing is dropped.`,
		Example: `  cortex scribe parse ~/.claude/projects/-home-me-app/0a1b2c3d-….jsonl
  cortex scribe parse --as claude session.jsonl | jq -c 'select(.kind=="file_edit")'`,
		Args: args(1, 1, "takes exactly one transcript file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScribeParse(cmd.Context(), a, o, args[0])
		},
	}
	cmd.Flags().StringVar(&o.as, "as", "", "the tool that wrote the file (default: recognised from its content)")
	return cmd
}

func runScribeParse(ctx context.Context, a *app, o scribeParseOptions, path string) error {
	f, err := openTranscript(path)
	if err != nil {
		return err
	}
	defer f.Close()
	ad, err := scribeAdapter(o.as, path, f)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(a.stdout, 64<<10)
	enc := transcript.NewEncoder(w)
	_, err = transcript.Read(ad, f, transcript.Start(ad, path), true, func(e transcript.Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return enc.Encode(&e)
	})
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}

type scribeVerifyOptions struct {
	as           string
	resumePoints int
	capture      captureFlag
}

// captureFlag is --capture. Alone it checks the golden fixtures under
// ./fixtures; the folder may be given as --capture=DIR or, as the README
// writes it, --capture DIR (the folder is then the one argument).
type captureFlag struct {
	on  bool
	dir string // given after "="
}

func (c *captureFlag) String() string { return c.dir }

// Set takes "true" (pflag's value for the flag alone), "false", or a folder.
func (c *captureFlag) Set(v string) error {
	switch v {
	case "true":
		c.on, c.dir = true, ""
	case "false":
		c.on, c.dir = false, ""
	default:
		c.on, c.dir = true, v
	}
	return nil
}

// Type is "bool" so that the flag alone does not take the next argument as
// its value, and help shows it without a value.
func (c *captureFlag) Type() string { return "bool" }

// folder is the folder of golden fixtures to check: the flag's value, else
// the one argument given when it is not a file, else ./fixtures.
func (c *captureFlag) folder(files []string) (string, error) {
	none := &memories.ArgError{Arg: "--capture", Rule: "checks the golden fixtures of a folder; name no files with it"}
	switch {
	case c.dir != "" && len(files) > 0, len(files) > 1:
		return "", none
	case c.dir != "":
		return c.dir, nil
	case len(files) == 1:
		if fi, err := os.Stat(files[0]); err == nil && !fi.IsDir() {
			return "", none
		}
		return files[0], nil
	}
	return "fixtures", nil
}

func newScribeVerifyCmd(a *app) *cobra.Command {
	var o scribeVerifyOptions
	cmd := &cobra.Command{
		Use:   "verify [FILE…]",
		Short: "Check the event invariants on transcripts",
		Long: `verify reads each transcript (with no FILE, every one 'cortex scribe sources'
finds) and checks the invariants every adapter keeps: every event well
formed (file edits' diffs parse), seq monotonic in each session, event ids
unique, every record giving at least one event (unknown ones counted), two
reads giving the same bytes, a read stopped at a record boundary and resumed
giving the same events as one read, a cut last line left for later, and no
record the adapter failed on. It prints what it found per file and exits 1
when an invariant is broken.

With --capture it checks golden fixtures instead (in a source checkout:
'cortex scribe verify --capture fixtures'): the events and the nodes kept
beside each transcript must be exactly what cortex makes of it today.`,
		Example: `  cortex scribe verify
  cortex scribe verify --resume-points 0 session.jsonl
  cortex scribe verify --capture fixtures`,
		Args: args(0, -1, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScribeVerify(cmd.Context(), a, o, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.as, "as", "", "the tool that wrote the files (default: recognised from each file's content)")
	f.IntVar(&o.resumePoints, "resume-points", 4, "record boundaries to check resumption at, spread over each file (0: every one)")
	f.Var(&o.capture, "capture", "check the golden fixtures under a folder instead: --capture DIR (default fixtures; <tool>/…/<name>.events.ndjson and .nodes.ndjson beside each transcript)")
	f.Lookup("capture").NoOptDefVal = "true"
	return cmd
}

type verifyJSON struct {
	Transcripts []transcript.Report `json:"transcripts"`
	Skipped     []transcript.Skip   `json:"skipped"`
	OK          int                 `json:"ok"`
	Failed      int                 `json:"failed"`
}

func runScribeVerify(ctx context.Context, a *app, o scribeVerifyOptions, files []string) error {
	if o.capture.on {
		dir, err := o.capture.folder(files)
		if err != nil {
			return err
		}
		return runScribeCapture(ctx, a, dir)
	}
	if o.resumePoints < 0 {
		return &memories.ArgError{Arg: "--resume-points", Rule: "must be 0 or more"}
	}
	type job struct {
		path string
		ad   transcript.Adapter // nil: detect
	}
	var jobs []job
	if len(files) == 0 {
		for _, d := range scribeDiscover(a) {
			ad, _ := adapters.For(d.Source)
			for _, f := range d.Files {
				jobs = append(jobs, job{f.Path, adapters.Resolve(ad, f.Path)})
			}
		}
		if len(jobs) == 0 && !a.asJSON {
			fmt.Fprintln(a.stdout, "No transcripts found (see cortex scribe sources).")
			return nil
		}
	}
	for _, f := range files {
		jobs = append(jobs, job{path: f})
	}
	out := verifyJSON{Transcripts: []transcript.Report{}, Skipped: []transcript.Skip{}}
	for _, j := range jobs {
		if err := ctx.Err(); err != nil {
			return err
		}
		rep, err := verifyFile(j.path, j.ad, o)
		if err != nil {
			if !errors.Is(err, memories.ErrInvalid) && len(files) > 0 {
				return err
			}
			out.Skipped = append(out.Skipped, transcript.Skip{Path: j.path, Reason: err.Error()})
			out.Failed++
			if !a.asJSON {
				fmt.Fprintf(a.stdout, "%s: skipped: %v\n", j.path, err)
			}
			continue
		}
		out.Transcripts = append(out.Transcripts, rep)
		if rep.OK() {
			out.OK++
		} else {
			out.Failed++
		}
		if !a.asJSON {
			printReport(a.stdout, &rep)
		}
	}
	if a.asJSON {
		if err := a.printJSON(out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.stdout, "%d %s: %d ok, %d failed\n", len(jobs), scribePlural(len(jobs), "transcript", "transcripts"), out.OK, out.Failed)
	}
	if out.Failed > 0 {
		return fmt.Errorf("%d of %d %s failed verification", out.Failed, len(jobs), scribePlural(len(jobs), "transcript", "transcripts"))
	}
	return nil
}

func verifyFile(path string, ad transcript.Adapter, o scribeVerifyOptions) (transcript.Report, error) {
	f, err := openTranscript(path)
	if err != nil {
		return transcript.Report{}, err
	}
	defer f.Close()
	if ad == nil || o.as != "" {
		if ad, err = scribeAdapter(o.as, path, f); err != nil {
			return transcript.Report{}, err
		}
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return transcript.Report{}, fmt.Errorf("read %s: %w", path, err)
	}
	return transcript.Verify(ad, path, data, transcript.VerifyOptions{ResumePoints: o.resumePoints}), nil
}

func printReport(w io.Writer, r *transcript.Report) {
	status := "ok"
	if !r.OK() {
		status = "FAILED"
	}
	var variants []string
	for _, v := range r.Variants {
		if v.Schema == "" {
			continue
		}
		s := v.Schema
		if v.ToolVersion != "" {
			s += " " + v.ToolVersion
		}
		variants = append(variants, s)
	}
	fmt.Fprintf(w, "%s: %s, %d %s → %d %s: %s\n", r.File, r.Source, r.Records, scribePlural(r.Records, "record", "records"),
		r.Events, scribePlural(r.Events, "event", "events"), status)
	if len(variants) > 0 {
		fmt.Fprintf(w, "  schema: %s\n", strings.Join(variants, ", "))
	}
	var kinds []string
	for _, k := range transcript.Kinds() {
		if n := r.Kinds[k]; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
	}
	if len(kinds) > 0 {
		fmt.Fprintf(w, "  events: %s\n", strings.Join(kinds, ", "))
	}
	if len(r.Unknown) > 0 {
		var us []string
		for _, k := range slices.Sorted(maps.Keys(r.Unknown)) {
			us = append(us, fmt.Sprintf("%s %d", k, r.Unknown[k]))
		}
		fmt.Fprintf(w, "  unknown: %s\n", strings.Join(us, ", "))
	}
	for _, v := range r.Violations {
		fmt.Fprintf(w, "  FAIL %s\n", strings.ReplaceAll(v.String(), "\n", "\n    "))
	}
}

func scribePlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func newScribeSourcesCmd(a *app) *cobra.Command {
	var list bool
	cmd := &cobra.Command{
		Use:   "sources",
		Short: "Show where agents' transcripts were found, and what was skipped and why",
		Long: `sources lists, for every tool cortex reads, the folders it looked in (the
tool's default, or its override: CLAUDE_CONFIG_DIR for Claude Code), the
transcripts found there, and what it passed over and why. Tools without an
adapter yet are named at the end.`,
		Example: `  cortex scribe sources
  CLAUDE_CONFIG_DIR=~/work/.claude cortex scribe sources --list`,
		Args: args(0, 0, "takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScribeSources(a, list)
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list every transcript found")
	return cmd
}

// scribeDiscover runs every adapter's discovery.
func scribeDiscover(a *app) []transcript.Discovery {
	env := transcript.Env{Home: a.home(), Getenv: a.getenv}
	var out []transcript.Discovery
	for _, ad := range adapters.All() {
		out = append(out, ad.Discover(env))
	}
	return out
}

type sourcesJSON struct {
	Sources   []transcript.Discovery  `json:"sources"`
	NoAdapter []transcript.SourceKind `json:"no_adapter"`
}

func runScribeSources(a *app, list bool) error {
	found := scribeDiscover(a)
	var none []transcript.SourceKind
	for _, k := range transcript.Sources() {
		if _, ok := adapters.For(k); !ok {
			none = append(none, k)
		}
	}
	if a.asJSON {
		return a.printJSON(sourcesJSON{Sources: found, NoAdapter: none})
	}
	for _, d := range found {
		fmt.Fprintf(a.stdout, "%s (%s)\n", d.Source.Name(), d.Source)
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
				fmt.Fprintf(a.stdout, "  %s (%s): skipped: %s\n", r.Path, from, rootSkip[r.Path])
				delete(rootSkip, r.Path)
				continue
			}
			roles := map[string]int{}
			var size int64
			n := 0
			for _, f := range d.Files {
				if strings.HasPrefix(f.Path, r.Path+string(os.PathSeparator)) {
					roles[f.Role]++
					size += f.Size
					n++
				}
			}
			delete(rootSkip, r.Path)
			fmt.Fprintf(a.stdout, "  %s (%s): %d %s", r.Path, from, n, scribePlural(n, "transcript", "transcripts"))
			if n > 0 {
				fmt.Fprintf(a.stdout, " (%d %s, %d %s), %s", roles["session"], scribePlural(roles["session"], "session", "sessions"),
					roles["subagent"], scribePlural(roles["subagent"], "subagent", "subagents"), scribeSize(size))
			}
			fmt.Fprintln(a.stdout)
			if list {
				for _, f := range d.Files {
					if strings.HasPrefix(f.Path, r.Path+string(os.PathSeparator)) {
						fmt.Fprintf(a.stdout, "    %s  %s, %s\n", f.Path, f.Role, scribeSize(f.Size))
					}
				}
			}
		}
		for _, s := range d.Skipped {
			if _, ok := rootSkip[s.Path]; ok {
				fmt.Fprintf(a.stdout, "  skipped %s: %s\n", s.Path, s.Reason)
			}
		}
	}
	var names []string
	for _, k := range none {
		names = append(names, string(k))
	}
	if len(names) > 0 {
		fmt.Fprintf(a.stdout, "No adapter yet: %s\n", strings.Join(names, ", "))
	}
	return nil
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
