package setup

import (
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestShellQuoteRoundTrip(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX quoting")
	}
	for _, p := range []string{
		"/usr/local/bin/cortex", "/opt/cortex 2/bin/cortex", "/home/o'brien/bin/cortex",
		"/tmp/$HOME/cortex", "/a;b/cortex", "/x/\"q\"/cortex", "/é/cortex",
	} {
		cmd := hookCommand(p, "codex", "stop")
		w, ok := shellWords(cmd)
		if !ok {
			t.Errorf("%q: cannot split %q", p, cmd)
			continue
		}
		if diff := cmp.Diff([]string{p, "hook", "codex", "stop"}, w); diff != "" {
			t.Errorf("%q (-want +got):\n%s", cmd, diff)
		}
	}
	if got := shellQuote("/usr/bin/cortex"); got != "/usr/bin/cortex" {
		t.Errorf("a plain path was quoted: %s", got)
	}
}

func TestParseHookCommand(t *testing.T) {
	tests := []struct {
		cmd      string
		ok       bool
		bin, evt string
	}{
		{"/usr/local/bin/cortex hook claude-code stop", true, "/usr/local/bin/cortex", "stop"},
		{"'/opt/my tools/cortex' hook claude-code session-start", true, "/opt/my tools/cortex", "session-start"},
		{"cortex hook claude-code pre-compact", true, "cortex", "pre-compact"},
		{"/usr/local/bin/cortex hook codex stop", false, "", ""},                   // another client's
		{"/usr/local/bin/cortex hook claude-code stop --x", false, "", ""},         // more words
		{"/usr/local/bin/cortex-dev hook claude-code stop", false, "", ""},         // another program
		{"cortex hook claude-code stop; rm -rf ~", false, "", ""},                  // shell syntax
		{"/usr/local/bin/cortex hook claude-code stop 2>/dev/null", false, "", ""}, // shell syntax
		{"~/bin/check.sh", false, "", ""},
	}
	for _, tt := range tests {
		b, e, ok := parseHookCommand(tt.cmd, "claude-code", "/usr/local/bin/cortex")
		if ok != tt.ok || b != tt.bin || e != tt.evt {
			t.Errorf("parseHookCommand(%q) = %q, %q, %v; want %q, %q, %v", tt.cmd, b, e, ok, tt.bin, tt.evt, tt.ok)
		}
	}
	// The binary cortex runs as is recognised under any name.
	if _, _, ok := parseHookCommand("/x/cortex-dev hook codex stop", "codex", "/x/cortex-dev"); !ok {
		t.Error("this binary under another name is not recognised")
	}
}
