// Command cortex-bench is cortex's benchmark harness. For each vault size it
// generates a synthetic vault, then times the real cortex binary end to end
// (process start to exit) and the services in-process, and prints medians and
// 99th percentiles next to the targets of SPEC §8. With -transcripts it also
// generates a corpus of agents' sessions and times transcript search on it
// (transcripts.go).
//
//	go build -o /tmp/cortex ./cmd/cortex
//	go run ./cmd/cortex-bench -bin /tmp/cortex -sizes 1000,10000
//	go run ./cmd/cortex-bench -bin /tmp/cortex -sizes '' -transcripts 200000
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/config"
	cmcp "github.com/cortexmem/cortex/mcp"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/security"
	"github.com/cortexmem/cortex/wiring"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "cortex-bench: %v\n", err)
		os.Exit(1)
	}
}

type options struct {
	bin        string
	sizes      []int
	runs       int
	saves      int
	keep       bool
	jsonOut    string
	cpuProf    string
	markdown   bool
	importN    int
	normalizeN int
	// transcripts is the size, in messages, of the transcript corpus to
	// measure transcript search on; 0 measures none.
	transcripts int
}

// result is one measured operation.
type result struct {
	Size   int     `json:"size"`
	Op     string  `json:"op"`
	Runs   int     `json:"runs"`
	P50ms  float64 `json:"p50_ms"`
	P99ms  float64 `json:"p99_ms"`
	MaxRSS float64 `json:"max_rss_mb,omitempty"`
	Target string  `json:"target,omitempty"`
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("cortex-bench", flag.ContinueOnError)
	var o options
	var sizes string
	fs.StringVar(&o.bin, "bin", "", "the cortex binary to time (required)")
	fs.StringVar(&sizes, "sizes", "1000,10000", "vault sizes, comma-separated (empty: no vault)")
	fs.IntVar(&o.transcripts, "transcripts", 0, "also measure transcript search on a synthetic corpus of this many messages (e.g. 200000)")
	writeCorpus := fs.String("write-transcripts", "", "only write a transcript corpus of -transcripts messages in this folder, and describe it as JSON (used by -transcripts)")
	fs.IntVar(&o.runs, "runs", 40, "timed runs per whole-process operation")
	fs.IntVar(&o.saves, "saves", 150, "single saves to make before re-timing recall")
	fs.BoolVar(&o.keep, "keep", false, "keep the generated vaults")
	fs.IntVar(&o.normalizeN, "normalize", 200, "events to put in the inbox for one timed normalize (0: none)")
	fs.IntVar(&o.importN, "import", 10000, "markdown notes to import into an empty vault and into each generated one (0: none)")
	fs.StringVar(&o.jsonOut, "json", "", "also write the results as JSON to this file")
	fs.StringVar(&o.cpuProf, "cpuprofile", "", "write a CPU profile of the in-process runs to this file")
	fs.BoolVar(&o.markdown, "markdown", false, "print the results as a markdown table (for the README)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *writeCorpus != "" {
		return writeTranscripts(*writeCorpus, o.transcripts, out)
	}
	if o.bin == "" {
		return fmt.Errorf("-bin is required (go build -o /tmp/cortex ./cmd/cortex)")
	}
	for _, s := range strings.Split(sizes, ",") {
		if strings.TrimSpace(s) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return fmt.Errorf("-sizes: %q is not a positive number", s)
		}
		o.sizes = append(o.sizes, n)
	}
	fmt.Fprintf(out, "cortex-bench: %s, %d CPUs, %s\n", runtime.Version(), runtime.NumCPU(), time.Now().UTC().Format(time.RFC3339))
	var all []result
	for _, n := range o.sizes {
		rs, err := benchSize(o, n, out)
		if err != nil {
			return fmt.Errorf("size %d: %w", n, err)
		}
		all = append(all, rs...)
	}
	if o.transcripts > 0 {
		rs, err := benchTranscripts(o, o.transcripts, out)
		if err != nil {
			return fmt.Errorf("transcripts: %w", err)
		}
		all = append(all, rs...)
	}
	if o.markdown {
		printMarkdown(out, all)
	} else {
		printTable(out, all)
	}
	if o.jsonOut != "" {
		data, _ := json.MarshalIndent(all, "", "  ")
		if err := os.WriteFile(o.jsonOut, append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// env is one generated vault with its state folder.
type env struct {
	bin, vault, home string
}

// environ is the environment the binary runs in: this vault and state
// folder, and a config file that does not exist.
func (e *env) environ() map[string]string {
	return map[string]string{config.EnvVault: e.vault, config.EnvHome: e.home, config.EnvConfig: filepath.Join(e.home, "none.yaml")}
}

func (e *env) cmd(args ...string) *exec.Cmd {
	c := exec.Command(e.bin, args...)
	c.Env = os.Environ()
	for k, v := range e.environ() {
		c.Env = append(c.Env, k+"="+v)
	}
	c.Stdin = strings.NewReader("")
	return c
}

// open opens cortex in this process as the binary opens it: the settings
// resolved from the same environment, and the same wiring.
func (e *env) open(o wiring.Options) (*wiring.Cortex, error) {
	s, err := config.Resolve(config.Flags{}, func(k string) string { return e.environ()[k] }, "")
	if err != nil {
		return nil, err
	}
	return wiring.Open(s, o)
}

// timeProcess runs the binary once and returns its wall time and peak RSS (MB).
func (e *env) timeProcess(args ...string) (time.Duration, float64, error) {
	return e.timeProcessIn("", args...)
}

// timeProcessIn is timeProcess with stdin as the process's standard input.
func (e *env) timeProcessIn(stdin string, args ...string) (time.Duration, float64, error) {
	c := e.cmd(args...)
	c.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	c.Stdout, c.Stderr = io.Discard, &stderr
	start := time.Now()
	err := c.Run()
	d := time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("cortex %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	rss := 0.0
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = float64(ru.Maxrss) / 1024 // Linux reports KiB
		if runtime.GOOS == "darwin" {
			rss /= 1024 // macOS reports bytes
		}
	}
	return d, rss, nil
}

func benchSize(o options, n int, out io.Writer) ([]result, error) {
	tmp, err := os.MkdirTemp("", fmt.Sprintf("cortex-bench-%d-", n))
	if err != nil {
		return nil, err
	}
	if !o.keep {
		defer os.RemoveAll(tmp)
	}
	e := &env{bin: o.bin, vault: filepath.Join(tmp, "vault"), home: filepath.Join(tmp, "state")}
	end := time.Now()
	start := time.Now()
	ids, err := bench.WriteVault(e.vault, n, uint64(n), end)
	if err != nil {
		return nil, err
	}
	if err := seedAccesses(e, ids, end); err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "\n%d notes generated in %s (%s)\n", n, time.Since(start).Round(time.Millisecond), tmp)

	var rs []result
	add := func(op, target string, ds []time.Duration, rss []float64) {
		r := result{Size: n, Op: op, Runs: len(ds), P50ms: ms(pct(ds, 50)), P99ms: ms(pct(ds, 99)), Target: target}
		if len(rss) > 0 {
			r.MaxRSS = slices.Max(rss)
		}
		rs = append(rs, r)
		fmt.Fprintf(out, "  %-34s p50 %9.2f ms   p99 %9.2f ms\n", op, r.P50ms, r.P99ms)
	}
	series := func(runs int, args func(i int) []string) ([]time.Duration, []float64, error) {
		var ds []time.Duration
		var rss []float64
		for i := 0; i < runs; i++ {
			d, m, err := e.timeProcess(args(i)...)
			if err != nil {
				return nil, nil, err
			}
			ds, rss = append(ds, d), append(rss, m)
		}
		return ds, rss, nil
	}

	// The floor every command stands on: starting the binary.
	ds, rss, err := series(o.runs, func(int) []string { return []string{"version"} })
	if err != nil {
		return nil, err
	}
	add("start-up: cortex version (process)", "", ds, rss)

	rebuilds := 3
	if n > 20000 {
		rebuilds = 1
	}
	ds, rss, err = series(rebuilds, func(int) []string { return []string{"reindex", "--full"} })
	if err != nil {
		return nil, err
	}
	add("rebuild (process)", target(n, "≤ 3 s", "≤ 30 s"), ds, rss)

	queries := bench.NewGenerator(uint64(n)+1, end)
	qs := make([]string, o.runs)
	for i := range qs {
		qs[i] = queries.Query()
	}
	// Files written less than two seconds ago are checked by content (see
	// store's racy window); let the fresh vault settle as a used one would be.
	settle := func() error {
		time.Sleep(2100 * time.Millisecond)
		_, _, err := e.timeProcess("doctor")
		return err
	}
	if err := settle(); err != nil {
		return nil, err
	}
	if _, _, err := e.timeProcess("recall", qs[0]); err != nil { // warm the page cache
		return nil, err
	}
	ds, rss, err = series(o.runs, func(i int) []string { return []string{"recall", qs[i]} })
	if err != nil {
		return nil, err
	}
	add("recall (process)", target(n, "p50 ≤ 10 ms, ≤ 50 MB", "p50 ≤ 25 ms"), ds, rss)

	hookRows, err := hookRuns(e, tmp, o.runs, n)
	if err != nil {
		return nil, err
	}
	for _, r := range hookRows {
		add(r.Op, r.Target, r.ds, r.rss)
	}

	ds, rss, err = series(max(o.runs/4, 5), func(int) []string { return []string{"list"} })
	if err != nil {
		return nil, err
	}
	add("list (process)", target(n, "≤ 50 ms", ""), ds, rss)

	gen := bench.NewGenerator(uint64(n)+2, end)
	ds, rss, err = series(o.saves, func(int) []string {
		m := gen.Memory()
		return []string{"save", "--project", m.Project, "--title", m.Title, m.Body}
	})
	if err != nil {
		return nil, err
	}
	add(fmt.Sprintf("save (process, %d in a row)", o.saves), target(n, "p50 ≤ 15 ms", ""), ds, rss)

	ds, rss, err = series(o.runs, func(i int) []string { return []string{"recall", qs[i]} })
	if err != nil {
		return nil, err
	}
	add(fmt.Sprintf("recall right after %d saves (process)", o.saves), "", ds, rss)
	if err := settle(); err != nil {
		return nil, err
	}
	ds, rss, err = series(o.runs, func(i int) []string { return []string{"recall", qs[i]} })
	if err != nil {
		return nil, err
	}
	add(fmt.Sprintf("recall 2 s after %d saves (process)", o.saves), "no slower", ds, rss)

	inproc, err := inProcess(e, qs, gen, o.cpuProf)
	if err != nil {
		return nil, err
	}
	for _, r := range inproc {
		r.Size = n
		switch r.Target {
		case "mcp-recall":
			r.Target = target(n, "p50 ≤ 1 ms, p99 ≤ 5 ms", "p50 ≤ 5 ms, p99 ≤ 25 ms")
		case "mcp-save":
			r.Target = target(n, "p50 ≤ 3 ms", "")
		}
		rs = append(rs, r)
		fmt.Fprintf(out, "  %-34s p50 %9.2f ms   p99 %9.2f ms\n", r.Op, r.P50ms, r.P99ms)
	}
	if o.normalizeN > 0 {
		r, err := normalizeRuns(e, tmp, o.normalizeN, n)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
		fmt.Fprintf(out, "  %-34s %9.2f ms\n", r.Op, r.P50ms)
	}
	if o.importN > 0 {
		imp, err := importRuns(e, tmp, o.importN, n)
		if err != nil {
			return nil, err
		}
		for _, r := range imp {
			rs = append(rs, r)
			fmt.Fprintf(out, "  %-34s %9.2f ms   max RSS %.0f MB\n", r.Op, r.P50ms, r.MaxRSS)
		}
	}
	// Last, since it changes the vault: a pull from another machine.
	r, err := arrivalRun(e, n, end)
	if err != nil {
		return nil, err
	}
	rs = append(rs, r)
	fmt.Fprintf(out, "  %-34s %9.2f ms   max RSS %.0f MB\n", r.Op, r.P50ms, r.MaxRSS)
	return rs, nil
}

// arrivalRun changes a fifth of the vault as a git pull from another machine
// does (three in five notes changed, one added, one removed) and times the
// next recall, whole process: it takes in every change before it answers,
// and must find a word only a changed note holds.
func arrivalRun(e *env, n int, end time.Time) (result, error) {
	k := n / 5
	a, err := bench.Arrive(e.vault, k*3/5, k/5, k/5, uint64(n)+4, end)
	if err != nil {
		return result{}, err
	}
	id := a.Changed[0]
	c := e.cmd("recall", "--json", a.Words[id])
	var stdout, stderr strings.Builder
	c.Stdout, c.Stderr = &stdout, &stderr
	start := time.Now()
	if err := c.Run(); err != nil {
		return result{}, fmt.Errorf("cortex recall after the pull: %v: %s", err, stderr.String())
	}
	d := time.Since(start)
	if !strings.Contains(stdout.String(), id) {
		return result{}, fmt.Errorf("cortex recall after the pull did not find %s (%s): %s", id, a.Words[id], stdout.String())
	}
	rss := 0.0
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = float64(ru.Maxrss) / 1024
	}
	return result{Size: n, Op: fmt.Sprintf("recall after a pull changed %d notes (process)", len(a.Changed)+len(a.Added)+len(a.Removed)),
		Runs: 1, P50ms: ms(d), P99ms: ms(d), MaxRSS: rss}, nil
}

