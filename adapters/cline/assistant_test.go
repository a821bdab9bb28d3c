package cline

import "testing"

// TestMaxToolName: maxToolName is the length of the longest tool name, which
// assistantTool's bound on a name's length relies on.
func TestMaxToolName(t *testing.T) {
	n := 0
	for k := range toolNames() {
		n = max(n, len(k))
	}
	if n != maxToolName {
		t.Fatalf("the longest tool name is %d bytes, maxToolName %d", n, maxToolName)
	}
}
