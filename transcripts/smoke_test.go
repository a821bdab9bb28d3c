package transcripts

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

func TestSmoke(t *testing.T) {
	home := t.TempDir()
	layFixtures(t, home)
	s := New(Options{Dir: t.TempDir(), Selection: scribe.Selection{All: true, Env: transcript.Env{Home: home, Getenv: func(string) string { return "" }}}})
	rep, err := s.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(rep, "", " ")
	fmt.Println(string(b))
	for _, q := range []string{"capital of France", "hello.txt", "SQLite cache", "TODO comments", "bazel"} {
		res, err := s.Search(context.Background(), Request{Query: q, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("==", q, res.Count, res.Sync.Took)
		for _, h := range res.Hits {
			fmt.Printf("  %s %s %s:%d %.3f %q | %q\n", h.Tool, h.Session[:8], h.File[len(home):], h.Line, h.Score, h.User, h.Snippet)
		}
	}
	_ = time.Now
}
