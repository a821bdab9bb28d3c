// Command cortex-bench is cortex's benchmark harness. For each vault shape and
// size it generates a vault, then times the real cortex binary end to end
// (process start to exit) and the services in-process, and prints medians,
// 99th percentiles and peak memory next to the targets of SPEC §8, with a
// verdict for each.
//
// Two shapes: synthetic (short English notes with code words over twelve
// projects) and real (one project folder of documentation-length notes in many
// languages, recombined from the repository's fixtures; see package bench).
// The synthetic shape alone flattered cortex.
//
//	go build -o /tmp/cortex ./cmd/cortex
//	go run ./cmd/cortex-bench -bin /tmp/cortex -sizes 1000,10000 -shape synthetic,real
//
// -bin takes several binaries, comma-separated, to compare them: each gets its
// own copy of the vault and state folder, and their runs alternate, each run
// starting with the next binary, so that a change in the machine's speed and
// the caches one run warms for the next weigh on all of them alike. With
// -transcripts it also generates a corpus of agents' sessions and times
// transcript search on it (transcripts.go):
//
//	go run ./cmd/cortex-bench -bin /tmp/cortex -sizes '' -transcripts 200000
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/internal/hugeheap"
	cmcp "github.com/cortexmem/cortex/mcp"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/security"
	"github.com/cortexmem/cortex/wiring"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == launchArg {
		os.Exit(launch(os.Args[2:]))
	}
	// The rows marked (handler) run the server's code in this process: its
	// heap is prepared as `cortex mcp` prepares its own.
	if hugeheap.Wanted(os.Getenv) {
		_, _ = hugeheap.Prepare(hugeheap.ServerRoom)
	}
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "cortex-bench: %v\n", err)
		os.Exit(1)
	}
}

type options struct {
	bins       []string
	sizes      []int
	shapes     []string
	fixtures   string
	runs       int
	saves      int
	keep       bool
	jsonOut    string
	cpuProf    string
	profile    string
	markdown   bool
	importN    int
	normalizeN int
	// paced is how long each series of paced recalls in the server runs.
	paced    time.Duration
	rebuilds int
	hooks    bool
	generate string
	// transcripts is the size, in messages, of the transcript corpus to
	// measure transcript search on; 0 measures none.
	transcripts int
}

// result is one measured operation.
type result struct {
	Shape  string  `json:"shape"`
	Size   int     `json:"size"`
	Bin    string  `json:"bin,omitempty"` // which binary, when several are compared
	Op     string  `json:"op"`
	Runs   int     `json:"runs"`
	P50ms  float64 `json:"p50_ms"`
	P99ms  float64 `json:"p99_ms"`
	MaxRSS float64 `json:"max_rss_mb,omitempty"`
	// CPUms is the median CPU time (user and system) of a whole-process
	// run: on a machine shared with other work the wall time measures the
	// queue for the cores as much as the command, the CPU time does not.
	CPUms  float64 `json:"cpu_ms,omitempty"`
	Target string  `json:"target,omitempty"`
	// Verdict compares the figures with the target: "meets" or "misses",
	// with the worst ratio of figure to limit.
	Verdict string `json:"verdict,omitempty"`
	// Note says more (what an import imported).
	Note string `json:"note,omitempty"`
}

