package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoneCommandsArmInterruptsLate: a hook (or a capture) asks for signals
// only once it has run loneArmDelay, which spares the two threads that costs
// in a run of a few milliseconds. A SIGTERM before then ends it as a kill
// would; one after cancels it as before: the hook logs that it gave up and
// exits 0 with nothing on stdout. Each hook here waits for its payload on a
// standard input held open, and is signalled once it reads it.
func TestLoneCommandsArmInterruptsLate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	bin, env, root := cortexBin(t)
	state := filepath.Join(filepath.Dir(root), "state")
	for _, tc := range []struct {
		name   string
		wait   time.Duration
		killed bool
	}{
		{"at once", 0, true},
		{"after the delay", 3 * loneArmDelay, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A machine so busy that the hook reads its input only when
			// the delay is nearly over cannot tell the two apart: tried
			// again, a few times.
			for try := 0; ; try++ {
				if signalHook(t, bin, env, state, tc.wait, tc.killed) {
					return
				}
				if try == 4 {
					t.Skip("the hook never read its input well within the delay: too busy a machine")
				}
			}
		})
	}
}

// signalHook starts a session-start hook with its input held open, sends it
// SIGTERM wait after it reads the input, and checks how it ended; false when
// the hook read its input too late for the check to mean anything.
func signalHook(t *testing.T, bin string, env []string, state string, wait time.Duration, killed bool) bool {
	t.Helper()
	_ = os.Remove(filepath.Join(state, "hooks.log"))
	cmd := exec.Command(bin, "hook", "claude-code", "session-start")
	cmd.Env = env
	var stdout strings.Builder
	cmd.Stdout = &stdout
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitReadingStdin(t, cmd.Process.Pid)
	if killed && time.Since(start) > loneArmDelay/2 {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return false
	}
	time.Sleep(wait)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() != killed {
		t.Fatalf("ended by the signal: %v, want %v (wait: %v)", ws.Signaled(), killed, err)
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
	if killed {
		return true
	}
	if err != nil {
		t.Fatalf("the hook cancelled by SIGTERM exited with %v, want 0", err)
	}
	if msg, _ := loggedError(t, state, ""); !strings.Contains(msg, "context canceled") {
		t.Errorf("logged error %q, want the cancellation", msg)
	}
	return true
}

// waitReadingStdin waits until a thread of process pid is blocked reading
// its standard input (read(2) on descriptor 0).
func waitReadingStdin(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(slowMachine)
	for time.Now().Before(deadline) {
		tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "syscall"))
		for _, p := range tasks {
			if data, err := os.ReadFile(p); err == nil && strings.HasPrefix(string(data), "0 0x0 ") {
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("process %d never read its standard input", pid)
}

// TestSaveFromStdinInterrupted: Ctrl-C while `cortex save -` waits on a pipe
// that is still open ends the save at once with "interrupted", and nothing
// is saved. It used to go on reading until the pipe closed.
func TestSaveFromStdinInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	bin, env, root := cortexBin(t)
	for _, args := range [][]string{{"save", "-"}, {"save"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := exec.Command(bin, args...)
			cmd.Env = env
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if _, err := in.Write([]byte("The staging database is rebuilt every night at two.\n")); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitReadingStdin(t, cmd.Process.Pid)
			// Past the lone commands' arming delay, so the signal is caught
			// rather than killing the process.
			time.Sleep(3 * loneArmDelay)
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			ended := make(chan error, 1)
			go func() { ended <- cmd.Wait() }()
			select {
			case err = <-ended:
			case <-time.After(slowMachine):
				_ = cmd.Process.Kill()
				<-ended
				t.Fatal("save still reading standard input after Ctrl-C")
			}
			if err == nil {
				t.Fatalf("interrupted save exited 0; stdout %q", stdout.String())
			}
			if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("stderr %q, want it to say interrupted", stderr.String())
			}
			notes, _ := filepath.Glob(filepath.Join(root, "*", "*", "*.md"))
			more, _ := filepath.Glob(filepath.Join(root, "*", "*.md"))
			if len(notes)+len(more) > 0 {
				t.Errorf("interrupted save left notes: %v %v", notes, more)
			}
		})
	}
}
