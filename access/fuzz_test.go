package access

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
)

// FuzzStats reads any log and any cache: no panic, no error, positive counts,
// and the stats of some ids are the stats of all restricted to them.
func FuzzStats(f *testing.F) {
	dir := f.TempDir()
	l := Open(Options{State: config.State{Home: dir}, CacheAbove: 1})
	for i := 0; i < 6; i++ {
		if err := l.Record(context.Background(), []memories.Access{acc(i%3, memories.AccessRecall, i), acc(7, "hook", i)}); err != nil {
			f.Fatal(err)
		}
	}
	if _, err := l.Stats(context.Background(), nil); err != nil {
		f.Fatal(err)
	}
	logData, _ := os.ReadFile(config.State{Home: dir}.AccessLog())
	cacheData, _ := os.ReadFile(config.State{Home: dir}.AccessIndex())
	f.Add(logData, cacheData)
	f.Add(logData, []byte(nil))
	f.Add([]byte(`{"id":"`+id(1)+`","ts":"2026-11-01T09:00:00Z","source":"recall","n":-4}`+"\n"), []byte(nil))
	f.Add([]byte("{\"log\":\"x\"}\n\x00\xff{\"id\":1}\n"), cacheData)
	f.Fuzz(func(t *testing.T, logData, cacheData []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(config.State{Home: dir}.AccessLog(), logData, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(config.State{Home: dir}.AccessIndex(), cacheData, 0o600); err != nil {
			t.Fatal(err)
		}
		l := Open(Options{State: config.State{Home: dir}, CacheAbove: 1 << 30})
		all, err := l.Stats(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for id, st := range all {
			for src, n := range st.Counts {
				if n <= 0 {
					t.Fatalf("%s: %d accesses from %s", id, n, src)
				}
			}
			if len(ids) < 3 {
				ids = append(ids, id)
			}
		}
		some, err := l.Stats(context.Background(), append(ids, "nosuch"))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]memories.AccessStat{}
		for _, id := range ids {
			want[id] = all[id]
		}
		if diff := cmp.Diff(some, want); diff != "" {
			t.Fatalf("stats of %v (-got +want):\n%s", ids, diff)
		}
	})
}