func run(args []string, out io.Writer) error {
	defer removeLaunchReports()
	fs := flag.NewFlagSet("cortex-bench", flag.ContinueOnError)
	var o options
	var sizes, shapes, bins string
	fs.StringVar(&bins, "bin", "", "the cortex binary to time (required); several, comma-separated, are compared run by run")
	fs.StringVar(&sizes, "sizes", "1000,10000", "vault sizes, comma-separated")
	fs.StringVar(&shapes, "shape", "synthetic", "vault shapes, comma-separated: synthetic, real")
	fs.StringVar(&o.fixtures, "fixtures", "fixtures", "the repository's fixtures folder (the real shape's text)")
	fs.IntVar(&o.transcripts, "transcripts", 0, "also measure transcript search on a synthetic corpus of this many messages (e.g. 200000)")
	writeCorpus := fs.String("write-transcripts", "", "only write a transcript corpus of -transcripts messages in this folder, and describe it as JSON (used by -transcripts)")
	fs.IntVar(&o.runs, "runs", 40, "timed runs per whole-process operation")
	fs.IntVar(&o.saves, "saves", 150, "single saves to make before re-timing recall")
	fs.BoolVar(&o.keep, "keep", false, "keep the generated vaults")
	fs.IntVar(&o.importN, "import", 10000, "memories to import from generated markdown notes into an empty vault and into each generated one (0: none)")
	fs.BoolVar(&o.hooks, "hooks", true, "time the hooks and capture too")
	fs.IntVar(&o.rebuilds, "rebuilds", 0, "timed full rebuilds per binary (0: three, one above 20,000 notes)")
	fs.IntVar(&o.normalizeN, "normalize", 200, "events to put in the inbox for one timed normalize (0: none)")
	fs.DurationVar(&o.paced, "paced", 10*time.Second, "how long each series of recalls, and of saves, an agent's pace apart runs in the server")
	fs.StringVar(&o.jsonOut, "json", "", "also write the results as JSON to this file")
	fs.StringVar(&o.cpuProf, "cpuprofile", "", "write a CPU profile of the in-process runs to this file")
	fs.StringVar(&o.profile, "profile", "", "write CPU and heap profiles of one whole-process run of each operation into this folder")
	fs.BoolVar(&o.markdown, "markdown", false, "print the results as a markdown table (for the README)")
	fs.StringVar(&o.generate, "generate", "", "only write the vaults, as <shape>-<size>/ in this folder, and a notes folder to import beside each")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *writeCorpus != "" {
		return writeTranscripts(*writeCorpus, o.transcripts, out)
	}
	if bins == "" && o.generate == "" {
		return fmt.Errorf("-bin is required (go build -o /tmp/cortex ./cmd/cortex)")
	}
	for _, b := range strings.Split(bins, ",") {
		if b == "" {
			continue
		}
		abs, err := filepath.Abs(strings.TrimSpace(b))
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("-bin: %w", err)
		}
		o.bins = append(o.bins, abs)
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
	if o.paced < pace {
		return fmt.Errorf("-paced: %s is shorter than one pace of %s", o.paced, pace)
	}
	for _, s := range strings.Split(shapes, ",") {
		switch s = strings.TrimSpace(s); s {
		case "synthetic", "real":
			o.shapes = append(o.shapes, s)
		default:
			return fmt.Errorf("-shape: %q is not a shape; use synthetic, real or both, comma-separated", s)
		}
	}
	if o.profile != "" {
		if err := os.MkdirAll(o.profile, 0o700); err != nil {
			return err
		}
	}
	var corpus *bench.Corpus
	if slices.Contains(o.shapes, "real") {
		var err error
		if corpus, err = bench.LoadCorpus(o.fixtures); err != nil {
			return err
		}
	}
	if o.generate != "" {
		return generate(o, corpus, out)
	}
	fmt.Fprintf(out, "cortex-bench: %s, %d CPUs, %s\n", runtime.Version(), runtime.NumCPU(), time.Now().UTC().Format(time.RFC3339))
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(out, "load average at the start: %s", load)
	}
	var all []result
	for _, shape := range o.shapes {
		for _, n := range o.sizes {
			rs, err := benchSize(o, shape, corpus, n, out)
			if err != nil {
				return fmt.Errorf("%s vault of %d: %w", shape, n, err)
			}
			all = append(all, rs...)
		}
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

// generate writes the vaults and notes folders the benchmark would time, for
// timing or profiling commands by hand.
func generate(o options, corpus *bench.Corpus, out io.Writer) error {
	end := time.Now()
	for _, shape := range o.shapes {
		for _, n := range o.sizes {
			dir := filepath.Join(o.generate, fmt.Sprintf("%s-%d", shape, n))
			start := time.Now()
			if _, err := bench.Write(filepath.Join(dir, "vault"), source(shape, corpus, uint64(n), end), n, uint64(n)); err != nil {
				return err
			}
			if o.importN > 0 {
				if err := source(shape, corpus, uint64(n)+3, end).WriteNotes(filepath.Join(dir, "notes"), o.importN); err != nil {
					return err
				}
			}
			fmt.Fprintf(out, "%s: %d notes in %s\n", dir, n, time.Since(start).Round(time.Millisecond))
		}
	}
	return nil
}

// source is the generator of a shape.
func source(shape string, corpus *bench.Corpus, seed uint64, end time.Time) bench.Source {
	if shape == "real" {
		return bench.NewRealGenerator(corpus, seed, end)
	}
	return bench.NewGenerator(seed, end)
}

// env is one generated vault with its state folder, timed with one binary.
type env struct {
	bin, vault, home string
	// name tells the binary apart in the results when several are compared.
	name string
	// profile, when set, is where the next process run writes its profiles
	// (as name.cpu.pprof and name.heap.pprof in the folder).
	profile string
	// lastCPU is the CPU time of the last process timed.
	lastCPU time.Duration
	// listArgs lists every memory with this binary (listAll).
	listArgs []string
}

// environ is the environment the binary runs in: this vault and state
// folder, and a config file that does not exist.
func (e *env) environ() map[string]string {
	return map[string]string{config.EnvVault: e.vault, config.EnvHome: e.home, config.EnvConfig: filepath.Join(e.home, "none.yaml")}
}

// cmd is a command running the binary with args in this environment,
// through a launcher (see launchCmd): usage(c) is its wall time, CPU time
// and peak memory once it has run.
func (e *env) cmd(args ...string) *exec.Cmd {
	c := launchCmd(e.bin, args...)
	c.Env = os.Environ()
	for k, v := range e.environ() {
		c.Env = append(c.Env, k+"="+v)
	}
	if e.profile != "" {
		c.Env = append(c.Env, "CORTEX_CPUPROFILE="+e.profile+".cpu.pprof", "CORTEX_MEMPROFILE="+e.profile+".heap.pprof")
		e.profile = ""
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
	err := c.Run()
	// A save the real shape makes may repeat an earlier note closely enough
	// to be refused as a duplicate (exit code 3): timed all the same, it
	// did the work of a save but the write.
	dup := len(args) > 0 && args[0] == "save" && c.ProcessState != nil && c.ProcessState.ExitCode() == 3 &&
		strings.Contains(stderr.String(), "already exists")
	if err != nil && !dup {
		return 0, 0, fmt.Errorf("cortex %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	d, cpu, rss, err := usage(c)
	if err != nil {
		return 0, 0, fmt.Errorf("cortex %s: %w", strings.Join(args, " "), err)
	}
	e.lastCPU = cpu
	return d, rss, nil
}

// bench is one shape and size being measured with every binary.
type benchRun struct {
	o     options
	shape string
	n     int
	envs  []*env
	rs    []result
	out   io.Writer
}

// add records a series of one binary.
func (b *benchRun) add(e *env, op string, t target, ds []time.Duration, rss []float64, cpu ...time.Duration) {
	r := result{Shape: b.shape, Size: b.n, Op: op, Runs: len(ds), P50ms: ms(pct(ds, 50)), P99ms: ms(pct(ds, 99)), Target: t.text}
	if len(cpu) > 0 {
		r.CPUms = ms(pct(cpu, 50))
	}
	if len(b.envs) > 1 {
		r.Bin = e.name
	}
	if len(rss) > 0 {
		r.MaxRSS = slices.Max(rss)
	}
	r.Verdict = t.verdict(r)
	b.rs = append(b.rs, r)
	bin := ""
	if r.Bin != "" {
		bin = "[" + r.Bin + "] "
	}
	fmt.Fprintf(b.out, "  %s%-44s p50 %9.2f ms   p99 %9.2f ms   CPU p50 %9.2f ms   max RSS %4.0f MB  %s\n", bin, op, r.P50ms, r.P99ms, r.CPUms, r.MaxRSS, r.Verdict)
}

// series runs args(i) runs times with every binary, the binaries taking
// turns run by run (see turns), and records each binary's series. With -profile, the
// last run of each binary writes profiles named after prof.
func (b *benchRun) series(op string, t target, runs int, prof string, args func(i int) []string) error {
	return b.seriesOf(op, t, runs, prof, func(i int, _ *env) []string { return args(i) })
}

// seriesOf is series with arguments that may differ from one binary to
// the next.
func (b *benchRun) seriesOf(op string, t target, runs int, prof string, args func(i int, e *env) []string) error {
	ds := make([][]time.Duration, len(b.envs))
	cpu := make([][]time.Duration, len(b.envs))
	rss := make([][]float64, len(b.envs))
	for i := 0; i < runs; i++ {
		for _, k := range turns(i, len(b.envs)) {
			e := b.envs[k]
			if i == runs-1 && prof != "" && b.o.profile != "" {
				e.profile = filepath.Join(b.o.profile, fmt.Sprintf("%s-%d-%s%s", b.shape, b.n, prof, e.suffix()))
			}
			d, m, err := e.timeProcess(args(i, e)...)
			if err != nil {
				return err
			}
			ds[k], rss[k], cpu[k] = append(ds[k], d), append(rss[k], m), append(cpu[k], e.lastCPU)
		}
	}
	for k, e := range b.envs {
		b.add(e, op, t, ds[k], rss[k], cpu[k]...)
	}
	return nil
}

// turns is the order in which n binaries take run i: each run starts with
// the next binary, so that none is always first (the one after another
// finds the caches that one warmed, and a machine's load drifts in time).
func turns(i, n int) []int {
	order := make([]int, n)
	for j := range order {
		order[j] = (i + j) % n
	}
	return order
}

// listAll is the arguments that list every memory: "list --limit 0" for a
// binary whose list has a limit (it shows 100 by default), "list" for one
// from before.
func (e *env) listAll() []string {
	if e.listArgs == nil {
		e.listArgs = []string{"list"}
		if out, err := exec.Command(e.bin, "list", "--help").Output(); err == nil && strings.Contains(string(out), "--limit") {
			e.listArgs = []string{"list", "--limit", "0"}
		}
	}
	return e.listArgs
}

// suffix tells a binary's files apart when several are compared.
func (e *env) suffix() string {
	if e.name == "" {
		return ""
	}
	return "-" + e.name
}

func benchSize(o options, shape string, corpus *bench.Corpus, n int, out io.Writer) ([]result, error) {
	tmp, err := os.MkdirTemp("", fmt.Sprintf("cortex-bench-%s-%d-", shape, n))
	if err != nil {
		return nil, err
	}
	if !o.keep {
		defer os.RemoveAll(tmp)
	}
	b := &benchRun{o: o, shape: shape, n: n, out: out}
	end := time.Now()
	start := time.Now()
	src := source(shape, corpus, uint64(n), end)
	first := filepath.Join(tmp, "vault")
	ids, err := bench.Write(first, src, n, uint64(n))
	if err != nil {
		return nil, err
	}
	for k, bin := range o.bins {
		e := &env{bin: bin, vault: first, home: filepath.Join(tmp, "state")}
		if len(o.bins) > 1 {
			e.name = strings.TrimSuffix(filepath.Base(bin), ".exe")
			if slices.ContainsFunc(b.envs, func(x *env) bool { return x.name == e.name }) {
				e.name = fmt.Sprintf("%s%d", e.name, k+1)
			}
			e.vault, e.home = filepath.Join(tmp, "vault-"+e.name), filepath.Join(tmp, "state-"+e.name)
			if err := exec.Command("cp", "-a", first, e.vault).Run(); err != nil {
				return nil, fmt.Errorf("copy the vault: %w", err)
			}
		}
		if err := seedAccesses(e, ids, end); err != nil {
			return nil, err
		}
		b.envs = append(b.envs, e)
	}
	fmt.Fprintf(out, "\n%s vault, %d notes, generated in %s (%s)\n", shape, n, time.Since(start).Round(time.Millisecond), tmp)

	// The floor every command stands on: starting the binary.
	if err := b.series("start-up: cortex version (process)", target{}, o.runs, "", func(int) []string { return []string{"version"} }); err != nil {
		return nil, err
	}
	rebuilds := o.rebuilds
	if rebuilds <= 0 {
		rebuilds = 3
		if n > 20000 {
			rebuilds = 1
		}
	}
	if err := b.series("rebuild (process)", rebuildTarget(n), rebuilds, "rebuild", func(int) []string { return []string{"reindex", "--full"} }); err != nil {
		return nil, err
	}

	queries := source(shape, corpus, uint64(n)+1, end)
	qs := make([]string, o.runs)
	for i := range qs {
		qs[i] = queries.Query()
	}
	// Questions come from a source of their own, so that the queries
	// above are the ones every run before had.
	asked := source(shape, corpus, uint64(n)+2, end)
	questions := make([]string, o.runs)
	for i := range questions {
		questions[i] = asked.Question()
	}
	// Files written less than two seconds ago are checked by content (see
	// store's racy window); let the fresh vault settle as a used one would be.
	settle := func() error {
		time.Sleep(2100 * time.Millisecond)
		for _, e := range b.envs {
			if _, _, err := e.timeProcess("doctor"); err != nil {
				return err
			}
		}
		return nil
	}
	if err := settle(); err != nil {
		return nil, err
	}
	for _, e := range b.envs { // warm the page cache
		if _, _, err := e.timeProcess("recall", qs[0]); err != nil {
			return nil, err
		}
	}
	if err := b.series("recall (process)", recallTarget(n), o.runs, "recall", func(i int) []string { return []string{"recall", qs[i]} }); err != nil {
		return nil, err
	}
	if o.hooks {
		if err := hookRuns(b, src.Projects()[0], tmp); err != nil {
			return nil, err
		}
	}
	// The whole inventory, as the target means it: list shows 100 unless
	// told otherwise, where a binary knows --limit.
	if err := b.seriesOf("list (process)", listTarget(n), max(o.runs/4, 5), "list", func(_ int, e *env) []string { return e.listAll() }); err != nil {
		return nil, err
	}
	gen := source(shape, corpus, uint64(n)+2, end)
	saves := make([]*memories.Memory, o.saves)
	for i := range saves {
		saves[i] = gen.Memory()
	}
	err = b.series(fmt.Sprintf("save (process, %d in a row)", o.saves), saveTarget(n), o.saves, "save", func(i int) []string {
		m := saves[i]
		return []string{"save", "--project", m.Project, "--title", m.Title, "--", m.Body}
	})
	if err != nil {
		return nil, err
	}
	if err := b.series(fmt.Sprintf("recall right after %d saves (process)", o.saves), target{}, o.runs, "", func(i int) []string { return []string{"recall", qs[i]} }); err != nil {
		return nil, err
	}
	if err := settle(); err != nil {
		return nil, err
	}
	if err := b.series(fmt.Sprintf("recall 2 s after %d saves (process)", o.saves), target{text: "no slower"}, o.runs, "", func(i int) []string { return []string{"recall", qs[i]} }); err != nil {
		return nil, err
	}
	if err := mcpStdio(b, qs, gen); err != nil {
		return nil, err
	}
	if err := mcpCompaction(b, gen); err != nil {
		return nil, err
	}
	// The services in this process: the code this harness was built from,
	// on a copy of the last binary's state folder (see harnessEnv).
	he, err := harnessEnv(b.envs[len(b.envs)-1])
	if err != nil {
		return nil, err
	}
	inproc, err := inProcess(he, qs, questions, gen, o.cpuProf, o.paced)
	if err != nil {
		return nil, err
	}
	for _, r := range inproc {
		r.Shape, r.Size = shape, n
		if len(b.envs) > 1 {
			r.Bin = "harness"
		}
		var t target
		switch r.Target {
		case "mcp-recall":
			t = mcpRecallTarget(n)
		case "mcp-save":
			t = mcpSaveTarget(n)
		}
		r.Target, r.Verdict = t.text, t.verdict(r)
		b.rs = append(b.rs, r)
		fmt.Fprintf(out, "  %-44s p50 %9.2f ms   p99 %9.2f ms  %s\n", r.Op, r.P50ms, r.P99ms, r.Verdict)
		if r.Note != "" {
			fmt.Fprintf(out, "    %s\n", r.Note)
		}
	}
	if o.normalizeN > 0 {
		for _, e := range b.envs {
			r, err := normalizeRuns(e, tmp, o.normalizeN, n)
			if err != nil {
				return nil, err
			}
			r.Shape, r.Bin = shape, e.name
			b.rs = append(b.rs, r)
			fmt.Fprintf(out, "  %-44s %9.2f ms  %s\n", r.Op+e.suffix(), r.P50ms, e.name)
		}
	}
	if o.importN > 0 {
		if err := importRuns(b, tmp, o.importN, corpus, end); err != nil {
			return nil, err
		}
	}
	// Last, since it changes the vault: a pull from another machine.
	for _, e := range b.envs {
		r, err := arrivalRun(e, n, end)
		if err != nil {
			return nil, err
		}
		r.Shape, r.Bin = shape, e.name
		b.rs = append(b.rs, r)
		fmt.Fprintf(out, "  %-44s %9.2f ms   CPU %9.2f ms   max RSS %4.0f MB  %s\n", r.Op, r.P50ms, r.CPUms, r.MaxRSS, e.name)
	}
	return b.rs, nil
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
	if err := c.Run(); err != nil {
		return result{}, fmt.Errorf("cortex recall after the pull: %v: %s", err, stderr.String())
	}
	d, cpu, rss, err := usage(c)
	if err != nil {
		return result{}, fmt.Errorf("cortex recall after the pull: %w", err)
	}
	if !strings.Contains(stdout.String(), id) {
		return result{}, fmt.Errorf("cortex recall after the pull did not find %s (%s): %s", id, a.Words[id], stdout.String())
	}
	return result{Size: n, Op: fmt.Sprintf("recall after a pull changed %d notes (process)", len(a.Changed)+len(a.Added)+len(a.Removed)),
		Runs: 1, P50ms: ms(d), P99ms: ms(d), MaxRSS: rss, CPUms: ms(cpu)}, nil
}

// hookRuns times the hooks and capture as agents run them, whole process:
// `cortex hook claude-code session-start` with Claude Code's payload, from a
// git repository of one of the vault's projects (so the briefing draws on
// its memories, the open items and decisions, the areas and general);
// `cortex hook claude-code stop`, which writes an event into the inbox; and
// `cortex capture`.
func hookRuns(b *benchRun, projectName, tmp string) error {
	project := filepath.Join(tmp, "work", projectName)
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o700); err != nil {
		return err
	}
	payload := func(event string, i int) string {
		return fmt.Sprintf(`{"session_id":"bench-%d","transcript_path":%q,"cwd":%q,"hook_event_name":%q,"source":"startup"}`,
			i, filepath.Join(tmp, "transcript.jsonl"), project, event)
	}
	// The briefing must be there: a hook that fails prints nothing, and
	// would be timed as fast.
	for _, e := range b.envs {
		c := e.cmd("hook", "claude-code", "session-start")
		c.Stdin = strings.NewReader(payload("SessionStart", 0))
		out, err := c.Output()
		if err != nil || !strings.HasPrefix(string(out), `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"# Memories`) {
			log, _ := os.ReadFile(filepath.Join(e.home, "hooks.log"))
			return fmt.Errorf("hook session-start gave %q (%v); hooks.log:\n%s", out, err, log)
		}
	}
	// The briefing of `cortex context` too: a failure would be timed as fast.
	const task = "migration timeout retry"
	for _, e := range b.envs {
		out, err := e.cmd("context", "--project", projectName, task).Output()
		if err != nil || !strings.HasPrefix(string(out), "# Briefing: "+task) {
			return fmt.Errorf("cortex context gave %q (%v)", out, err)
		}
	}
	for _, h := range []struct {
		op    string
		t     target
		stdin func(i int) string
		args  func(i int) []string
	}{
		{"context: a briefing (process)", contextTarget(b.n), func(int) string { return "" },
			func(int) []string { return []string{"context", "--project", projectName, task} }},
		{"hook session-start (process)", hookTarget(b.n), func(i int) string { return payload("SessionStart", i) },
			func(int) []string { return []string{"hook", "claude-code", "session-start"} }},
		{"hook stop: an event (process)", target{}, func(i int) string { return payload("Stop", i) },
			func(int) []string { return []string{"hook", "claude-code", "stop"} }},
		{"capture (process)", target{text: "p50 ≤ 5 ms", p50: 5 * time.Millisecond}, func(int) string { return "" },
			func(i int) []string {
				return []string{"capture", "--project", projectName, fmt.Sprintf("Benchmark event %d: ask about the replica lag.", i)}
			}},
	} {
		ds := make([][]time.Duration, len(b.envs))
		cpu := make([][]time.Duration, len(b.envs))
		rss := make([][]float64, len(b.envs))
		for i := 1; i <= b.o.runs; i++ {
			for _, k := range turns(i, len(b.envs)) {
				e := b.envs[k]
				d, m, err := e.timeProcessIn(h.stdin(i), h.args(i)...)
				if err != nil {
					return err
				}
				ds[k], rss[k], cpu[k] = append(ds[k], d), append(rss[k], m), append(cpu[k], e.lastCPU)
			}
		}
		for k, e := range b.envs {
			b.add(e, h.op, h.t, ds[k], rss[k], cpu[k]...)
		}
	}
	return nil
}

// importRuns times `cortex import` of a folder of generated markdown notes
// holding n memories, in the run's shape, into an empty vault, then into the
// benchmark's vault, whose memories every imported one is compared with.
func importRuns(b *benchRun, tmp string, n int, corpus *bench.Corpus, end time.Time) error {
	home := filepath.Join(tmp, "home")
	notes := filepath.Join(home, "notes")
	if err := source(b.shape, corpus, uint64(b.n)+3, end).WriteNotes(notes, n); err != nil {
		return err
	}
	// A person's notes are on disk already: flush the ones just written, so
	// that the import's own flush does not pay for them.
	syncDisks()
	// The first round is a dry run into the empty vault: everything an
	// import does before it writes (reading, parsing, the safety scan and
	// dedup), timed against the rate for it.
	for round, into := range []string{"empty vault", "empty vault", fmt.Sprintf("vault of %d", b.n)} {
		dry := round == 0
		for k, e := range b.envs {
			vaultDir, state := e.vault, e.home
			if round <= 1 {
				// The empty vault is a folder that exists (cortex never
				// creates a vault).
				vaultDir, state = filepath.Join(tmp, "import-vault"+e.suffix()), filepath.Join(tmp, "import-state"+e.suffix())
				if err := os.MkdirAll(vaultDir, 0o700); err != nil {
					return err
				}
			}
			args := []string{"import", notes}
			if dry {
				args = []string{"import", "--dry-run", notes}
			}
			c := launchCmd(e.bin, args...)
			c.Env = append(os.Environ(), "HOME="+home, "CORTEX_VAULT="+vaultDir, "CORTEX_HOME="+state, "CORTEX_CONFIG="+filepath.Join(tmp, "none.yaml"))
			if b.o.profile != "" {
				p := filepath.Join(b.o.profile, fmt.Sprintf("%s-%d-import-%d%s", b.shape, b.n, round, e.suffix()))
				c.Env = append(c.Env, "CORTEX_CPUPROFILE="+p+".cpu.pprof", "CORTEX_MEMPROFILE="+p+".heap.pprof")
			}
			var stdout, stderr strings.Builder
			c.Stdout, c.Stderr = &stdout, &stderr
			if err := c.Run(); err != nil {
				return fmt.Errorf("cortex import: %v: %s", err, stderr.String())
			}
			d, cpu, rss, err := usage(c)
			if err != nil {
				return fmt.Errorf("cortex import: %w", err)
			}
			t := target{}
			op := fmt.Sprintf("import %d memories into the %s (process)", n, into)
			note := strings.SplitN(stdout.String(), "\n", 2)[0]
			switch round {
			case 0:
				cands := candidatesOf(note)
				t = scanDedupTarget(cands)
				op = fmt.Sprintf("import %d memories, scan and dedup only (--dry-run, process)", n)
				note = fmt.Sprintf("%s; %.0f candidates/s, %.0f per CPU second", note, float64(cands)/d.Seconds(), float64(cands)/max(cpu.Seconds(), 1e-3))
			case 1:
				t = importTarget(n)
			}
			r := result{Shape: b.shape, Size: b.n, Op: op,
				Runs: 1, P50ms: ms(d), P99ms: ms(d), MaxRSS: rss, CPUms: ms(cpu), Target: t.text,
				Note: note}
			if len(b.envs) > 1 {
				r.Bin = e.name
			}
			r.Verdict = t.verdict(r)
			b.rs = append(b.rs, r)
			_ = k
			fmt.Fprintf(b.out, "  %-44s %9.2f ms   max RSS %4.0f MB  %s  (%s)\n", r.Op, r.P50ms, r.MaxRSS, r.Verdict, r.Note)
		}
	}
	return nil
}

// inProcess times the services inside one process, as the MCP server runs them.
func inProcess(e *env, qs, questions []string, gen bench.Source, cpuProf string, pacedFor time.Duration) ([]result, error) {
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
	mcpRows, err := mcpServer(e, qs, questions, gen, pacedFor)
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
			if _, err := s.Save(ctx, memories.SaveRequest{Content: m.Body, Title: m.Title, Project: m.Project}); err != nil && !isDuplicate(err) {
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

// isDuplicate reports a save refused as a near-duplicate: the real shape
// recombines a corpus, so a note now and then repeats another. It is timed
// all the same (the refusal does the work of a save but the write).
func isDuplicate(err error) bool {
	var rej *memories.RejectedError
	return errors.As(err, &rej) && rej.Existing != nil
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

// mcpStdio times recall and save through `cortex mcp` over stdio, a round
// trip per call, with every binary in turns: what an agent waits for, and a
// figure any binary gives (the in-process rows are this harness's code).
func mcpStdio(b *benchRun, qs []string, gen bench.Source) error {
	ctx := context.Background()
	sessions := make([]*sdk.ClientSession, len(b.envs))
	cmds := make([]*exec.Cmd, len(b.envs))
	for k, e := range b.envs {
		cs, cmd, err := connectMCP(ctx, e)
		if err != nil {
			return err
		}
		defer func() {
			if sessions[k] != nil {
				_ = sessions[k].Close()
			}
		}()
		sessions[k], cmds[k] = cs, cmd
	}
	call := func(cs *sdk.ClientSession, tool string, args map[string]any) (time.Duration, error) {
		start := time.Now()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		d := time.Since(start)
		if err == nil && res.IsError {
			if refusedAsDuplicate(res) {
				return d, nil // a near-duplicate refused (see isDuplicate)
			}
			err = fmt.Errorf("%s: %v", tool, res.Content)
		}
		return d, err
	}
	recalls := make([][]time.Duration, len(b.envs))
	saves := make([][]time.Duration, len(b.envs))
	for round := 0; round < 3; round++ {
		for i, q := range qs {
			for _, k := range turns(round*len(qs)+i, len(sessions)) {
				cs := sessions[k]
				d, err := call(cs, "memory_recall", map[string]any{"query": q})
				if err != nil {
					return err
				}
				recalls[k] = append(recalls[k], d)
			}
		}
	}
	for i := 0; i < 40; i++ {
		m := gen.Memory()
		for _, k := range turns(i, len(sessions)) {
			cs := sessions[k]
			d, err := call(cs, "memory_save", map[string]any{"content": m.Body, "title": m.Title, "project": m.Project})
			if err != nil {
				return err
			}
			saves[k] = append(saves[k], d)
		}
	}
	// The server's peak memory over the session, once it has exited: the
	// figure SPEC §8 bounds at 100,000 notes.
	rss := make([]float64, len(b.envs))
	for k, cs := range sessions {
		sessions[k] = nil
		if err := cs.Close(); err != nil {
			return fmt.Errorf("cortex mcp (%s): %w", b.envs[k].name, err)
		}
		if _, _, m, err := usage(cmds[k]); err == nil {
			rss[k] = m
		} else {
			return fmt.Errorf("cortex mcp (%s): %w", b.envs[k].name, err)
		}
	}
	for k, e := range b.envs {
		b.add(e, "recall (MCP over stdio, round trip)", mcpServerTarget(b.n), recalls[k], rss[k:k+1])
		b.add(e, "save (MCP over stdio, round trip)", mcpSaveTarget(b.n), saves[k], nil)
	}
	return nil
}

// connectMCP starts `cortex mcp` of e and connects a client to it over
// stdio.
func connectMCP(ctx context.Context, e *env) (*sdk.ClientSession, *exec.Cmd, error) {
	cmd := e.cmd("mcp")
	cmd.Stdin = nil
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	return cs, cmd, err
}

// compactionRow is the row of mcpCompaction's saves.
const compactionRow = "save, a session through a compaction (MCP over stdio)"

// mcpCompaction times saves through `cortex mcp` over stdio, a session of
// each binary in turn, enough of them that the catalog is compacted in it
// (wiring.CompactLimit, a quarter more): the server's peak memory over a
// session of a few dozen saves (mcpStdio's) never meets what a compaction
// makes again, the catalog's base and the duplicate check's word indexes
// (every 632 saves at 100,000 notes).
func mcpCompaction(b *benchRun, gen bench.Source) error {
	ctx := context.Background()
	saves := wiring.CompactLimit(b.n) * 5 / 4
	for k, e := range b.envs {
		cs, cmd, err := connectMCP(ctx, e)
		if err != nil {
			return err
		}
		before := catalogBases(e.home)
		var took []time.Duration
		for range saves {
			m := gen.Memory()
			start := time.Now()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "memory_save", Arguments: map[string]any{"content": m.Body, "title": m.Title, "project": m.Project}})
			took = append(took, time.Since(start))
			if err == nil && res.IsError && !refusedAsDuplicate(res) {
				err = fmt.Errorf("memory_save: %v", res.Content)
			}
			if err != nil {
				_ = cs.Close()
				return fmt.Errorf("cortex mcp (%s): %w", b.envs[k].name, err)
			}
		}
		if err := cs.Close(); err != nil {
			return fmt.Errorf("cortex mcp (%s): %w", e.name, err)
		}
		_, _, rss, err := usage(cmd)
		if err != nil {
			return fmt.Errorf("cortex mcp (%s): %w", e.name, err)
		}
		if after := catalogBases(e.home); maps.Equal(after, before) {
			return fmt.Errorf("cortex mcp (%s): %d saves, and the catalog was not compacted (%v)", e.name, saves, after)
		}
		b.add(e, compactionRow, mcpServerTarget(b.n), took, []float64{rss})
	}
	return nil
}

// catalogBases identifies the catalog bases under the state folder home
// (by path, size and time): a compaction writes another.
func catalogBases(home string) map[string]string {
	paths, _ := filepath.Glob(filepath.Join(home, "vaults", "*", "index", "*", "catalog"))
	out := map[string]string{}
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			out[p] = fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return out
}

// refusedAsDuplicate says whether a tool's error result is a save refused
// as a near-duplicate (see isDuplicate).
func refusedAsDuplicate(res *sdk.CallToolResult) bool {
	tc, ok := res.Content[0].(*sdk.TextContent)
	return ok && strings.Contains(tc.Text, "already exists")
}

// mcpServerTarget: the MCP server's peak memory at 100,000 notes, over a
// session of recalls and saves.
func mcpServerTarget(n int) target {
	if n == 100000 {
		return target{text: "server ≤ 150 MB RSS", rss: 150}
	}
	return target{}
}

// mcpServer times recall and save as the MCP server runs them: the service
// call inside the handler on a resident store (what the targets are about),
// for the queries and for questions as agents ask them, and a whole call
// over the SDK's in-memory transport.
func mcpServer(e *env, qs, questions []string, gen bench.Source, pacedFor time.Duration) ([]result, error) {
	ctx := context.Background()
	// The collector as the server sets it, for the server's heap beside
	// what this process holds already.
	runtime.GC()
	var held runtime.MemStats
	runtime.ReadMemStats(&held)
	defer wiring.ServerGCBeside(os.Getenv, held.HeapAlloc)()
	c, err := e.open(wiring.Options{Resident: true})
	if err != nil {
		return nil, err
	}
	svc := c.Service
	if _, err := svc.Recall(ctx, memories.RecallRequest{Query: qs[0]}); err != nil {
		return nil, err
	}
	handler, handlerSlow, err := handlerRecalls(e, qs, handlerCalls)
	if err != nil {
		return nil, err
	}
	answered, answeredSlow, err := handlerRecalls(e, questions, questionCalls)
	if err != nil {
		return nil, err
	}
	var saves, memCalls []time.Duration
	paced, followed, pacedSlow, err := pacedRecalls(e, svc, qs, pacedFor)
	if err != nil {
		return nil, err
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
			start := time.Now()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "memory_recall", Arguments: map[string]any{"query": q}})
			if err == nil && res.IsError {
				err = fmt.Errorf("memory_recall: %v", res.Content)
			}
			if err != nil {
				return nil, err
			}
			memCalls = append(memCalls, time.Since(start))
		}
	}
	cs.Close()
	if saves, err = handlerSaves(e, gen); err != nil {
		return nil, err
	}
	pacedSaved, err := pacedSaves(e, gen, pacedFor)
	if err != nil {
		return nil, err
	}
	row := func(op string, ds []time.Duration, t string) result {
		return result{Op: op, Runs: len(ds), P50ms: ms(pct(ds, 50)), P99ms: ms(pct(ds, 99)), Target: t}
	}
	return []result{
		noted(row("recall (MCP server, in the handler)", handler, "mcp-recall"), handlerSlow),
		noted(row("recall of a question (MCP server, in the handler)", answered, "mcp-recall"), answeredSlow),
		noted(row(fmt.Sprintf("recall every %s, %s (MCP server)", pace, pacedFor), paced, "mcp-recall"), pacedSlow[0]),
		noted(row(fmt.Sprintf("recall every %s, %s, with the watcher (MCP server)", pace, pacedFor), followed, "mcp-recall"), pacedSlow[1]),
		row("save (MCP server, in the handler)", saves, "mcp-save"),
		row(fmt.Sprintf("save every %s, %s, with the watcher (MCP server)", savePace, pacedFor), pacedSaved, "mcp-save"),
		row("recall (MCP, in-memory transport)", memCalls, ""),
	}, nil
}

// noted is r with the slowest calls of its series as its note.
func noted(r result, slow *slowest) result {
	r.Note = slow.String()
	return r
}

// handlerCalls is how many recalls the in-handler row times: enough that
// its 99th percentile is not the second-worst call of a hundred.
const handlerCalls = 1500

// questionCalls is how many recalls the in-handler row of questions times:
// a question of a dozen words costs ten times a query of two (every note
// with one of its words is a candidate when the notes with all of them are
// too few), and 300 keep its 99th percentile off the worst call.
const questionCalls = 300

// handlerRecalls times recalls back to back in the handler of a resident
// store as the server has it: followed by the watcher the server runs
// (calls do not stat every note once the freshness window has passed) and
// warmed by one untimed round of the queries (a server answers for hours;
// the first call of a query pays for faulting in what it reads). It times
// calls calls, the queries in turn, and keeps the slowest.
func handlerRecalls(e *env, qs []string, calls int) (took []time.Duration, slow *slowest, err error) {
	ctx := context.Background()
	c, stop, err := openFollowed(e)
	if err != nil {
		return nil, nil, err
	}
	defer stopInto(stop, &err)
	for _, q := range qs {
		if _, err := c.Service.Recall(ctx, memories.RecallRequest{Query: q}); err != nil {
			return nil, nil, err
		}
	}
	runtime.GC() // the warm-up's garbage is not the timed calls' to collect
	took = make([]time.Duration, 0, calls)
	slow = &slowest{}
	for i := 0; i < calls; i++ {
		gcs := gcCycles()
		start := time.Now()
		if _, err := c.Service.Recall(ctx, memories.RecallRequest{Query: qs[i%len(qs)]}); err != nil {
			return nil, nil, err
		}
		d := time.Since(start)
		took = append(took, d)
		slow.add(d, i, i%len(qs), gcCycles()-gcs)
	}
	if !c.Store.IsFollowed() {
		return nil, nil, errors.New("the watcher stopped following the vault during the recalls")
	}
	return took, slow, nil
}

// handlerSaves times handlerSaveCalls saves in the handler of a resident
// store followed by the watcher, as the server runs them: without it, each
// save once the freshness window has passed stat'ed every note of the vault,
// which the server does not.
func handlerSaves(e *env, gen bench.Source) (took []time.Duration, err error) {
	ctx := context.Background()
	c, stop, err := openFollowed(e)
	if err != nil {
		return nil, err
	}
	defer stopInto(stop, &err)
	for i := 0; i < handlerSaveCalls; i++ {
		d, err := timedSave(ctx, c.Service, gen)
		if err != nil {
			return nil, err
		}
		took = append(took, d)
	}
	// A save into a new folder has the watcher follow it afresh; it must
	// be following again soon after, as the server's is.
	for deadline := time.Now().Add(time.Minute); !c.Store.IsFollowed(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return nil, errors.New("the watcher did not follow the vault again within a minute of the saves")
		}
	}
	return took, nil
}

