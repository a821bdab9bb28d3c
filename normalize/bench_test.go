package normalize_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cortexmem/cortex/inbox"
)

// BenchmarkNormalize normalizes passes of 25 events — fifteen manual
// captures, five meetings, five stops naming a transcript each — in one
// process (the harness, cmd/cortex-bench, times the whole process).
func BenchmarkNormalize(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		e := newEnv(b)
		for i := range 25 {
			switch i % 5 {
			case 0, 1, 2:
				e.capture(b, inbox.Request{Type: "manual", Project: "web",
					Content: fmt.Sprintf("Release train %d leaves on weekday %d at %d:00, after smoke suite %d.", i, i%5, 9+i, i*7)})
			case 3:
				e.capture(b, inbox.Request{Type: "meeting", Project: "web",
					Content: fmt.Sprintf("# Sync %d\n\n## Decisions\n\n- Week %d moves cluster %d to Postgres 17.\n\n## Action items\n\n- [ ] Ana writes runbook %d\n- [ ] Bo checks set %d\n", i, i, i, i, i)})
			case 4:
				tr := copyFile(b, claudeTranscript, filepath.Join(e.root, "t", fmt.Sprintf("s%d.jsonl", i)))
				e.hookEvent(b, "claude-code", "Stop", fmt.Sprintf("s%d", i), tr)
			}
		}
		b.StartTimer()
		res, err := e.n.Run(context.Background())
		if err != nil || len(res.Events) != 25 {
			b.Fatalf("%v, %+v", err, res)
		}
	}
	b.ReportMetric(float64(b.N*25)/b.Elapsed().Seconds(), "events/s")
}
