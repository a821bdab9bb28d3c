package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcripts"
	"github.com/cortexmem/cortex/wiring"
)

// transcriptEnv is a home of agents' transcripts and a state folder.
type transcriptEnv struct {
	bin, home, state string
}

// environ is the environment of a cortex process of the benchmark: the
// benchmark's home and state folder, no tool's override variable.
func (e *transcriptEnv) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_CONFIG_HOME", "CORTEX_HOME", "CORTEX_CONFIG", "CORTEX_VAULT":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+e.home, "CORTEX_HOME="+e.state, "CORTEX_CONFIG="+filepath.Join(e.state, "none.yaml"))
}

// timeCmd runs a command made by launchCmd once and returns its wall time,
// peak RSS (MB) and standard output.
func timeCmd(c *exec.Cmd, okCodes ...int) (time.Duration, float64, []byte, error) {
	d, rss, _, out, err := timeCmdCPU(c, okCodes...)
	return d, rss, out, err
}

// timeCmdCPU is timeCmd with the CPU time (user and system) the command
// used: on a machine shared with other work, the wall time says less.
func timeCmdCPU(c *exec.Cmd, okCodes ...int) (time.Duration, float64, time.Duration, []byte, error) {
	var stdout, stderr strings.Builder
	if c.Stdout == nil {
		c.Stdout = &stdout
	}
	c.Stderr = &stderr
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		for _, code := range okCodes {
			if ee.ExitCode() == code {
				err = nil
			}
		}
	}
	if err != nil {
		return 0, 0, 0, nil, fmt.Errorf("%s: %v: %s", strings.Join(c.Args, " "), err, stderr.String())
	}
	d, cpu, rss, err := usage(c)
	if err != nil {
		return 0, 0, 0, nil, fmt.Errorf("%s: %w", strings.Join(c.Args, " "), err)
	}
	return d, rss, cpu, []byte(stdout.String()), nil
}

func (e *transcriptEnv) cortex(args ...string) *exec.Cmd {
	c := launchCmd(e.bin, args...)
	c.Env = e.environ()
	c.Stdin = strings.NewReader("")
	return c
}

// activeSessions is how many sessions are being written to during the
// benchmark, as agents at work append to theirs.
const activeSessions = 20

