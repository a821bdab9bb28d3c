package access

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

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

// FuzzQuickLine: a line the quick reader takes reads as the JSON decoder
// reads it, and a line the log writes is one it takes.
func FuzzQuickLine(f *testing.F) {
	for _, l := range []line{
		{ID: id(1), Time: t0, Source: memories.AccessRecall},
		{ID: id(2), Time: t0.Add(1234567 * time.Nanosecond), Source: "hook", N: 12},
		{ID: "short", Time: t0.Add(time.Millisecond), Source: memories.AccessSessionStart, N: 1},
	} {
		b, _ := json.Marshal(l)
		f.Add(b)
	}
	b, _ := json.Marshal(line{Log: newToken()})
	f.Add(b)
	for _, s := range []string{
		`{"id":"a","ts":"2026-11-01T09:00:00.5Z","source":"recall","n":0}`,
		`{"id":"a","ts":"2026-11-01T09:00:00+01:00","source":"recall"}`,
		`{"id":"a\u0041","ts":"2026-11-01T09:00:00Z","source":"recall"}`,
		`{"id":"a","ts":"2026-02-30T09:00:00Z","source":"recall"}`,
		`{"id":"a","ts":"2026-11-01T09:00:00Z","source":"recall","n":007}`,
		`{"ID":"a","ts":"2026-11-01T09:00:00Z","source":"recall"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, ln []byte) {
		if tok, ok := quickHeader(ln); ok {
			var h line
			if err := json.Unmarshal(ln, &h); err != nil || h.Log != tok || h.ID != "" {
				t.Fatalf("quickHeader(%q) = %q; the decoder: %+v, %v", ln, tok, h, err)
			}
		}
		got, ok := quickLine(ln)
		if !ok {
			return
		}
		var want line
		if err := json.Unmarshal(ln, &want); err != nil {
			t.Fatalf("quickLine(%q) = %+v; the decoder: %v", ln, got, err)
		}
		if got.ID != want.ID || got.Source != want.Source || got.N != want.N || !got.Time.Equal(want.Time) ||
			got.Time.Location() != want.Time.Location() || want.Log != "" {
			t.Fatalf("quickLine(%q) = %+v; the decoder: %+v", ln, got, want)
		}
	})
}

// Every line Record and compaction write is read by the quick reader.
func TestQuickLineReadsWhatIsWritten(t *testing.T) {
	dir := t.TempDir()
	l := Open(Options{State: config.State{Home: dir}})
	put(t, l, acc(1, memories.AccessRecall, 0), acc(2, "hook", 61), memories.Access{ID: "x", Source: memories.AccessContext,
		Time: t0.Add(123456789 * time.Nanosecond)})
	check := func(when string) {
		t.Helper()
		data, err := os.ReadFile(config.State{Home: dir}.AccessLog())
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if _, ok := quickHeader([]byte(lines[0])); !ok {
			t.Errorf("%s: header %q not read quickly", when, lines[0])
		}
		for _, ln := range lines[1:] {
			if _, ok := quickLine([]byte(ln)); !ok {
				t.Errorf("%s: line %q not read quickly", when, ln)
			}
		}
	}
	check("recorded")
	if err := l.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("compacted")
}