// timed is one whole-process series.
type timed struct {
	Op, Target string
	ds         []time.Duration
	rss        []float64
}

// hookRuns times the hooks and capture as agents run them, whole process:
// `cortex hook claude-code session-start` with Claude Code's payload, from a
// git repository of one of the vault's projects (so the briefing draws on
// its memories, the open items and decisions, the areas and general);
// `cortex hook claude-code stop`, which writes an event into the inbox; and
// `cortex capture`.
func hookRuns(e *env, tmp string, runs, n int) ([]timed, error) {
	project := filepath.Join(tmp, "work", bench.Projects[0])
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o700); err != nil {
		return nil, err
	}
	payload := func(event string, i int) string {
		return fmt.Sprintf(`{"session_id":"bench-%d","transcript_path":%q,"cwd":%q,"hook_event_name":%q,"source":"startup"}`,
			i, filepath.Join(tmp, "transcript.jsonl"), project, event)
	}
	// The briefing must be there: a hook that fails prints nothing, and
	// would be timed as fast.
	c := e.cmd("hook", "claude-code", "session-start")
	c.Stdin = strings.NewReader(payload("SessionStart", 0))
	out, err := c.Output()
	if err != nil || !strings.HasPrefix(string(out), `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"# Memories`) {
		log, _ := os.ReadFile(filepath.Join(e.home, "hooks.log"))
		return nil, fmt.Errorf("hook session-start gave %q (%v); hooks.log:\n%s", out, err, log)
	}
	var rows []timed
	for _, h := range []struct {
		op, target string
		stdin      func(i int) string
		args       func(i int) []string
	}{
		{"hook session-start (process)", target(n, "p50 ≤ 15 ms", ""), func(i int) string { return payload("SessionStart", i) },
			func(int) []string { return []string{"hook", "claude-code", "session-start"} }},
		{"hook stop: an event (process)", "", func(i int) string { return payload("Stop", i) },
			func(int) []string { return []string{"hook", "claude-code", "stop"} }},
		{"capture (process)", "p50 ≤ 5 ms", func(int) string { return "" },
			func(i int) []string {
				return []string{"capture", "--project", bench.Projects[0], fmt.Sprintf("Benchmark event %d: ask about the replica lag.", i)}
			}},
	} {
		var t timed
		t.Op, t.Target = h.op, h.target
		for i := 1; i <= runs; i++ {
			d, m, err := e.timeProcessIn(h.stdin(i), h.args(i)...)
			if err != nil {
				return nil, err
			}
			t.ds, t.rss = append(t.ds, d), append(t.rss, m)
		}
		rows = append(rows, t)
	}
	return rows, nil
}

