package scribe_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

// benchEvents is n sessions of two decisions, each followed by three edits.
func benchEvents(n int) []transcript.Event {
	var evs []transcript.Event
	for i := range n {
		s := session{id: fmt.Sprintf("bench-%04d", i), t0: t0.Add(time.Duration(i) * 24 * time.Hour), steps: []string{
			fmt.Sprintf("say: Use library%d for the parser instead of the hand-written one in module %d.", i, i),
			"reply: OK, switching.", fmt.Sprintf("edit: parser%d.go", i), fmt.Sprintf("edit: lexer%d.go", i), fmt.Sprintf("edit: ast%d.go", i),
			fmt.Sprintf("say: From now on, keep the error messages of component %d in errors%d.go.", i, i),
			fmt.Sprintf("edit: errors%d.go", i), fmt.Sprintf("edit: parser%d.go", i), fmt.Sprintf("edit: main%d.go", i),
		}}
		evs = append(evs, s.events()...)
	}
	return evs
}

// BenchmarkMineToVault writes the notes of 100 sessions (200 decisions, 600
// episodes, 100 sessions) into an empty vault, and then again into the same
// vault (nothing changes), reporting notes/s of each.
func BenchmarkMineToVault(b *testing.B) {
	evs := benchEvents(100)
	p := pipeline.New()
	sessions := scribe.Sessions(evs)
	scribe.Redact(sessions, p)
	notes := scribe.Render(p.Prepare(evs), sessions)
	for _, again := range []bool{false, true} {
		name := "new"
		if again {
			name = "again"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				e := newEnv(b)
				if again {
					if _, err := e.svc.Mine(context.Background(), memories.MineRequest{Notes: notes}); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				res, err := e.svc.Mine(context.Background(), memories.MineRequest{Notes: notes})
				if err != nil {
					b.Fatal(err)
				}
				// Decisions alike but for their numbers are duplicates
				// of the first; every other note is new, then unchanged.
				want := memories.MineCreated
				if again {
					want = memories.MineUnchanged
				}
				if n := res.Count(want) + res.Count(memories.MineDuplicate); n != len(notes) {
					c := map[string]int{}
					for _, it := range res.Items {
						c[it.Outcome]++
					}
					b.Fatalf("outcomes %v of %d notes", c, len(notes))
				}
			}
			b.ReportMetric(float64(len(notes)*b.N)/b.Elapsed().Seconds(), "notes/s")
		})
	}
}