// benchTranscripts measures transcript search on a synthetic corpus of
// messages messages (see bench.TranscriptGenerator): building the index
// from scratch (whole process), searching it (whole process) next to rg over
// the same files, re-indexing one session that grew (in-process, as the
// search that follows the growth does first), and a search right after such
// growth (whole process). With several binaries, the last is timed.
func benchTranscripts(o options, messages int, out io.Writer) ([]result, error) {
	tmp, err := os.MkdirTemp("", fmt.Sprintf("cortex-bench-transcripts-%d-", messages))
	if err != nil {
		return nil, err
	}
	if !o.keep {
		defer os.RemoveAll(tmp)
	}
	e := &transcriptEnv{bin: o.bins[len(o.bins)-1], home: filepath.Join(tmp, "home"), state: filepath.Join(tmp, "state")}
	start := time.Now()
	// The corpus is written by another process: a child's peak RSS, as the
	// kernel reports it, is at least its parent's peak, and the corpus is
	// big in memory.
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	gen := exec.Command(self, "-write-transcripts", e.home, "-transcripts", fmt.Sprint(messages))
	gen.Stderr = os.Stderr
	data, err := gen.Output()
	if err != nil {
		return nil, fmt.Errorf("write the corpus: %w", err)
	}
	var c corpusInfo
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("write the corpus: %w", err)
	}
	total, live := c.Messages, c.Active
	corpus := dirSize(e.home)
	fmt.Fprintf(out, "\n%d transcripts, %d messages, %d exchanges, %.0f MB generated in %s (%s)\n",
		c.Files, total, c.Exchanges, float64(corpus)/(1<<20), time.Since(start).Round(time.Millisecond), tmp)

	var rs []result
	// cpus are the processes' CPU times (user and system), when known: on
	// a machine shared with other work they vary less than wall times.
	var cpus []time.Duration
	add := func(op, target string, ds []time.Duration, rss []float64) {
		res := result{Size: total, Op: op, Runs: len(ds), P50ms: ms(pct(ds, 50)), P99ms: ms(pct(ds, 99)), Target: target}
		for _, m := range rss {
			res.MaxRSS = max(res.MaxRSS, m)
		}
		rs = append(rs, res)
		fmt.Fprintf(out, "  %-44s p50 %9.2f ms   p99 %9.2f ms   max RSS %4.0f MB", op, res.P50ms, res.P99ms, res.MaxRSS)
		if len(cpus) > 0 {
			fmt.Fprintf(out, "   CPU p50 %.2f ms", ms(pct(cpus, 50)))
		}
		fmt.Fprintln(out)
		cpus = nil
	}
	timed := func(c *exec.Cmd, okCodes ...int) (time.Duration, float64, []byte, error) {
		d, rss, cpu, out, err := timeCmdCPU(c, okCodes...)
		cpus = append(cpus, cpu)
		return d, rss, out, err
	}

	// The first search of a machine builds the index; reindex does only that.
	d, rss, cpu, stdout, err := timeCmdCPU(e.cortex("--json", "transcripts", "reindex"))
	if err != nil {
		return nil, err
	}
	var rep transcripts.SyncReport
	if err := json.Unmarshal(stdout, &rep); err != nil {
		return nil, fmt.Errorf("reindex: %v", err)
	}
	add("transcripts: build the index (process)", "≥ 20,000 messages/s", []time.Duration{d}, []float64{rss})
	indexSize := dirSize(config.State{Home: e.state}.TranscriptIndexDir())
	fmt.Fprintf(out, "  built: %d exchanges from %d transcripts (%d messages read by the adapters): %.0f messages/s; CPU %s, %.0f messages per CPU-second (%d CPUs); index %.0f MB on disk (%.0f%% of the transcripts)\n",
		rep.Exchanges, rep.Files, rep.Messages, float64(total)/d.Seconds(), cpu.Round(time.Millisecond),
		float64(total)/cpu.Seconds(), runtime.NumCPU(), float64(indexSize)/(1<<20), 100*float64(indexSize)/float64(corpus))

	queries := make([]string, o.runs)
	qg := bench.NewGenerator(uint64(messages)+1, time.Now())
	for i := range queries {
		// A query of common words only is refused (it has nothing to
		// search for): draw again.
		for queries[i] == "" || len(transcripts.QueryTerms(queries[i])) == 0 {
			queries[i] = qg.Query()
		}
	}
	if _, _, _, err := timeCmd(e.cortex("transcripts", "search", queries[0])); err != nil { // warm the page cache
		return nil, err
	}
	var ds []time.Duration
	var rsss []float64
	for _, q := range queries {
		d, rss, _, err := timed(e.cortex("transcripts", "search", q))
		if err != nil {
			return nil, err
		}
		ds, rsss = append(ds, d), append(rsss, rss)
	}
	add("transcripts: search (process)", target200k(total, "p50 ≤ 20 ms"), ds, rsss)

	// The same with every transcript checked before every search (config
	// freshness: 0s; by default a search within a second of a full check
	// checks only the transcripts written lately).
	full := filepath.Join(e.state, "full-check.yaml")
	if err := os.WriteFile(full, []byte("freshness: 0s\n"), 0o600); err != nil {
		return nil, err
	}
	ds, rsss = nil, nil
	for _, q := range queries {
		c := e.cortex("transcripts", "search", q)
		c.Env = append(c.Env, "CORTEX_CONFIG="+full)
		d, rss, _, err := timed(c)
		if err != nil {
			return nil, err
		}
		ds, rsss = append(ds, d), append(rsss, rss)
	}
	add("transcripts: search, every file checked (process)", "", ds, rsss)

	if rg := transcripts.Ripgrep(); rg != "" {
		roots := []string{filepath.Join(e.home, ".claude"), filepath.Join(e.home, ".codex"), filepath.Join(e.home, ".gemini")}
		ds, rsss = nil, nil
		for i, q := range queries {
			args := []string{"--ignore-case", "--fixed-strings", "--no-config", "--no-ignore", "--hidden", "--line-number"}
			for _, w := range strings.Fields(q) {
				args = append(args, "-e", w)
			}
			c := launchCmd(rg, append(append(args, "--"), roots...)...)
			c.Stdout = io.Discard // rg prints every matching line
			d, rss, _, err := timed(c, 1)
			if err != nil {
				return nil, err
			}
			if i > 0 || len(queries) == 1 { // the first run warms the page cache
				ds, rsss = append(ds, d), append(rsss, rss)
			} else {
				cpus = cpus[:0]
			}
		}
		add("rg over the same files (process)", "", ds, rsss)
	} else {
		fmt.Fprintln(out, "  rg over the same files: skipped, rg (ripgrep) is not installed")
	}

	// Agents append turns to their sessions; each search then reads what
	// they appended first.
	tg := bench.NewTranscriptGenerator(uint64(messages)+2, time.Now())
	appendTurn := func(c *bench.Conversation) error {
		w := bench.NewSessionWriter(c)
		if err := w.Head(io.Discard); err != nil {
			return err
		}
		for i := range c.Turns {
			if err := w.Turn(io.Discard, &c.Turns[i]); err != nil {
				return err
			}
		}
		turn := tg.Turn(c.Cwd)
		c.Turns = append(c.Turns, turn)
		f, err := os.OpenFile(bench.SessionPath(e.home, c), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		err = w.Turn(f, &turn)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	ds, rsss = nil, nil
	for k, c := range live {
		if err := appendTurn(c); err != nil {
			return nil, err
		}
		d, rss, _, err := timed(e.cortex("transcripts", "search", queries[k%len(queries)]))
		if err != nil {
			return nil, err
		}
		ds, rsss = append(ds, d), append(rsss, rss)
	}
	add("transcripts: search right after a session grew (process)", "", ds, rsss)

	// In-process last (its memory would count in the children's peak RSS):
	// the re-index of one grown session, checking the transcripts as a
	// search right after a full check does (only those written lately).
	s, err := config.Resolve(config.Flags{Home: e.state, Config: filepath.Join(e.state, "none.yaml")}, func(string) string { return "" }, e.home)
	if err != nil {
		return nil, err
	}
	svc := wiring.Transcripts(s, wiring.TranscriptOptions{
		Env:       transcript.Env{Home: e.home, Getenv: func(string) string { return "" }},
		Freshness: time.Hour,
	})
	ctx := context.Background()
	if _, err := svc.SyncAll(ctx); err != nil {
		return nil, err
	}
	ds = nil
	appended := 0
	for round := 0; round < 3; round++ {
		for _, c := range live {
			if err := appendTurn(c); err != nil {
				return nil, err
			}
			start := time.Now()
			rep, err := svc.Sync(ctx)
			if err != nil {
				return nil, err
			}
			ds = append(ds, time.Since(start))
			appended += rep.Appended
		}
	}
	add("transcripts: one grown session re-indexed (in-process)", "≤ 50 ms", ds, nil)
	if appended != len(ds) {
		fmt.Fprintf(out, "  note: %d of %d re-indexes read the session from where they stopped; the rest read it whole\n", appended, len(ds))
	}
	fmt.Fprintf(out, "  index after the appends: %.0f MB on disk\n", float64(dirSize(config.State{Home: e.state}.TranscriptIndexDir()))/(1<<20))
	return rs, nil
}

// corpusInfo is what -write-transcripts says of the corpus it wrote.
type corpusInfo struct {
	Files     int                   `json:"files"`
	Messages  int                   `json:"messages"`
	Exchanges int                   `json:"exchanges"`
	Active    []*bench.Conversation `json:"active"`
}

// writeTranscripts writes a corpus of messages messages under home, marks
// activeSessions of its sessions as being written now, and prints what it
// wrote, the active sessions whole (for appending to them), as JSON.
func writeTranscripts(home string, messages int, out io.Writer) error {
	end := time.Now()
	sessions, err := bench.WriteTranscriptCorpus(home, messages, uint64(messages), end)
	if err != nil {
		return err
	}
	info := corpusInfo{Files: len(sessions)}
	for _, c := range sessions {
		info.Messages += bench.Messages(c)
		info.Exchanges += len(c.Turns)
	}
	// The sessions agents are still writing were written minutes ago.
	r := rand.New(rand.NewPCG(uint64(messages), 7))
	for _, i := range r.Perm(len(sessions))[:min(activeSessions, len(sessions))] {
		t := end.Add(-10 * time.Minute)
		if err := os.Chtimes(bench.SessionPath(home, sessions[i]), t, t); err != nil {
			return err
		}
		info.Active = append(info.Active, sessions[i])
	}
	return json.NewEncoder(out).Encode(info)
}

// target200k is the 200k-message target, for a corpus that size.
func target200k(n int, t string) string {
	if n >= 200000 {
		return t
	}
	return ""
}

// dirSize is the bytes of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
