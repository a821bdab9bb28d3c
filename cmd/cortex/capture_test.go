package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestVerifyCaptureFixtures runs 'cortex scribe verify --capture' on the
// repository's fixtures: every golden event and node stream is what the
// adapters and the pipeline give today.
func TestVerifyCaptureFixtures(t *testing.T) {
	var out, errb bytes.Buffer
	dir := t.TempDir()
	env := func(k string) string {
		switch k {
		case "HOME":
			return dir
		case "CORTEX_HOME":
			return dir + "/state"
		case "CORTEX_VAULT":
			return dir + "/vault"
		}
		return ""
	}
	code := run(context.Background(), []string{"scribe", "verify", "--capture=../../fixtures"}, strings.NewReader(""), &out, &errb, env)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), " failed") || !strings.Contains(out.String(), ", 0 failed") {
		t.Fatalf("output: %s", out.String())
	}
}