// handlerSaveCalls is how many saves the in-handler row times.
const handlerSaveCalls = 40

// savePace is how far apart pacedSaves saves: far enough for what the
// server does after a save (its watcher's sync of the save's own files, the
// catch-up of the index) to run between two.
const savePace = 500 * time.Millisecond

// pacedSaves times saves in the handler of a resident store followed by the
// watcher, one every savePace for pacedFor, as an agent's come: unlike
// handlerSaves' saves back to back, each meets what the watcher and the
// catch-up did after the one before (a catalog read again, a folder
// listed), which is what a save in the server costs.
func pacedSaves(e *env, gen bench.Source, pacedFor time.Duration) (took []time.Duration, err error) {
	ctx := context.Background()
	c, stop, err := openFollowed(e)
	if err != nil {
		return nil, err
	}
	defer stopInto(stop, &err)
	for end := time.Now().Add(pacedFor); time.Now().Before(end); {
		d, err := timedSave(ctx, c.Service, gen)
		if err != nil {
			return nil, err
		}
		took = append(took, d)
		time.Sleep(savePace)
	}
	return took, nil
}

// timedSave saves gen's next memory through svc and says how long it took;
// a save refused as a duplicate is timed like any other.
func timedSave(ctx context.Context, svc *memories.Service, gen bench.Source) (time.Duration, error) {
	m := gen.Memory()
	start := time.Now()
	if _, err := svc.Save(ctx, memories.SaveRequest{Content: m.Body, Title: m.Title, Project: m.Project}); err != nil && !isDuplicate(err) {
		return 0, err
	}
	return time.Since(start), nil
}

