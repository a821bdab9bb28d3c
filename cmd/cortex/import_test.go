package main

import (
	"strings"
	"testing"
)

// TestProgress: the bar names each stage and counts; a new stage starts a new
// bar (redraws between are throttled, so only first draws are certain).
func TestProgress(t *testing.T) {
	var out strings.Builder
	p := progress(&out)
	p("reading", 1, 3)
	p("reading", 3, 3)
	p("saving", 1, 2)
	got := out.String()
	for _, want := range []string{"reading", "(1/3)", "saving", "(1/2)"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress output %q lacks %q", got, want)
		}
	}
}
