package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cortexmem/cortex/memories"
)

// TestPrepareChecksLeavesTheFirstSaveNoNoteToRead: in a vault indexed
// without word indexes (a new state folder, as after a rebuild), the first
// save into a project reads every note of the vault for their word sets.
// Once the checks are prepared (memories.Service.PrepareChecks, which the
// MCP server starts with), the first save of each project reads none, and
// decides as it would have: a copy of a note is refused.
func TestPrepareChecksLeavesTheFirstSaveNoNoteToRead(t *testing.T) {
	ctx := context.Background()
	e := newOwedEnv(t)
	topics := []string{"pool", "cache", "queue", "token", "index", "shard", "lease", "quota"}
	projects := []string{"zoo", "yak", "general"}
	var texts []string
	for i := range 30 {
		p := projects[i%len(projects)]
		a, b := topics[i%len(topics)], topics[(i*3+1)%len(topics)]
		text := fmt.Sprintf("The %s of service %d talks to the %s on port %d; retries back off after %d ms and the %s logs each failure.", a, i, b, 8000+i, 50*i, a)
		texts = append(texts, text)
		path := filepath.Join(e.root, "cortex", "memories", p, fmt.Sprintf("n%02d.md", i))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		note := fmt.Sprintf("---\nid: 01jprepare%016d\ntitle: Service %d\nproject: %s\n---\n%s\n", i, i, p, text)
		if err := os.WriteFile(path, []byte(note), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, svc := e.open()
	if _, err := st.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := svc.PrepareChecks(ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range projects {
		if _, err := os.Stat(st.wordIndexPath(p)); err != nil {
			t.Errorf("no word index for %s once the checks are prepared: %v", p, err)
		}
	}
	reads := st.wordReads.Load()
	for _, p := range []string{"zoo", "yak"} {
		text := fmt.Sprintf("The ledger of project %s settles every night at two and mails the totals to finance.", p)
		if _, err := svc.Save(ctx, memories.SaveRequest{Content: text, Project: p}); err != nil {
			t.Fatalf("save into %s: %v", p, err)
		}
	}
	if n := st.wordReads.Load() - reads; n != 0 {
		t.Errorf("the first saves after the checks were prepared read %d notes for their word sets, want 0", n)
	}
	_, err := svc.Save(ctx, memories.SaveRequest{Content: texts[3], Project: "zoo"})
	var rej *memories.RejectedError
	if !errors.As(err, &rej) {
		t.Errorf("saving a copy of a note of zoo: err = %v, want a refusal as a duplicate", err)
	}
}