// openFollowed opens a resident store of e followed by the watcher the MCP
// server runs (wiring.FollowVault), once it follows the vault. stop ends the
// watcher and reports what it warned of.
// stopInto calls stop and keeps its error in *err unless *err already holds
// one: the deferred end of openFollowed's store.
func stopInto(stop func() error, err *error) {
	if serr := stop(); *err == nil {
		*err = serr
	}
}

func openFollowed(e *env) (c *wiring.Cortex, stop func() error, err error) {
	if c, err = e.open(wiring.Options{Resident: true}); err != nil {
		return nil, nil, err
	}
	wctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var warned []string
	done := c.FollowVault(wctx, func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		warned = append(warned, msg)
	})
	stop = func() error {
		cancel()
		<-done
		if len(warned) > 0 {
			return fmt.Errorf("the watcher: %s", strings.Join(warned, "; "))
		}
		return nil
	}
	for deadline := time.Now().Add(time.Minute); !c.Store.IsFollowed(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = stop()
			return nil, nil, errors.New("the watcher did not follow the vault within a minute")
		}
	}
	return c, stop, nil
}

// An agent's calls come seconds apart, not back to back: paced recalls
// meet the once-a-freshness-window check of every note as an agent's do.
const pace = 20 * time.Millisecond

// pacedRecalls times recalls in the handler of two resident stores, one
// every pace for pacedFor: one as the server answered without a watcher
// (a call stat'ing every note once the freshness window has passed), one
// with the watcher the server runs (wiring.FollowVault), which spares calls
// that check while it follows the vault. The two take turns, so that a
// change in the machine's speed weighs on both alike.
func pacedRecalls(e *env, svc *memories.Service, qs []string, pacedFor time.Duration) (paced, followed []time.Duration, slow [2]*slowest, err error) {
	ctx := context.Background()
	c, stop, err := openFollowed(e)
	if err != nil {
		return nil, nil, slow, err
	}
	defer stopInto(stop, &err)
	if _, err := c.Service.Recall(ctx, memories.RecallRequest{Query: qs[0]}); err != nil {
		return nil, nil, slow, err // the first call loads the catalog: not timed
	}
	svcs := []*memories.Service{svc, c.Service}
	times := make([][]time.Duration, 2)
	slow = [2]*slowest{{}, {}}
	for i, end := 0, time.Now().Add(pacedFor); time.Now().Before(end); i++ {
		for k := range svcs {
			k = (k + i) % 2 // each goes first in turn
			gcs := gcCycles()
			start := time.Now()
			if _, err := svcs[k].Recall(ctx, memories.RecallRequest{Query: qs[i%len(qs)]}); err != nil {
				return nil, nil, slow, err
			}
			d := time.Since(start)
			times[k] = append(times[k], d)
			slow[k].add(d, i, i%len(qs), gcCycles()-gcs)
		}
		time.Sleep(pace)
	}
	if !c.Store.IsFollowed() {
		return nil, nil, slow, errors.New("the watcher stopped following the vault during the recalls")
	}
	return times[0], times[1], slow, nil
}

