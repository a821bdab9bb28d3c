package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetupAsks checks the question setup puts on a terminal: yes writes, no
// (or no answer) writes nothing and exits as a refusal.
func TestSetupAsks(t *testing.T) {
	tests := []struct {
		answer  string
		written bool
		code    int
	}{
		{"y\n", true, exitOK},
		{"YES\n", true, exitOK},
		{"n\n", false, exitRejected},
		{"\n", false, exitRejected},
		{"", false, exitRejected},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			home := t.TempDir()
			bin := filepath.Join(home, "cortex")
			if err := os.WriteFile(bin, nil, 0o700); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			a := &app{stdin: strings.NewReader(tt.answer), stdout: &out, stderr: &errb,
				getenv: func(k string) string {
					if k == "HOME" {
						return home
					}
					return ""
				}}
			err := runSetup(context.Background(), a, setupOptions{client: "codex", binary: bin, ask: a.askYesNo})
			if got := exitCode(err); got != tt.code {
				t.Fatalf("exit %d (%v), want %d", got, err, tt.code)
			}
			if !strings.Contains(errb.String(), "Write these changes? [y/N] ") {
				t.Errorf("no question on standard error: %q", errb.String())
			}
			if !strings.Contains(out.String(), "+++ "+filepath.Join(home, ".codex", "hooks.json")) {
				t.Errorf("no diff before the question:\n%s", out.String())
			}
			_, serr := os.Stat(filepath.Join(home, ".codex", "hooks.json"))
			if written := serr == nil; written != tt.written {
				t.Errorf("hooks.json written: %v, want %v", written, tt.written)
			}
		})
	}
}

// TestInteractive checks that only a terminal counts: /dev/null is a
// character device too, and nobody answers from it.
func TestInteractive(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if interactive(f) {
		t.Errorf("%s is taken for a terminal", os.DevNull)
	}
	if interactive(strings.NewReader("y\n")) {
		t.Error("a string is taken for a terminal")
	}
}
