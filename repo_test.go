package cortex

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// executableMagic are the first bytes of the executables a build leaves
// beside its package (ELF, Mach-O in both byte orders and fat, PE).
var executableMagic = [][]byte{
	[]byte("\x7fELF"),
	{0xfe, 0xed, 0xfa, 0xcf}, {0xcf, 0xfa, 0xed, 0xfe},
	{0xfe, 0xed, 0xfa, 0xce}, {0xce, 0xfa, 0xed, 0xfe},
	{0xca, 0xfe, 0xba, 0xbe},
	[]byte("MZ"),
}

// maxTrackedBytes bounds one tracked file: the largest fixture is about
// 0.5 MB; a file past this is almost surely a build output or a data dump.
const maxTrackedBytes = 4 << 20

// TestNoBuildOutputsTracked: a `go build` in cmd/cortex-bench once left a
// 32 MB binary that was committed with the code beside it. Every clone paid
// for it. This fails for a tracked executable or an oversized file.
func TestNoBuildOutputsTracked(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	var bad []string
	for _, name := range bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0}) {
		if problem := trackedFileProblem(string(name)); problem != "" {
			bad = append(bad, string(name)+": "+problem)
		}
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// trackedFileProblem says why a tracked file should not be in the
// repository, or "" when it may be.
func trackedFileProblem(name string) string {
	f, err := os.Open(name)
	if err != nil {
		if os.IsNotExist(err) {
			return "" // deleted in the work tree, not yet committed
		}
		return err.Error()
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err.Error()
	}
	if info.Size() > maxTrackedBytes {
		return "larger than 4 MB"
	}
	head := make([]byte, 4)
	n, _ := f.Read(head)
	for _, m := range executableMagic {
		if bytes.HasPrefix(head[:n], m) {
			return "an executable (a build output?)"
		}
	}
	return ""
}

func TestTrackedFileProblemFindsExecutables(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if trackedFileProblem(exe) == "" {
		t.Errorf("the test binary %s is not seen as an executable", exe)
	}
	if p := trackedFileProblem(write("note.md", []byte("# Mz is not MZ\n"))); p != "" {
		t.Errorf("a markdown note is refused: %s", p)
	}
	if p := trackedFileProblem(write("big.json", make([]byte, maxTrackedBytes+1))); p == "" {
		t.Error("a file over the bound is allowed")
	}
	if p := trackedFileProblem(write("empty", nil)); p != "" {
		t.Errorf("an empty file is refused: %s", p)
	}
}