// slowest keeps a series' slowest calls, so that a row can say what its
// 99th percentile is made of: one query always slow, or calls of every
// query that something else slowed (a collection of the garbage ended in
// them, or not).
type slowest struct{ calls []slowCall }

// slowCall is one call of a series: its time, its place in the series, the
// query it made (its place in the series' queries) and how many collections
// ended while it ran.
type slowCall struct {
	d           time.Duration
	call, query int
	gcs         uint64
}

// slowestKept is how many calls a slowest keeps.
const slowestKept = 4

func (s *slowest) add(d time.Duration, call, query int, gcs uint64) {
	if len(s.calls) == slowestKept && d <= s.calls[len(s.calls)-1].d {
		return
	}
	i := slices.IndexFunc(s.calls, func(c slowCall) bool { return c.d < d }) // after those as slow
	if i < 0 {
		i = len(s.calls)
	}
	s.calls = slices.Insert(s.calls, i, slowCall{d, call, query, gcs})
	if len(s.calls) > slowestKept {
		s.calls = s.calls[:slowestKept]
	}
}

// String is the calls, slowest first, each with its place in the series,
// its query and the collections that ended in it: "slowest: 45.1 ms (call
// 3, query 5, 1 GC), …".
func (s *slowest) String() string {
	if s == nil || len(s.calls) == 0 {
		return ""
	}
	parts := make([]string, len(s.calls))
	for i, c := range s.calls {
		parts[i] = fmt.Sprintf("%.1f ms (call %d, query %d, %d GC)", ms(c.d), c.call, c.query, c.gcs)
	}
	return "slowest: " + strings.Join(parts, ", ")
}

