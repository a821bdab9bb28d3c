package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The commands built alone (loneCommands) answer as in the whole command
// tree: their help, their usage errors, a hook with nothing to do. Only
// event ids and times differ between two captures, so captures are
// compared by their outcome.
func TestLoneCommandsAsInFull(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"CORTEX_VAULT": filepath.Join(dir, "vault"), "CORTEX_HOME": filepath.Join(dir, "state"),
		"CORTEX_CONFIG": filepath.Join(dir, "none.yaml"), "HOME": dir}
	for _, args := range [][]string{
		{"hook", "--help"},
		{"hook", "-h"},
		{"capture", "--help"},
		{"capture", "--bogus", "x"},
		{"capture", "--type", "nope", "x"},
		{"capture", "--json", "--type", "nope", "x"},
		{"hook"},
		{"hook", "nosuch", "session-start"},
		{"hook", "claude-code", "session-start", "extra"},
		{"save", "--help"},
		{"save", "--bogus", "x"},
		{"save", "--json"},
		{"recall", "--help"},
		{"recall"},
		{"recall", "--limit", "x", "q"},
		{"list", "--help"},
		{"list", "--json", "extra"},
		{"context", "--help"},
		{"context", "--bogus"},
		{"status", "--help"},
		{"status", "extra"},
	} {
		type outcome struct {
			Code           int
			Stdout, Stderr string
		}
		do := func(lone ...string) outcome {
			var out, errb strings.Builder
			code := runTree(context.Background(), args, strings.NewReader(""), &out, &errb, func(k string) string { return env[k] }, lone...)
			return outcome{code, out.String(), errb.String()}
		}
		full, alone := do(), do(args...)
		if diff := cmp.Diff(full, alone); diff != "" {
			t.Errorf("cortex %s (-whole tree +alone):\n%s", strings.Join(args, " "), diff)
		}
		if len(loneCommands) == 0 || loneCommands[args[0]] == nil {
			t.Fatalf("%s is not built alone", args[0])
		}
	}
}
