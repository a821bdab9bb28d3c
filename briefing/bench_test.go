package briefing_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/briefing"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
)

// BenchmarkAssemble assembles a briefing over a synthetic vault of 10,000
// notes with a warm, resident store: the cost inside a long-running process
// (the MCP server). go test -run '^$' -bench Assemble -benchtime 50x ./briefing
func BenchmarkAssemble(b *testing.B) {
	root := b.TempDir()
	if _, err := bench.WriteVault(root, 10000, 1, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		b.Fatal(err)
	}
	v, err := vault.New(root, "cortex")
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.Open(store.Options{Vault: v, State: config.State{Home: filepath.Join(root, ".state")}, LockTimeout: 10 * time.Second,
		Freshness: time.Second, Resident: true})
	if err != nil {
		b.Fatal(err)
	}
	mem := memories.NewService(st)
	svc := &briefing.Service{Memories: mem, Notes: st, Link: v.VaultPath, Playbooks: briefing.PlaybookFolder{Dir: v.Dir}}
	ctx := context.Background()
	req := briefing.Request{Query: "connection pool timeout retry", Project: "webapp"}
	if _, err := svc.Assemble(ctx, req); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := svc.Assemble(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
