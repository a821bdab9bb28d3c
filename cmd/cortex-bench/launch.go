package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The processes timed are started through a launcher. Linux records, as a
// process execs, the peak resident memory of the image it leaves, and Go
// starts a child sharing the parent's memory until the child execs: each
// child reported the harness's own peak as its own when that was more. A
// `cortex version` reported 115 MB, the harness's peak while it held a
// generated 100,000-note vault, and the MCP server's peak over its session
// read as at least the harness's. The launcher is this binary started
// anew (its own memory a few MB), which starts the command, waits for it,
// and writes the command's wall time, CPU time and peak resident memory to
// a file the harness reads (usage). The command's standard input, output
// and error are the launcher's, passed on, and the launcher exits with the
// command's code, passing on the signals it is sent.
const launchArg = "-launch"

// launchReport is what the launcher writes of the command it ran.
type launchReport struct {
	WallNS   int64   `json:"wall_ns"`
	CPUNS    int64   `json:"cpu_ns"`
	MaxRSSMB float64 `json:"max_rss_mb"`
}

// launcher is how this process starts launchers: its own binary, and the
// folder of their reports, made when a command first needs it.
var launcher struct {
	mu        sync.Mutex
	self, dir string
	seq       atomic.Int64
	reports   map[*exec.Cmd]string
}

// launchCmd is a command that runs bin with args through a launcher. When
// no launcher can be had, its Start says why.
func launchCmd(bin string, args ...string) *exec.Cmd {
	launcher.mu.Lock()
	defer launcher.mu.Unlock()
	var err error
	if launcher.self == "" {
		launcher.self, err = os.Executable()
	}
	if err == nil && launcher.dir == "" {
		launcher.dir, err = os.MkdirTemp("", "cortex-bench-launch-")
	}
	if err != nil {
		c := exec.Command(bin, args...)
		c.Err = fmt.Errorf("start the launcher: %w", err) // what Start returns
		return c
	}
	report := filepath.Join(launcher.dir, fmt.Sprintf("%d.json", launcher.seq.Add(1)))
	c := exec.Command(launcher.self, append([]string{launchArg, report, bin}, args...)...)
	if launcher.reports == nil {
		launcher.reports = map[*exec.Cmd]string{}
	}
	launcher.reports[c] = report
	return c
}

// removeLaunchReports removes the launchers' report folder, once no
// command runs.
func removeLaunchReports() {
	launcher.mu.Lock()
	defer launcher.mu.Unlock()
	if launcher.dir != "" {
		_ = os.RemoveAll(launcher.dir)
		launcher.dir = ""
	}
}

// usage is what the launcher of c, which has run, reported of its command:
// the wall time, the CPU time (user and system) and the peak resident
// memory in MB.
func usage(c *exec.Cmd) (wall, cpu time.Duration, rssMB float64, err error) {
	launcher.mu.Lock()
	report, ok := launcher.reports[c]
	delete(launcher.reports, c)
	launcher.mu.Unlock()
	if !ok {
		return 0, 0, 0, errors.New("the command was not started by launchCmd")
	}
	data, err := os.ReadFile(report)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("the launcher's report: %w", err)
	}
	_ = os.Remove(report)
	var r launchReport
	if err := json.Unmarshal(data, &r); err != nil {
		return 0, 0, 0, fmt.Errorf("the launcher's report %s: %w", report, err)
	}
	return time.Duration(r.WallNS), time.Duration(r.CPUNS), r.MaxRSSMB, nil
}

// launch is the launcher: args are the report's path, the binary and its
// arguments. It returns the exit code.
func launch(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "cortex-bench -launch: a report path and a binary are needed")
		return 2
	}
	report, bin := args[0], args[1]
	c := exec.Command(bin, args[2:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	start := time.Now()
	if err := c.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "cortex-bench -launch: %v\n", err)
		return 127
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = c.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := c.Wait()
	wall := time.Since(start)
	close(done)
	ps := c.ProcessState
	if ps == nil {
		fmt.Fprintf(os.Stderr, "cortex-bench -launch: %v\n", err)
		return 127
	}
	r := launchReport{WallNS: wall.Nanoseconds(), CPUNS: (ps.UserTime() + ps.SystemTime()).Nanoseconds(), MaxRSSMB: maxRSS(ps)}
	data, _ := json.Marshal(r)
	if err := os.WriteFile(report, data, 0o600); err != nil {
		fmt.Fprintf(os.Stderr, "cortex-bench -launch: %v\n", err)
		return 125
	}
	if code := ps.ExitCode(); code >= 0 {
		return code
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return 1
}
