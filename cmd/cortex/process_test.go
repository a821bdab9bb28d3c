package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/vault"
)

// cortexBin returns a path that runs this test binary as the cortex command
// (TestMain dispatches on the program name), and an environment with a fresh
// vault and state folder.
func cortexBin(t *testing.T) (string, []string, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin", "cortex")
	if err := os.MkdirAll(filepath.Dir(bin), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, bin); err != nil {
		t.Skipf("cannot link the test binary: %v", err)
	}
	root := filepath.Join(dir, "vault")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	// A machine busy with other tests can be slow: wait for locks longer than
	// the default, so the test checks correctness, not speed.
	config := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(config, []byte("lock_timeout: 60s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(),
		"CORTEX_VAULT="+root, "CORTEX_HOME="+filepath.Join(dir, "state"), "CORTEX_CONFIG="+config)
	return bin, env, root
}

func runCortex(t *testing.T, bin string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("cortex %s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// notes lists the markdown files under the vault's cortex folder.
func notes(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(root, "cortex", "memories"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.HasPrefix(d.Name(), ".") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// TestConcurrentSaveProcesses runs 8 writers at once, each starting 50 separate
// cortex save processes one after the other.
func TestConcurrentSaveProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 400 processes")
	}
	bin, env, root := cortexBin(t)
	const writers, each = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Texts that share little, so that no save is refused as a
			// duplicate of another.
			gen := bench.NewGenerator(uint64(w+1), time.Now())
			for i := 0; i < each; i++ {
				content := fmt.Sprintf("Writer %d saved memory %d: %s", w, i, gen.Sentence(14))
				if _, err := runCortex(t, bin, env, "save", "--project", fmt.Sprintf("p%d", w%4), content); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	files := notes(t, root)
	ids := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n, err := vault.ParseNote(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		ids[n.ID()] = true
	}
	if len(files) != writers*each || len(ids) != writers*each {
		t.Errorf("%d notes with %d distinct ids, want %d", len(files), len(ids), writers*each)
	}
	out, err := runCortex(t, bin, env, "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Total int }
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	if list.Total != writers*each {
		t.Errorf("cortex list counts %d, the vault holds %d", list.Total, writers*each)
	}
	if _, err := runCortex(t, bin, env, "doctor"); err != nil {
		t.Errorf("doctor: %v", err)
	}
}

// TestKilledSaveLeavesNoTornNote kills save processes at random moments; every
// note left must be whole, no temporary file may be visible, and the next
// command must succeed and heal the index.
func TestKilledSaveLeavesNoTornNote(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGKILL")
	}
	bin, env, root := cortexBin(t)
	if _, err := runCortex(t, bin, env, "save", "A first memory so that the index exists already"); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 25; i++ {
		runKilled(t, bin, env, time.Duration(rng.IntN(25000))*time.Microsecond,
			"save", "--project", "crash", fmt.Sprintf("Memory %d about the flaky integration test suite and its retries", i))
	}
	for _, f := range notes(t, root) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := vault.ParseNote(data); err != nil || !bytes.HasSuffix(data, []byte("\n")) {
			t.Errorf("torn note %s (%v):\n%s", f, err, data)
		}
	}
	visible := func() []string {
		var out []string
		_ = filepath.WalkDir(filepath.Join(root, "cortex"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".md") && !strings.HasPrefix(d.Name(), ".") {
				out = append(out, p)
			}
			return nil
		})
		return out
	}
	if v := visible(); len(v) > 0 {
		t.Errorf("visible temporary files: %v", v)
	}
	if _, err := runCortex(t, bin, env, "list"); err != nil {
		t.Fatalf("the next command failed: %v", err)
	}
	if _, err := runCortex(t, bin, env, "save", "A memory saved after the crashes, about retries"); err != nil {
		t.Fatal(err)
	}
	if _, err := runCortex(t, bin, env, "doctor"); err != nil {
		t.Errorf("doctor after the crashes: %v", err)
	}
	var temps []string
	_ = filepath.WalkDir(filepath.Join(root, "cortex"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && atomicfile.IsTemp(d.Name()) {
			temps = append(temps, p)
		}
		return nil
	})
	if len(temps) > 0 {
		t.Errorf("temporary files left after the next save: %v", temps)
	}
}

// runKilled starts bin with args in env and kills it after delay.
func runKilled(t *testing.T, bin string, env []string, delay time.Duration, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(delay)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
}

// TestArgumentErrors covers what a script cannot type: newlines in arguments,
// and a vault the process may not write.
func TestArgumentErrors(t *testing.T) {
	dir := t.TempDir()
	env := func(vaultDir string) func(string) string {
		return func(k string) string {
			switch k {
			case "CORTEX_VAULT":
				return vaultDir
			case "CORTEX_HOME":
				return filepath.Join(dir, "state")
			case "CORTEX_CONFIG":
				return filepath.Join(dir, "none.yaml")
			}
			return ""
		}
	}
	readOnly := filepath.Join(dir, "ro")
	if err := os.MkdirAll(readOnly, 0o500); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if runtime.GOOS != "linux" {
			t.Log("root ignores folder permissions; the read-only case needs Linux's /sys")
			readOnly = ""
		} else {
			readOnly = "/sys" // not writable, even by root
		}
	}
	v1 := filepath.Join(dir, "v1")
	if err := os.Mkdir(v1, 0o700); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		vault    string
		args     []string
		code     int
		stderr   string
		notExist string
	}{
		{"title with a newline", v1, []string{"save", "--title", "two\nlines", "Content that is long enough to save"}, exitUsage, "cortex: title: must be one line\n", filepath.Join(v1, "cortex")},
		{"reason with a newline", v1, []string{"supersede", "01m80txm7zzz", "--reason", "a\nb"}, exitUsage, "cortex: reason: must be one line of UTF-8 text\n", filepath.Join(v1, "cortex")},
		{"read-only vault", readOnly, []string{"save", "Content that is long enough to save"}, exitInternal, "(is the vault or state folder read-only?)", ""},
		{"missing vault", filepath.Join(dir, "missing"), []string{"save", "Content that is long enough to save"}, exitUsage, "does not exist", filepath.Join(dir, "missing")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.vault == "" {
				t.Skip("no read-only place to try")
			}
			var out, errb bytes.Buffer
			code := run(context.Background(), c.args, strings.NewReader(""), &out, &errb, env(c.vault))
			if code != c.code || !strings.Contains(errb.String(), c.stderr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errb.String(), c.code, c.stderr)
			}
			if c.notExist != "" {
				if _, err := os.Stat(c.notExist); !os.IsNotExist(err) {
					t.Errorf("%s was created", c.notExist)
				}
			}
		})
	}
}