// importRuns times `cortex import` of n generated markdown notes (frontmatter
// with title and tags, a few paragraphs, one memory each) into an empty vault,
// then into the benchmark's vault of size notes, whose memories every imported
// one is compared with.
func importRuns(e *env, tmp string, n, size int) ([]result, error) {
	home := filepath.Join(tmp, "home")
	notes := filepath.Join(home, "notes")
	if err := writeNotes(notes, n, uint64(size)+3); err != nil {
		return nil, err
	}
	// A person's notes are on disk already: flush the ones just written, so
	// that the import's own flush does not pay for them.
	syscall.Sync()
	// The empty vault is a folder that exists (cortex never creates a vault).
	if err := os.MkdirAll(filepath.Join(tmp, "import-vault"), 0o700); err != nil {
		return nil, err
	}
	var rs []result
	for _, into := range []struct {
		name  string
		vault string
		state string
	}{
		{"empty vault", filepath.Join(tmp, "import-vault"), filepath.Join(tmp, "import-state")},
		{fmt.Sprintf("vault of %d", size), e.vault, e.home},
	} {
		c := exec.Command(e.bin, "import", notes)
		c.Env = append(os.Environ(), "HOME="+home, "CORTEX_VAULT="+into.vault, "CORTEX_HOME="+into.state, "CORTEX_CONFIG="+filepath.Join(tmp, "none.yaml"))
		var stdout, stderr strings.Builder
		c.Stdout, c.Stderr = &stdout, &stderr
		start := time.Now()
		if err := c.Run(); err != nil {
			return nil, fmt.Errorf("cortex import: %v: %s", err, stderr.String())
		}
		d := time.Since(start)
		rss := 0.0
		if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = float64(ru.Maxrss) / 1024
		}
		fmt.Fprintf(os.Stderr, "  import into the %s: %s\n", into.name, strings.SplitN(stdout.String(), "\n", 2)[0])
		rs = append(rs, result{Size: size, Op: fmt.Sprintf("import %d notes into the %s (process)", n, into.name),
			Runs: 1, P50ms: ms(d), P99ms: ms(d), MaxRSS: rss, Target: map[bool]string{true: "≤ 5 s", false: ""}[into.name == "empty vault"]})
	}
	return rs, nil
}

