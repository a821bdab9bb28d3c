package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/inbox"
)

// capture writes one event naming the client, and returns its id alone;
// status then counts it pending.
func TestCaptureAndStatus(t *testing.T) {
	e := newEnvAs(t, &mcp.Implementation{Name: "codex", Version: "0.169.0"})
	r := e.try("capture", map[string]any{"type": "meeting", "content": "# Standup\n\n- [ ] Ask the DBA about the replica lag", "project": "Web",
		"tags": "planning, ops", "session": "s-9"})
	if r.isError {
		t.Fatalf("capture: %s", r.text)
	}
	var out CaptureOutput
	if err := json.Unmarshal(r.structured, &out); err != nil || out.ID == "" || r.text != out.ID {
		t.Fatalf("capture answered %q / %s (%v)", r.text, r.structured, err)
	}
	files, _ := filepath.Glob(filepath.Join(e.root, "state", "vaults", "*", "inbox", "pending", out.ID+".md"))
	if len(files) != 1 {
		t.Fatalf("event file: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	ev, err := inbox.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	want := &inbox.Event{ID: out.ID, Type: inbox.TypeMeeting, Time: ev.Time, Origin: inbox.OriginMCP, Client: "codex 0.169.0", Session: "s-9",
		Project: "web", Tags: []string{"planning", "ops"}, TranscriptSize: -1, Body: "# Standup\n\n- [ ] Ask the DBA about the replica lag"}
	if diff := cmp.Diff(ev, want); diff != "" {
		t.Errorf("event (-got +want):\n%s", diff)
	}

	res, err := e.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "status", Arguments: map[string]any{"limit": 3}})
	if err != nil {
		t.Fatal(err)
	}
	e.checkOutput("status", res)
	var st StatusOutput
	data, _ = json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	if st.StatusResult == nil || st.Inbox == nil || st.Inbox.Pending != 1 || st.Index.Error != "" {
		t.Errorf("status %s", data)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, "#### Inbox: 1 pending, 0 failed") {
		t.Errorf("status text:\n%s", text)
	}
}

func TestCaptureRefusals(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"type": "lunch", "content": "x"}, `type: "lunch" is not an event type`},
		{map[string]any{"type": "manual"}, "content: give the content"},
		{map[string]any{"type": "stop", "transcript": "relative.jsonl"}, "transcript: \"relative.jsonl\" must be an absolute path"},
		{map[string]any{"content": "x"}, "type: is required"},
	} {
		r := e.try("capture", tt.args)
		if !r.isError || !strings.Contains(r.text, tt.want) {
			t.Errorf("capture %v = %q, want an error containing %q", tt.args, r.text, tt.want)
		}
	}
	files, _ := filepath.Glob(filepath.Join(e.root, "state", "vaults", "*", "inbox", "pending", "*"))
	if len(files) != 0 {
		t.Errorf("refused captures wrote %v", files)
	}
}