// TestKilledRebuildLeavesOneGeneration kills `cortex reindex --full` at random
// moments; the generations the killed rebuilds were building must be gone
// after the next command, which must answer from the live one. It runs 6
// kills; CORTEX_CRASH_TRIALS=N runs N.
func TestKilledRebuildLeavesOneGeneration(t *testing.T) {
	trials := crashTrials(t, 6, "a minute or more")
	bin, env, root := cortexBin(t)
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	// Enough notes that a rebuild takes a while to be killed in.
	if _, err := bench.WriteVault(root, 400, 7, time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := runCortex(t, bin, env, "save", "--project", "crash", "The walrus tank filter is rinsed every second Tuesday"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := runCortex(t, bin, env, "reindex", "--full"); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	indexDir := func() string {
		dirs, _ := filepath.Glob(filepath.Join(filepath.Dir(root), "state", "vaults", "*", "index"))
		if len(dirs) != 1 {
			t.Fatalf("index folders: %v, want one", dirs)
		}
		return dirs[0]
	}
	// check asserts the index folder holds the pointer and the generation
	// it names, nothing else, and that recall answers.
	check := func(after string) {
		t.Helper()
		out, err := runCortex(t, bin, env, "recall", "walrus", "filter")
		if err != nil {
			t.Fatalf("%s: the next command failed: %v", after, err)
		}
		if !strings.Contains(out, "walrus tank filter") {
			t.Errorf("%s: recall does not find the memory:\n%s", after, out)
		}
		dir := indexDir()
		cur, err := os.ReadFile(filepath.Join(dir, "CURRENT"))
		if err != nil {
			t.Fatal(err)
		}
		des, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, de := range des {
			got = append(got, de.Name())
		}
		if want := []string{"CURRENT", strings.TrimSpace(string(cur))}; !slices.Equal(got, want) {
			t.Errorf("%s: the index folder holds %v, want only %v", after, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < trials; i++ {
		cmd := exec.Command(bin, "reindex", "--full")
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Anywhere from start-up to a little past a whole rebuild.
		time.Sleep(time.Duration(rng.Int64N(int64(took) * 5 / 4)))
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		// Killed rebuilds pile up until a command runs.
		if i%3 == 2 || i == trials-1 {
			check(fmt.Sprintf("after kill %d", i+1))
		}
	}
	if _, err := runCortex(t, bin, env, "doctor"); err != nil {
		t.Errorf("doctor after the kills: %v", err)
	}
}

// crashTrials is how many trials a kill -9 test runs: n, or
// CORTEX_CRASH_TRIALS when set. It skips the test where processes cannot be
// killed that way, and under -short (the race run), since killing processes
// for how long says exercises processes, not goroutines.
func crashTrials(t *testing.T, n int, how string) int {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no SIGKILL")
	}
	if testing.Short() {
		t.Skip("kills processes for " + how + ": run without -short (make test runs it)")
	}
	if s := os.Getenv("CORTEX_CRASH_TRIALS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("CORTEX_CRASH_TRIALS=%q is not a positive number", s)
		}
		return v
	}
	return n
}
