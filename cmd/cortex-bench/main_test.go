package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/wiring"
)

// build builds the cortex binary to time.
func build(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the cortex binary")
	}
	bin := filepath.Join(t.TempDir(), "cortex")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/cortexmem/cortex/cmd/cortex").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// newEnv generates a small vault and builds the cortex binary to time.
func newEnv(t *testing.T, notes int) (*env, string) {
	t.Helper()
	bin := build(t)
	tmp := t.TempDir()
	e := &env{bin: bin, vault: filepath.Join(tmp, "vault"), home: filepath.Join(tmp, "state")}
	if _, err := bench.WriteVault(e.vault, notes, 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	return e, tmp
}

// TestImportRuns: the harness times a dry run of the import (its scan and
// dedup, as a rate of candidates), then imports into an empty vault and into
// the generated one (it stopped at the empty vault once cortex refused to create
// a vault that does not exist), for both shapes.
func TestImportRuns(t *testing.T) {
	corpus, err := bench.LoadCorpus(filepath.Join("..", "..", "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	e, tmp := newEnv(t, 20)
	for _, shape := range []string{"synthetic", "real"} {
		b := &benchRun{shape: shape, n: 20, envs: []*env{e}, out: io.Discard}
		if err := importRuns(b, filepath.Join(tmp, shape), 5, corpus, time.Now()); err != nil {
			t.Fatal(err)
		}
		if len(b.rs) != 3 || !strings.HasPrefix(b.rs[0].Note, "Would import ") || !strings.HasPrefix(b.rs[1].Note, "Imported ") {
			t.Fatalf("%s: %d results, want 3 saying what was (or would be) imported: %+v", shape, len(b.rs), b.rs)
		}
		// The dry run reports its rate of candidates, and every run its
		// processor time and peak memory.
		if !strings.Contains(b.rs[0].Note, " candidates/s, ") || !strings.HasPrefix(b.rs[0].Target, "≤ ") {
			t.Errorf("%s: the dry run's row %+v gives no rate of candidates or no target", shape, b.rs[0])
		}
		for _, r := range b.rs {
			if r.CPUms <= 0 || r.MaxRSS <= 0 {
				t.Errorf("%s: %q has no CPU time or peak RSS: %+v", shape, r.Op, r)
			}
		}
	}
}

// TestOpenAsTheBinary: the in-process timings open cortex with the settings
// the binary resolves from the harness's environment.
func TestOpenAsTheBinary(t *testing.T) {
	e, _ := newEnv(t, 5)
	c, err := e.open(wiring.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := c.Settings
	if s.Vault != e.vault || s.Home != e.home || s.ConfigFile != filepath.Join(e.home, "none.yaml") || s.VaultFrom != "CORTEX_VAULT" {
		t.Errorf("settings %+v, want the vault %s and state folder %s from the environment", s, e.vault, e.home)
	}
	// The binary's index is the one the in-process runs use.
	if out, err := e.cmd("list").CombinedOutput(); err != nil {
		t.Fatalf("cortex list: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(c.Store.VaultState(), "index", "CURRENT")); err != nil {
		t.Errorf("the binary built no index where the in-process store looks: %v", err)
	}
}

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    target
		r    result
		want string
	}{
		{"no limit", target{}, result{P50ms: 3}, ""},
		{"under", target{p50: 10 * time.Millisecond}, result{P50ms: 5}, "meets (0.50× the limit)"},
		{"over on p99", target{p50: 10 * time.Millisecond, p99: 20 * time.Millisecond}, result{P50ms: 5, P99ms: 50}, "MISSES (2.50× the limit)"},
		{"over on memory", target{p50: 10 * time.Millisecond, rss: 50}, result{P50ms: 5, MaxRSS: 75}, "MISSES (1.50× the limit)"},
		{"a single run", importTarget(20000), result{P50ms: 9000}, "meets (0.90× the limit)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.t.verdict(tc.r); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestBothShapesTwoBinaries runs the harness end to end on small vaults of
// both shapes with two binaries compared: every operation the issue asks
// for is there for each, with its figures.
func TestBothShapesTwoBinaries(t *testing.T) {
	bin := build(t)
	other := filepath.Join(t.TempDir(), "before")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, data, 0o700); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "bench.json")
	args := []string{"-bin", other + "," + bin, "-sizes", "40", "-shape", "synthetic,real", "-runs", "2", "-saves", "2",
		"-import", "10", "-hooks=false", "-normalize", "10", "-paced", "1s", "-fixtures", filepath.Join("..", "..", "fixtures"), "-json", out}
	if err := run(args, io.Discard); err != nil {
		t.Fatal(err)
	}
	data, err = os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rs []result
	if err := json.Unmarshal(data, &rs); err != nil {
		t.Fatal(err)
	}
	pacedSaveRow := "save every 500ms, 1s, with the watcher (MCP server)"
	got := map[string]int{}
	for _, r := range rs {
		if r.P50ms <= 0 {
			t.Errorf("%+v: no time", r)
		}
		// The MCP server's peak memory is reported with its recalls.
		if (r.Op == "recall (MCP over stdio, round trip)" || r.Op == compactionRow) && r.MaxRSS <= 0 {
			t.Errorf("%+v: no peak RSS of the server", r)
		}
		// The server's recall series say which calls were their slowest.
		if strings.HasPrefix(r.Op, "recall") && strings.HasSuffix(r.Op, "(MCP server)") && !strings.HasPrefix(r.Note, "slowest: ") {
			t.Errorf("%+v: no slowest calls", r)
		}
		// A series of whole-process runs reports their CPU time too.
		if strings.HasSuffix(r.Op, "(process)") && !strings.HasPrefix(r.Op, "import") && !strings.HasPrefix(r.Op, "normalize") && r.CPUms <= 0 {
			t.Errorf("%+v: no CPU time", r)
		}
		for _, op := range []string{"rebuild (process)", "recall (process)", "list (process)", "save (process, 2 in a row)",
			"save (MCP over stdio, round trip)", "save (MCP server, in the handler)", pacedSaveRow, "import 10 memories into the empty vault (process)",
			"recall of a question (MCP server, in the handler)", compactionRow} {
			if r.Op == op {
				got[r.Shape+" "+r.Bin+" "+op]++
			}
		}
	}
	want := map[string]int{}
	for _, shape := range []string{"synthetic", "real"} {
		for _, b := range []string{"before", "cortex"} {
			for _, op := range []string{"rebuild (process)", "recall (process)", "list (process)", "save (process, 2 in a row)",
				"save (MCP over stdio, round trip)", "import 10 memories into the empty vault (process)", compactionRow} {
				want[shape+" "+b+" "+op] = 1
			}
		}
		want[shape+" harness save (MCP server, in the handler)"] = 1
		want[shape+" harness "+pacedSaveRow] = 1
		want[shape+" harness recall of a question (MCP server, in the handler)"] = 1
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("operations measured (-want +got):\n%s", diff)
	}
}

// Every binary leads equally often, and each run runs each binary once.
func TestTurnsRotate(t *testing.T) {
	first := make([]int, 3)
	for i := 0; i < 9; i++ {
		order := turns(i, 3)
		seen := make([]bool, 3)
		for _, k := range order {
			if seen[k] {
				t.Fatalf("turns(%d, 3) = %v: binary %d twice", i, order, k)
			}
			seen[k] = true
		}
		first[order[0]]++
	}
	if diff := cmp.Diff([]int{3, 3, 3}, first); diff != "" {
		t.Errorf("runs each binary leads (-want +got):\n%s", diff)
	}
}

// A series of paced recalls shorter than one pace would time nothing: the
// flag is refused, naming it and the rule.
func TestPacedShorterThanAPace(t *testing.T) {
	err := run([]string{"-bin", os.Args[0], "-paced", "5ms"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-paced: 5ms is shorter than one pace") {
		t.Errorf("run -paced 5ms: %v, want the flag refused", err)
	}
}

// A slowest keeps the slowest calls it was given, slowest first, and says
// them with their places, queries and collections.
func TestSlowest(t *testing.T) {
	var s slowest
	if got := s.String(); got != "" {
		t.Errorf("no calls: %q, want nothing", got)
	}
	for i, d := range []time.Duration{3, 9, 1, 7, 12, 5, 9, 2} {
		s.add(d*time.Millisecond, i, i%5, uint64(i%2))
	}
	want := "slowest: 12.0 ms (call 4, query 4, 0 GC), 9.0 ms (call 1, query 1, 1 GC), 9.0 ms (call 6, query 1, 0 GC), 7.0 ms (call 3, query 3, 1 GC)"
	if got := s.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestListAll: the list series lists every memory, with --limit 0 where
// the binary has a limit, and without where it has none (a binary from
// before it, which would refuse the flag).
func TestListAll(t *testing.T) {
	bin := build(t)
	if got := (&env{bin: bin}).listAll(); !cmp.Equal(got, []string{"list", "--limit", "0"}) {
		t.Errorf("this cortex: %q, want list --limit 0", got)
	}
	old := filepath.Join(t.TempDir(), "old-cortex")
	if err := os.WriteFile(old, []byte("#!/bin/sh\necho 'Usage:\n  cortex list [flags]\n\nFlags:\n      --filter string'\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got := (&env{bin: old}).listAll(); !cmp.Equal(got, []string{"list"}) {
		t.Errorf("a cortex without --limit: %q, want list", got)
	}
	if got := (&env{bin: filepath.Join(t.TempDir(), "missing")}).listAll(); !cmp.Equal(got, []string{"list"}) {
		t.Errorf("a binary that does not run: %q, want list", got)
	}
}
