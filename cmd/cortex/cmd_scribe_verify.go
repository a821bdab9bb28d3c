package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

type scribeVerifyOptions struct {
	files        []string
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
			o.files = args
			return runScribeVerify(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.as, "as", "", "the tool that wrote the files (default: recognised from each file's content)")
	f.IntVar(&o.resumePoints, "resume-points", 4, "record boundaries to check resumption at, spread over each file (0: every one)")
	f.Var(&o.capture, "capture", "check the golden fixtures under a folder instead: --capture DIR (default fixtures; <tool>/…/<name>.events.ndjson and .nodes.ndjson beside each transcript)")
	f.Lookup("capture").NoOptDefVal = "true"
	return cmd
}

func runScribeVerify(ctx context.Context, a *app, o scribeVerifyOptions) error {
	if o.capture.on {
		dir, err := o.capture.folder(o.files)
		if err != nil {
			return err
		}
		return runScribeCapture(ctx, a, dir)
	}
	// Files named are a person's: only their being invalid is a skip.
	opt := scribe.VerifyOptions{As: o.as, ResumePoints: o.resumePoints, Strict: len(o.files) > 0}
	if err := opt.Check(); err != nil {
		return err
	}
	files, err := o.targets(a)
	if err != nil {
		return err
	}
	if len(files) == 0 && !a.asJSON {
		fmt.Fprintln(a.stdout, "No transcripts found (see cortex scribe sources).")
		return nil
	}
	res, err := scribe.Verify(ctx, files, opt, func(v scribe.Verified) error {
		if !a.asJSON {
			printVerified(a.stdout, &v)
		}
		return nil
	})
	if err != nil {
		return err
	}
	n, what := len(files), scribePlural(len(files), "transcript", "transcripts")
	if a.asJSON {
		if err := a.printJSON(res); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.stdout, "%d %s: %d ok, %d failed\n", n, what, res.OK, res.Failed)
	}
	if res.Failed > 0 {
		return fmt.Errorf("%d of %d %s failed verification", res.Failed, n, what)
	}
	return nil
}

// targets are the files named, each to be recognised from its content, or
// with none every transcript discovery finds.
func (o scribeVerifyOptions) targets(a *app) ([]scribe.File, error) {
	if len(o.files) == 0 {
		files, _, err := scribe.Select(scribe.Selection{All: true, Env: a.scribeEnv()})
		return files, err
	}
	var files []scribe.File
	for _, f := range o.files {
		files = append(files, scribe.File{Path: f})
	}
	return files, nil
}

// printVerified says what verify found of one file.
func printVerified(w io.Writer, v *scribe.Verified) {
	if v.Err != nil {
		fmt.Fprintf(w, "%s: skipped: %v\n", v.Path, v.Err)
		return
	}
	printReport(w, &v.Report)
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

// runScribeCapture checks the golden fixtures under dir and says which
// differ.
func runScribeCapture(ctx context.Context, a *app, dir string) error {
	rep, err := scribe.CheckGoldens(ctx, dir)
	if err != nil {
		return err
	}
	n := len(rep.Goldens)
	if a.asJSON {
		if err := a.printJSON(rep); err != nil {
			return err
		}
	} else {
		for _, g := range rep.Goldens {
			if !g.OK {
				fmt.Fprintf(a.stdout, "%s: differs from %s: %s\n", g.File, filepath.Base(g.Golden), g.Error)
			}
		}
		fmt.Fprintf(a.stdout, "%d golden %s: %d ok, %d failed\n", n, scribePlural(n, "file", "files"), rep.OK, rep.Failed)
	}
	if rep.Failed > 0 {
		return fmt.Errorf("%d of %d golden files differ", rep.Failed, n)
	}
	return nil
}
