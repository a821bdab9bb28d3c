package transcripts

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// appenderEnv makes the test binary an appender: another process writing to
// a transcript while the test searches it.
const appenderEnv = "CORTEX_TEST_TRANSCRIPT_APPENDER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(appenderEnv); spec != "" {
		if err := runAppender(spec); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// grownTurns are the exchanges the appender writes.
const grownTurns = 40

// turnLines are the records of exchange i of a Claude Code session: the
// person's turn and a reply, each naming the turn by a word of its own.
func turnLines(i int) []string {
	rec := func(v map[string]any) string {
		v["sessionId"] = "c0ffee00-0000-4000-8000-000000000042"
		v["cwd"] = "/home/dev/work/growing"
		v["timestamp"] = time.Date(2026, 11, 21, 9, 0, i, 0, time.UTC).Format(time.RFC3339)
		b, _ := json.Marshal(v)
		return string(b) + "\n"
	}
	word := "turnword" + strconv.Itoa(i)
	return []string{
		rec(map[string]any{"type": "user", "uuid": fmt.Sprintf("u%d", i), "message": map[string]any{"role": "user",
			"content": "Question " + word + ": why does the queue consumer stall after a rebalance?"}}),
		rec(map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a%d", i), "parentUuid": fmt.Sprintf("u%d", i),
			"message": map[string]any{"id": fmt.Sprintf("m%d", i), "role": "assistant", "content": []any{
				map[string]any{"type": "text", "text": "Answer " + word + ": the offsets were committed before processing."}}}}),
	}
}

// runAppender appends the grown turns to a file, record by record, each in
// two writes (a reader may see half a line), with short pauses.
func runAppender(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	for i := 0; i < grownTurns; i++ {
		for _, line := range turnLines(i) {
			half := len(line) / 2
			for _, part := range []string{line[:half], line[half:]} {
				if _, err := f.WriteString(part); err != nil {
					return err
				}
				time.Sleep(3 * time.Millisecond)
			}
		}
	}
	return nil
}

// TestSearchWhileAnotherProcessAppends runs searches from several goroutines
// (each its own Service, as separate commands would be) while another
// process appends to a session: no search fails or hangs, and afterwards
// every appended turn is found, once.
func TestSearchWhileAnotherProcessAppends(t *testing.T) {
	if testing.Short() {
		t.Skip("starts another process")
	}
	home := filterHome(t)
	path := filepath.Join(home, ".claude", "projects", "-home-dev-work-growing", "c0ffee00-0000-4000-8000-000000000042.jsonl")
	writeFile(t, path, []byte(turnLines(-1)[0]+turnLines(-1)[1]))
	dir := filepath.Join(t.TempDir(), "index")
	service := func() *Service {
		s := newService(t, home, time.Now)
		s.o.Dir = dir
		return s
	}
	syncNow(t, service())

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), appenderEnv+"="+path)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var wg sync.WaitGroup
	var mu sync.Mutex
	var searches, busy int
	var slowest time.Duration
	stop := make(chan struct{})
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			s := service()
			for {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				start := time.Now()
				res, err := s.Search(ctx, Request{Query: "queue consumer stall rebalance", AllExchanges: true, Limit: MaxLimit})
				took := time.Since(start)
				cancel()
				mu.Lock()
				searches++
				slowest = max(slowest, took)
				if err == nil && res.Sync.Busy {
					busy++
				}
				mu.Unlock()
				if err != nil {
					t.Errorf("search %d: %v", g, err)
					return
				}
			}
		}(g)
	}
	var werr error
	select {
	case werr = <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		werr = fmt.Errorf("the appender did not finish")
	}
	close(stop)
	wg.Wait()
	if werr != nil {
		t.Fatal(werr)
	}
	t.Logf("%d searches while appending (%d answered while another updated the index), slowest %s", searches, busy, slowest)
	if searches < 3 {
		t.Errorf("only %d searches ran", searches)
	}

	s := service()
	for i := 0; i < grownTurns; i++ {
		res, err := s.Search(context.Background(), Request{Query: "turnword" + strconv.Itoa(i), AllExchanges: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Count != 1 {
			t.Errorf("turn %d: found %d times, want once", i, res.Count)
		}
	}
	n := 0
	for _, d := range allDocs(t, s) {
		if d.File == path {
			n++
		}
	}
	if n != grownTurns+1 {
		t.Errorf("%d exchanges of the growing session indexed, want %d", n, grownTurns+1)
	}
}
