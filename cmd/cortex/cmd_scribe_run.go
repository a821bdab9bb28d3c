package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/adapters"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

// scribePipeline is the pipeline the config file sets, changed by opts.
func (a *app) scribePipeline(opts ...pipeline.Option) (*pipeline.Pipeline, error) {
	if err := a.resolve(); err != nil {
		return nil, err
	}
	return pipeline.New(append(append([]pipeline.Option{}, a.settings.Pipeline...), opts...)...), nil
}

type scribeReplayOptions struct {
	noRedaction, noContent bool
}

func newScribeReplayCmd(a *app) *cobra.Command {
	var o scribeReplayOptions
	cmd := &cobra.Command{
		Use:   "replay EVENTS.ndjson",
		Short: "Run the pipeline over events (from scribe parse) and print its nodes as NDJSON",
		Long: `replay reads events as 'cortex scribe parse' prints them ("-" for standard
input) and runs the deterministic pipeline over them: the gate, the
segmenter, the binder and node preparation. It prints the nodes —
conversation spans, decisions, episodes (code edits) and the bindings of
decisions to the edits they produced — one JSON object per line, the same
bytes for the same events. Credentials are redacted unless --no-redaction.`,
		Example: `  cortex scribe parse session.jsonl > events.ndjson
  cortex scribe replay events.ndjson | jq -c 'select(.kind=="decision") | .decision.epitome'`,
		Args: args(1, 1, "takes exactly one events file (or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScribeReplay(cmd.Context(), a, o, args[0])
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.noRedaction, "no-redaction", false, "leave credentials in (for golden files; never for sharing)")
	f.BoolVar(&o.noContent, "no-content", false, "keep the structure, drop every text")
	return cmd
}

func runScribeReplay(ctx context.Context, a *app, o scribeReplayOptions, path string) error {
	var r io.Reader = a.stdin
	if path != "-" {
		f, err := openTranscript(path)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	var evs []transcript.Event
	err := transcript.Decode(r, func(e transcript.Event) error {
		if e.SchemaVersion != transcript.SchemaVersion || e.Kind == "" || e.Source == "" {
			return fmt.Errorf("event %d is not a cortex event of schema %d (make events with cortex scribe parse)", len(evs)+1, transcript.SchemaVersion)
		}
		evs = append(evs, e)
		return ctx.Err()
	})
	if err != nil {
		return &memories.ArgError{Arg: "events", Rule: fmt.Sprintf("%s: %v", path, err)}
	}
	p, err := a.scribePipeline(replayOptions(o)...)
	if err != nil {
		return err
	}
	return writeNodes(a.stdout, p.Prepare(evs))
}

func replayOptions(o scribeReplayOptions) []pipeline.Option {
	var opts []pipeline.Option
	if o.noRedaction {
		opts = append(opts, pipeline.WithoutRedaction())
	}
	if o.noContent {
		opts = append(opts, pipeline.WithoutContent())
	}
	return opts
}

func writeNodes(w io.Writer, nodes []pipeline.Node) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := pipeline.NewEncoder(bw)
	for i := range nodes {
		if err := enc.Encode(&nodes[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

type scribeRunOptions struct {
	all, toVault, dryRun bool
	as, since            string
}

func newScribeRunCmd(a *app) *cobra.Command {
	var o scribeRunOptions
	cmd := &cobra.Command{
		Use:   "run [FILE…] [--all]",
		Short: "Turn transcripts into session, decision and code-edit notes (or nodes as NDJSON)",
		Long: `run reads transcripts — the files named, or with --all every one 'cortex
scribe sources' finds — groups each session's files (its main transcript,
its subagents', a resumed copy), runs the pipeline over them and prints the
nodes as NDJSON.

With --to-vault it writes them into the vault instead: a note per session
(sessions/<tool>/), per decision (decisions/<project>/: a memory, type
decision, source mined, checked like a save and against existing memories)
and per code edit (episodes/<project>/), linked to each other. It keeps each
file's read offset in the state folder, so the next run reads only sessions
that changed; a note already saying what the transcript says is not written
again, and a note you edited is never overwritten. Credentials are redacted.`,
		Example: `  cortex scribe run --all --to-vault
  cortex scribe run --all --since 7d --to-vault --dry-run
  cortex scribe run ~/.codex/sessions/2026/11/20/rollout-….jsonl | jq -c .kind`,
		Args: args(0, -1, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScribeRun(cmd.Context(), a, o, args)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.all, "all", false, "read every transcript discovery finds")
	f.StringVar(&o.as, "as", "", "the tool that wrote the files named (default: recognised from each file's content)")
	f.StringVar(&o.since, "since", "", "only transcripts written since then: 7d, 12h, 2w, 90m or a date")
	f.BoolVar(&o.toVault, "to-vault", false, "write notes into the vault instead of printing nodes")
	f.BoolVar(&o.dryRun, "dry-run", false, "with --to-vault: say what would be written, write nothing")
	return cmd
}

type runJSON struct {
	*scribe.RunResult
	Nodes int `json:"nodes"`
}

func runScribeRun(ctx context.Context, a *app, o scribeRunOptions, paths []string) error {
	switch {
	case o.all && len(paths) > 0:
		return &memories.ArgError{Arg: "--all", Rule: "reads every transcript found; name files or give --all, not both"}
	case !o.all && len(paths) == 0:
		return &usageError{msg: "scribe run: name transcript files, or give --all", hint: "cortex scribe run"}
	case o.all && o.as != "":
		return &memories.ArgError{Arg: "--as", Rule: "names the tool of the files named; with --all each file's tool is known"}
	case o.dryRun && !o.toVault:
		return &memories.ArgError{Arg: "--dry-run", Rule: "goes with --to-vault"}
	}
	var since time.Time
	if o.since != "" {
		t, err := memories.ParseSince(o.since, time.Now())
		if err != nil {
			return &memories.ArgError{Arg: "--since", Rule: strings.TrimPrefix(err.Error(), "since: ")}
		}
		since = t
	}
	var files []scribe.File
	if o.all {
		for _, d := range scribeDiscover(a) {
			ad, _ := adapters.For(d.Source)
			for _, f := range d.Files {
				files = append(files, scribe.File{Path: f.Path, Adapter: adapters.Resolve(ad, f.Path)})
			}
		}
	} else {
		for _, p := range paths {
			f, err := openTranscript(p)
			if err != nil {
				return err
			}
			ad, err := scribeAdapter(o.as, p, f)
			f.Close()
			if err != nil {
				return err
			}
			abs, err := filepath.Abs(p)
			if err != nil {
				return err
			}
			files = append(files, scribe.File{Path: abs, Adapter: ad, Final: true})
		}
	}
	if !since.IsZero() {
		kept := files[:0]
		for _, f := range files {
			if fi, err := os.Stat(f.Path); err == nil && !fi.ModTime().Before(since) {
				kept = append(kept, f)
			}
		}
		files = kept
	}
	p, err := a.scribePipeline()
	if err != nil {
		return err
	}
	r := &scribe.Runner{Pipeline: p}
	if o.toVault {
		svc, err := a.open()
		if err != nil {
			return err
		}
		r.Service, r.DryRun = svc, o.dryRun
		r.StateDir, r.LockTimeout = filepath.Join(a.settings.Home, "transcripts"), a.settings.LockTimeout
		r.StateKey = filepath.Join(a.settings.Vault, a.settings.VaultFolder)
	}
	if len(files) == 0 {
		if a.asJSON {
			return a.printJSON(runJSON{RunResult: &scribe.RunResult{Read: []string{}, Unchanged: []string{}}})
		}
		if o.toVault {
			fmt.Fprintln(a.stdout, "No transcripts to read (see cortex scribe sources).")
		}
		return nil
	}
	res, err := r.Run(ctx, files)
	if err != nil {
		return err
	}
	if !o.toVault {
		return writeNodes(a.stdout, res.Nodes)
	}
	if a.asJSON {
		return a.printJSON(runJSON{RunResult: res, Nodes: len(res.Nodes)})
	}
	printRun(a.stdout, res, o.dryRun)
	return nil
}

// printRun says what a run read and wrote.
func printRun(w io.Writer, res *scribe.RunResult, dryRun bool) {
	fmt.Fprintf(w, "Read %d %s (%d unchanged since the last run): %d events, %d %s, %d nodes.\n",
		len(res.Read), scribePlural(len(res.Read), "transcript", "transcripts"), len(res.Unchanged),
		res.Events, res.Sessions, scribePlural(res.Sessions, "session", "sessions"), len(res.Nodes))
	if res.Mine == nil {
		return
	}
	verb := ""
	if dryRun {
		verb = "would be "
	}
	type row struct {
		outcome, label string
	}
	for _, typ := range []memories.Type{memories.TypeSession, memories.TypeDecision, memories.TypeEpisode} {
		counts := map[string]int{}
		for _, it := range res.Mine.Items {
			if it.Type == typ {
				counts[it.Outcome]++
			}
		}
		var parts []string
		for _, r := range []row{{memories.MineCreated, verb + "created"}, {memories.MineUpdated, verb + "updated"},
			{memories.MineUnchanged, "unchanged"}, {memories.MineKept, "edited by you, kept"},
			{memories.MineDuplicate, "already remembered"}, {memories.MineRejected, "refused"}} {
			if n := counts[r.outcome]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, r.label))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "%s notes: %s.\n", strings.ToUpper(string(typ[:1]))+string(typ[1:]), strings.Join(parts, ", "))
		}
	}
	for _, it := range res.Mine.Items {
		switch it.Outcome {
		case memories.MineCreated, memories.MineUpdated:
			fmt.Fprintf(w, "  %s%s %s\n", verb, it.Outcome, it.Path)
		case memories.MineRejected:
			fmt.Fprintf(w, "  refused %q: %s\n", it.Title, it.Reason)
		case memories.MineKept:
			fmt.Fprintf(w, "  kept %s: edited since cortex wrote it\n", it.Path)
		}
	}
}

type scribeRedactOptions struct {
	as        string
	noContent bool
}

func newScribeRedactCmd(a *app) *cobra.Command {
	var o scribeRedactOptions
	cmd := &cobra.Command{
		Use:   "redact FILE",
		Short: "Print a transcript's events with credentials redacted (or with no text at all)",
		Long: `redact reads one transcript and prints its events as 'cortex scribe parse'
does, with every credential the safety rules (and the config's
scribe.redact patterns) find replaced by [REDACTED:<rule>] — in texts, tool
inputs and outputs, diffs and records of unknown types. With --no-content
every text is dropped and only the structure is kept: ids, kinds, times,
tools, counts. Use it before you share a transcript.`,
		Example: `  cortex scribe redact session.jsonl > shareable.ndjson
  cortex scribe redact --no-content session.jsonl`,
		Args: args(1, 1, "takes exactly one transcript file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScribeRedact(cmd.Context(), a, o, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.as, "as", "", "the tool that wrote the file (default: recognised from its content)")
	f.BoolVar(&o.noContent, "no-content", false, "drop every text, keep the structure")
	return cmd
}

func runScribeRedact(ctx context.Context, a *app, o scribeRedactOptions, path string) error {
	f, err := openTranscript(path)
	if err != nil {
		return err
	}
	defer f.Close()
	ad, err := scribeAdapter(o.as, path, f)
	if err != nil {
		return err
	}
	p, err := a.scribePipeline()
	if err != nil {
		return err
	}
	var red pipeline.Redactor
	if !o.noContent {
		red = textRedactor(p.RedactText)
	}
	w := bufio.NewWriterSize(a.stdout, 64<<10)
	enc := transcript.NewEncoder(w)
	_, err = transcript.Read(ad, f, transcript.Start(ad, path), true, func(e transcript.Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := pipeline.RedactEvent(&e, red, o.noContent); err != nil {
			return err
		}
		return enc.Encode(&e)
	})
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}

// textRedactor is a redaction function as a pipeline.Redactor.
type textRedactor func(string) string

func (f textRedactor) Redact(s string) string { return f(s) }

// scribeCapture checks the golden fixtures under dir: for every transcript
// with expected events (<name>.events.ndjson) or nodes (<name>.nodes.ndjson)
// beside it, the adapter of its tool folder (dir/<tool>/…) must give exactly
// those bytes, and the pipeline (unredacted, as goldens are) exactly those
// nodes.
func runScribeCapture(ctx context.Context, a *app, dir string) error {
	type result struct {
		File   string `json:"file"`
		Golden string `json:"golden"`
		OK     bool   `json:"ok"`
		Error  string `json:"error,omitempty"`
	}
	var results []result
	p := pipeline.New(pipeline.WithoutRedaction())
	checked := 0
	for _, ad := range adapters.All() {
		root := filepath.Join(dir, string(ad.Source()))
		if _, err := os.Stat(root); err != nil {
			continue
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			ext := filepath.Ext(path)
			if ext != ".jsonl" && ext != ".json" || strings.HasSuffix(path, ".meta.json") {
				return nil
			}
			stem := strings.TrimSuffix(path, ext)
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			// Event goldens name the file from the tool's folder, node
			// goldens from the fixtures folder (as the tests write them).
			names := map[string]string{".events.ndjson": filepath.ToSlash(rel), ".nodes.ndjson": string(ad.Source()) + "/" + filepath.ToSlash(rel)}
			for _, g := range []string{".events.ndjson", ".nodes.ndjson"} {
				want, err := os.ReadFile(stem + g)
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				if err != nil {
					return err
				}
				evs, _ := transcript.ParseBytes(adapters.Resolve(ad, path), names[g], data, true)
				var got []byte
				if g == ".events.ndjson" {
					got, err = transcript.Marshal(evs)
				} else {
					got, err = pipeline.Marshal(p.Prepare(evs))
				}
				if err != nil {
					return err
				}
				r := result{File: path, Golden: stem + g, OK: bytes.Equal(got, want)}
				if !r.OK {
					r.Error = firstDifference(want, got)
				}
				results = append(results, r)
				checked++
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if checked == 0 {
		return &memories.ArgError{Arg: "--capture", Rule: fmt.Sprintf("%s holds no golden fixtures (<tool>/…/<name>.events.ndjson beside <name>.jsonl)", dir)}
	}
	failed := 0
	for _, r := range results {
		if !r.OK {
			failed++
		}
	}
	if a.asJSON {
		if err := a.printJSON(map[string]any{"goldens": results, "ok": checked - failed, "failed": failed}); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			if !r.OK {
				fmt.Fprintf(a.stdout, "%s: differs from %s: %s\n", r.File, filepath.Base(r.Golden), r.Error)
			}
		}
		fmt.Fprintf(a.stdout, "%d golden %s: %d ok, %d failed\n", checked, scribePlural(checked, "file", "files"), checked-failed, failed)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d golden files differ", failed, checked)
	}
	return nil
}

// firstDifference names the first line where got leaves want.
func firstDifference(want, got []byte) string {
	wl, gl := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < max(len(wl), len(gl)); i++ {
		if i >= len(wl) || i >= len(gl) || !bytes.Equal(wl[i], gl[i]) {
			return fmt.Sprintf("line %d is not what it was", i+1)
		}
	}
	return "the same lines, other bytes"
}