// gcCycles is how many collections of the garbage the process has ended.
func gcCycles() uint64 {
	sample := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// target is a figure of SPEC §8 to compare a result with; zero limits are
// not checked.
type target struct {
	text     string
	p50, p99 time.Duration
	total    time.Duration // of a single run (an import)
	rss      float64       // MB
}

// verdict compares r with the target: "meets" or "misses", with the worst
// ratio of figure to limit; "" without a limit.
func (t target) verdict(r result) string {
	worst := 0.0
	check := func(got, limit float64) {
		if limit > 0 {
			worst = max(worst, got/limit)
		}
	}
	check(r.P50ms, ms(t.p50))
	check(r.P99ms, ms(t.p99))
	check(r.P50ms, ms(t.total))
	check(r.MaxRSS, t.rss)
	switch {
	case worst == 0:
		return ""
	case worst <= 1:
		return fmt.Sprintf("meets (%.2f× the limit)", worst)
	}
	return fmt.Sprintf("MISSES (%.2f× the limit)", worst)
}

// The targets of SPEC §8 at 10,000 and 100,000 notes; none at other sizes.
func recallTarget(n int) target {
	switch n {
	case 10000:
		return target{text: "p50 ≤ 10 ms, ≤ 50 MB", p50: 10 * time.Millisecond, rss: 50}
	case 100000:
		return target{text: "p50 ≤ 25 ms", p50: 25 * time.Millisecond}
	}
	return target{}
}

func listTarget(n int) target {
	switch n {
	case 10000:
		return target{text: "≤ 50 ms", p50: 50 * time.Millisecond}
	case 100000:
		return target{text: "≤ 500 ms (10k's, linearly)", p50: 500 * time.Millisecond}
	}
	return target{}
}

func saveTarget(n int) target {
	if n == 10000 {
		return target{text: "p50 ≤ 15 ms", p50: 15 * time.Millisecond}
	}
	return target{}
}

func mcpSaveTarget(n int) target {
	if n == 10000 {
		return target{text: "p50 ≤ 3 ms", p50: 3 * time.Millisecond}
	}
	return target{}
}

func mcpRecallTarget(n int) target {
	switch n {
	case 10000:
		return target{text: "p50 ≤ 1 ms, p99 ≤ 5 ms", p50: time.Millisecond, p99: 5 * time.Millisecond}
	case 100000:
		return target{text: "p50 ≤ 5 ms, p99 ≤ 25 ms", p50: 5 * time.Millisecond, p99: 25 * time.Millisecond}
	}
	return target{}
}

func rebuildTarget(n int) target {
	switch n {
	case 10000:
		return target{text: "≤ 3 s", p50: 3 * time.Second}
	case 100000:
		return target{text: "≤ 30 s", p50: 30 * time.Second}
	}
	return target{}
}

func hookTarget(n int) target {
	if n == 10000 {
		return target{text: "p50 ≤ 15 ms", p50: 15 * time.Millisecond}
	}
	return target{}
}

// contextTarget: context_assemble's briefing at 10,000 notes, whole process.
func contextTarget(n int) target {
	if n == 10000 {
		return target{text: "p50 ≤ 50 ms", p50: 50 * time.Millisecond}
	}
	return target{}
}

// importTarget: 10,000 markdown notes in 5 s, and as fast at any size.
func importTarget(n int) target {
	d := time.Duration(n) * 5 * time.Second / 10000
	return target{text: fmt.Sprintf("≤ %s (10,000 in 5 s)", d), total: d}
}

// scanDedupTarget: what an import does before it writes, at 10,000
// candidates a second.
func scanDedupTarget(cands int) target {
	d := time.Duration(cands) * time.Second / 10000
	return target{text: fmt.Sprintf("≤ %s (10,000 candidates/s)", d.Round(time.Millisecond)), total: d}
}

// candidatesRe finds the number of candidates in import's summary line.
var candidatesRe = regexp.MustCompile(` from (\d+) candidates`)

// candidatesOf is the number of candidates import's summary line names, 0
// when it names none.
func candidatesOf(summary string) int {
	m := candidatesRe.FindStringSubmatch(summary)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
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
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.Debug)
	fmt.Fprintln(w, "shape\tsize\tbinary\toperation\truns\tp50 ms\tp99 ms\tCPU p50 ms\tmax RSS MB\ttarget (SPEC §8)\tverdict\t")
	for _, r := range rs {
		rss := ""
		if r.MaxRSS > 0 {
			rss = fmt.Sprintf("%.0f", r.MaxRSS)
		}
		fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%d\t%.2f\t%.2f\t%s\t%s\t%s\t%s\t\n", r.Shape, r.Size, r.Bin, r.Op, r.Runs, r.P50ms, r.P99ms, cpuText(r), rss, r.Target, r.Verdict)
	}
	w.Flush()
}

func printMarkdown(out io.Writer, rs []result) {
	fmt.Fprintln(out, "\n| shape | notes | binary | operation | runs | p50 ms | p99 ms | CPU p50 ms | max RSS MB | target | verdict |")
	fmt.Fprintln(out, "|---|---:|---|---|---:|---:|---:|---:|---:|---|---|")
	for _, r := range rs {
		rss := ""
		if r.MaxRSS > 0 {
			rss = fmt.Sprintf("%.0f", r.MaxRSS)
		}
		fmt.Fprintf(out, "| %s | %d | %s | %s | %d | %.2f | %.2f | %s | %s | %s | %s |\n", r.Shape, r.Size, r.Bin, r.Op, r.Runs, r.P50ms, r.P99ms, cpuText(r), rss, r.Target, r.Verdict)
	}
}

// cpuText is a result's CPU time, blank when it was not measured (an
// in-process or a single-call figure).
func cpuText(r result) string {
	if r.CPUms == 0 {
		return ""
	}
	return fmt.Sprintf("%.1f", r.CPUms)
}
