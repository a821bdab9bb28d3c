package main

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestMain runs the test binary as a launcher when it is started as one
// (launchCmd starts this process's own binary).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == launchArg {
		os.Exit(launch(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// TestLaunchReportsTheCommandsOwnPeak: a command run through the launcher
// reports its own peak memory, not this process's, which a command started
// directly reports on Linux when it is more; its input, output and exit
// code are passed on.
func TestLaunchReportsTheCommandsOwnPeak(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	// This process's peak: 192 MB touched.
	big := make([]byte, 192<<20)
	for i := 0; i < len(big); i += 4096 {
		big[i] = 1
	}
	direct := exec.Command(sh, "-c", "exit 0")
	if err := direct.Run(); err != nil {
		t.Fatal(err)
	}
	if rss := maxRSS(direct.ProcessState); runtime.GOOS == "linux" && rss < 150 {
		t.Logf("a command started directly reported %.0f MB: the kernel no longer reports the parent's peak", rss)
	}

	c := launchCmd(sh, "-c", "read line; echo \"got $line\"; exit 3")
	c.Stdin = strings.NewReader("hello\n")
	var out strings.Builder
	c.Stdout = &out
	err = c.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v, want code 3", err)
	}
	if out.String() != "got hello\n" {
		t.Errorf("output %q, want %q", out.String(), "got hello\n")
	}
	wall, cpu, rss, err := usage(c)
	if err != nil {
		t.Fatal(err)
	}
	if wall <= 0 || cpu < 0 {
		t.Errorf("wall %v, CPU %v", wall, cpu)
	}
	if rss <= 0 || rss >= 100 {
		t.Errorf("the command's peak: %.1f MB, want its own (a few MB), not this process's (192 MB)", rss)
	}
	if _, _, _, err := usage(c); err == nil {
		t.Error("a report read twice")
	}
	if _, _, _, err := usage(exec.Command(sh)); err == nil {
		t.Error("the usage of a command not launched")
	}
	big[len(big)-1] = 2 // held to here

	// The reports' folder goes at the end of a run, and comes back for the
	// next.
	dir := launcher.dir
	removeLaunchReports()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the reports' folder after removeLaunchReports: %v", err)
	}
	again := launchCmd(sh, "-c", "exit 0")
	if err := again.Run(); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := usage(again); err != nil {
		t.Errorf("a command launched after the folder was removed: %v", err)
	}
	removeLaunchReports()
}

// TestUsageOfABadReport: a report that is missing or not the launcher's
// JSON is an error naming it, not figures of zero.
func TestUsageOfABadReport(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	defer removeLaunchReports()
	for _, tc := range []struct {
		name  string
		spoil func(report string) error
		want  string
	}{
		{"missing", os.Remove, "the launcher's report"},
		{"not JSON", func(r string) error { return os.WriteFile(r, []byte("{wall"), 0o600) }, ".json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := launchCmd(sh, "-c", "exit 0")
			if err := c.Run(); err != nil {
				t.Fatal(err)
			}
			launcher.mu.Lock()
			report := launcher.reports[c]
			launcher.mu.Unlock()
			if err := tc.spoil(report); err != nil {
				t.Fatal(err)
			}
			if _, _, _, err := usage(c); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("usage = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestLaunchRefuses: the launcher says what it lacks, with the codes a
// shell would give.
func TestLaunchRefuses(t *testing.T) {
	if code := launch([]string{"report-only"}); code != 2 {
		t.Errorf("no binary: exit code %d, want 2", code)
	}
	report := t.TempDir() + "/r.json"
	if code := launch([]string{report, t.TempDir() + "/no-such-binary"}); code != 127 {
		t.Errorf("a binary that is not there: exit code %d, want 127", code)
	}
	if _, err := os.Stat(report); !os.IsNotExist(err) {
		t.Errorf("a report of a command that never ran: %v", err)
	}
	if sh, err := exec.LookPath("sh"); err == nil {
		if code := launch([]string{t.TempDir() + "/no/such/folder/r.json", sh, "-c", "exit 0"}); code != 125 {
			t.Errorf("a report that cannot be written: exit code %d, want 125", code)
		}
	}
}