// writeNotes writes n markdown notes as a person's notes folder holds them:
// 50 folders, frontmatter with a title and tags, two to six paragraphs.
func writeNotes(dir string, n int, seed uint64) error {
	g := bench.NewGenerator(seed, time.Now())
	for i := 0; i < n; i++ {
		m := g.Memory()
		sub := filepath.Join(dir, fmt.Sprintf("folder-%02d", i%50))
		if err := os.MkdirAll(sub, 0o700); err != nil {
			return err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: %q\ntags: [%s]\n---\n\n", m.Title, strings.Join(m.Tags, ", "))
		for _, p := range strings.SplitAfter(m.Body, ". ") {
			b.WriteString(p)
			b.WriteString("\n\n")
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("note-%05d.md", i)), []byte(b.String()), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// inProcess times the services inside one process, as the MCP server runs them.
func inProcess(e *env, qs []string, gen *bench.Generator, cpuProf string) ([]result, error) {
	c, err := e.open(wiring.Options{})
	if err != nil {
		return nil, err
	}
	svc := c.Service
	ctx := context.Background()
	if _, err := svc.Recall(ctx, memories.RecallRequest{Query: qs[0]}); err != nil {
		return nil, err
	}
	if cpuProf != "" {
		f, err := os.Create(cpuProf)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	var recalls []time.Duration
	for round := 0; round < 5; round++ {
		for _, q := range qs {
			start := time.Now()
			if _, err := svc.Recall(ctx, memories.RecallRequest{Query: q}); err != nil {
				return nil, err
			}
			recalls = append(recalls, time.Since(start))
		}
	}
	// The MCP server's figures before the saves below, which leave notes too
	// recent to trust by their times for two seconds.
	mcpRows, err := mcpServer(e, qs, gen)
	if err != nil {
		return nil, err
	}
	// Saves with each combination of the checks, in turns, so that a change
	// in the machine's speed during the run weighs on all of them alike. The
	// scan's cost and the dedup's are the differences from "checks off".
	th := memories.DefaultChecks().Thresholds
	variants := []struct {
		op     string
		checks memories.Checks
	}{
		{"save (in-process)", memories.DefaultChecks()},
		{"save, checks off (in-process)", memories.Checks{}},
		{"save, scan only (in-process)", memories.Checks{Scan: true, Thresholds: th}},
		{"save, dedup only (in-process)", memories.Checks{Dedup: true, Thresholds: th}},
	}
	saves := make([][]time.Duration, len(variants))
	svcs := make([]*memories.Service, len(variants))
	for i, v := range variants {
		svcs[i] = c.NewService(memories.WithChecks(v.checks))
	}
	for round := 0; round < 40; round++ {
		for i, s := range svcs {
			m := gen.Memory()
			start := time.Now()
			if _, err := s.Save(ctx, memories.SaveRequest{Content: m.Body, Title: m.Title, Project: m.Project}); err != nil {
				return nil, fmt.Errorf("%s: %w", variants[i].op, err)
			}
			saves[i] = append(saves[i], time.Since(start))
		}
	}
	// The scan alone, on the texts a save scans.
	var scans []time.Duration
	for i := 0; i < 200; i++ {
		m := gen.Memory()
		start := time.Now()
		security.Scan(m.Title)
		security.Scan(m.Body)
		scans = append(scans, time.Since(start))
	}
	rs := []result{{Op: "recall (in-process)", Runs: len(recalls), P50ms: ms(pct(recalls, 50)), P99ms: ms(pct(recalls, 99))}}
	rs = append(rs, mcpRows...)
	for i, v := range variants {
		rs = append(rs, result{Op: v.op, Runs: len(saves[i]), P50ms: ms(pct(saves[i], 50)), P99ms: ms(pct(saves[i], 99))})
	}
	return append(rs, result{Op: "scan of title and body (in-process)", Runs: len(scans), P50ms: ms(pct(scans, 50)), P99ms: ms(pct(scans, 99))}), nil
}

// seedAccesses fills the access log as a month of use would: two recalls per
// memory on average, skewed to a fifth of them, over the thirty days before end.
func seedAccesses(e *env, ids []string, end time.Time) error {
	c, err := e.open(wiring.Options{})
	if err != nil {
		return err
	}
	l := c.Access
	r := rand.New(rand.NewPCG(uint64(len(ids)), 5))
	var batch []memories.Access
	for i := 0; i < 2*len(ids); i++ {
		id := ids[r.IntN(max(1, len(ids)/5))]
		if r.IntN(4) == 0 {
			id = ids[r.IntN(len(ids))]
		}
		batch = append(batch, memories.Access{ID: id, Source: memories.AccessRecall,
			Time: end.Add(-time.Duration(r.Int64N(int64(30 * 24 * time.Hour))))})
		if len(batch) == 1000 {
			if err := l.Record(context.Background(), batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := l.Record(context.Background(), batch); err != nil {
		return err
	}
	_, err = l.Stats(context.Background(), nil) // as the first reader would, write the cache
	return err
}

// mcpServer times recall and save as the MCP server runs them: the service
// call inside the handler on a resident store (what the targets are about),
// a whole call over the SDK's in-memory transport, and a round trip with the
// real binary over stdio.
func mcpServer(e *env, qs []string, gen *bench.Generator) ([]result, error) {
	ctx := context.Background()
	c, err := e.open(wiring.Options{Resident: true})
	if err != nil {
		return nil, err
	}
	svc := c.Service
	if _, err := svc.Recall(ctx, memories.RecallRequest{Query: qs[0]}); err != nil {
		return nil, err
	}
	var handler, saves, memCalls, stdioCalls []time.Duration
	for round := 0; round < 5; round++ {
		for _, q := range qs {
			start := time.Now()
			if _, err := svc.Recall(ctx, memories.RecallRequest{Query: q}); err != nil {
				return nil, err
			}
			handler = append(handler, time.Since(start))
		}
	}
	call := func(cs *sdk.ClientSession, q string) (time.Duration, error) {
		start := time.Now()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "memory_recall", Arguments: map[string]any{"query": q}})
		d := time.Since(start)
		if err == nil && res.IsError {
			err = fmt.Errorf("memory_recall: %v", res.Content)
		}
		return d, err
	}
	srv := cmcp.New(svc, cmcp.Options{Abs: c.Vault.Abs})
	ct, stt := sdk.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, stt, nil); err != nil {
		return nil, err
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	for round := 0; round < 3; round++ {
		for _, q := range qs {
			d, err := call(cs, q)
			if err != nil {
				return nil, err
			}
			memCalls = append(memCalls, d)
		}
	}
	cs.Close()
	cmd := e.cmd("mcp")
	cmd.Stdin = nil
	pcs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, err
	}
	defer pcs.Close()
	for round := 0; round < 3; round++ {
		for _, q := range qs {
			d, err := call(pcs, q)
			if err != nil {
				return nil, err
			}
			stdioCalls = append(stdioCalls, d)
		}
	}
	for i := 0; i < 40; i++ {
		m := gen.Memory()
		start := time.Now()
		if _, err := svc.Save(ctx, memories.SaveRequest{Content: m.Body, Title: m.Title, Project: m.Project}); err != nil {
			return nil, err
		}
		saves = append(saves, time.Since(start))
	}
	row := func(op string, ds []time.Duration, t string) result {
		return result{Op: op, Runs: len(ds), P50ms: ms(pct(ds, 50)), P99ms: ms(pct(ds, 99)), Target: t}
	}
	return []result{
		row("recall (MCP server, in the handler)", handler, "mcp-recall"),
		row("save (MCP server, in the handler)", saves, "mcp-save"),
		row("recall (MCP, in-memory transport)", memCalls, ""),
		row("recall (MCP over stdio, round trip)", stdioCalls, ""),
	}, nil
}

func target(n int, at10k, at100k string) string {
	switch {
	case n == 10000:
		return at10k
	case n == 100000:
		return at100k
	}
	return ""
}

// pct is the p-th percentile (nearest rank).
func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (p*len(s) + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func printTable(out io.Writer, rs []result) {
	fmt.Fprintln(out)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(w, "size\toperation\truns\tp50 ms\tp99 ms\tmax RSS MB\ttarget\t")
	for _, r := range rs {
		rss := ""
		if r.MaxRSS > 0 {
			rss = fmt.Sprintf("%.0f", r.MaxRSS)
		}
		fmt.Fprintf(w, "%d\t%s\t%d\t%.2f\t%.2f\t%s\t%s\t\n", r.Size, r.Op, r.Runs, r.P50ms, r.P99ms, rss, r.Target)
	}
	w.Flush()
}

func printMarkdown(out io.Writer, rs []result) {
	fmt.Fprintln(out, "\n| notes | operation | runs | p50 ms | p99 ms | max RSS MB | target |")
	fmt.Fprintln(out, "|---:|---|---:|---:|---:|---:|---|")
	for _, r := range rs {
		rss := ""
		if r.MaxRSS > 0 {
			rss = fmt.Sprintf("%.0f", r.MaxRSS)
		}
		fmt.Fprintf(out, "| %d | %s | %d | %.2f | %.2f | %s | %s |\n", r.Size, r.Op, r.Runs, r.P50ms, r.P99ms, rss, r.Target)
	}
}
