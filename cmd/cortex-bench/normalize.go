package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/inbox"
)

// normalizeRuns measures normalize's throughput, whole process: the inbox is
// emptied first (the hooks' runs left events in it), then n events are put
// in it as the hooks and a person leave them — six in ten manual captures,
// two meetings (three action items and a decision each) and two agents'
// stops, each naming a transcript of its own (a decision, a file written) —
// and one `cortex normalize` takes them all. It reports events per second.
func normalizeRuns(e *env, tmp string, n, size int) (result, error) {
	if out, err := e.cmd("normalize").CombinedOutput(); err != nil {
		return result{}, fmt.Errorf("cortex normalize: %v: %s", err, out)
	}
	layout, err := config.State{Home: e.home}.Vault(filepath.Join(e.vault, "cortex"))
	if err != nil {
		return result{}, err
	}
	in := inbox.New(layout.Inbox().Dir)
	gen := bench.NewGenerator(uint64(size)+7, time.Now())
	dir := filepath.Join(tmp, "normalize-transcripts")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return result{}, err
	}
	for i := range n {
		project := bench.Projects[i%len(bench.Projects)]
		var err error
		switch i % 5 {
		case 0, 1, 2:
			m := gen.Memory()
			_, err = in.Capture(inbox.Request{Type: "manual", Project: project, Content: fmt.Sprintf("Bench %d: %s", i, m.Body)})
		case 3:
			notes := fmt.Sprintf("# Sync %d\n\n%s\n\n## Decisions\n\n- Bench %d: %s\n\n## Action items\n\n- [ ] %s due 2026-12-01\n- [ ] %s\n- [x] %s\n",
				i, gen.Sentence(20), i, gen.Sentence(10), gen.Sentence(6), gen.Sentence(6), gen.Sentence(6))
			_, err = in.Capture(inbox.Request{Type: "meeting", Project: project, Content: notes})
		case 4:
			session := fmt.Sprintf("bench-%08d-0000-4000-8000-%012d", i, size)
			path := filepath.Join(dir, session+".jsonl")
			if err = os.WriteFile(path, claudeTranscript(session, i, gen.Sentence(5)), 0o600); err == nil {
				_, err = in.Add(&inbox.Event{Type: inbox.TypeStop, Origin: inbox.OriginHook, Client: "claude-code", Hook: "Stop",
					Session: session, Project: project, Transcript: path, TranscriptSize: -1, Body: "{}"})
			}
		}
		if err != nil {
			return result{}, err
		}
	}
	c := e.cmd("--json", "normalize")
	start := time.Now()
	out, err := c.Output()
	d := time.Since(start)
	if err != nil {
		return result{}, fmt.Errorf("cortex normalize: %v", err)
	}
	var res struct {
		Events []struct{ Outcome string }
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Events) != n {
		return result{}, fmt.Errorf("cortex normalize took %d events of %d (%v)", len(res.Events), n, err)
	}
	for _, ev := range res.Events {
		if ev.Outcome != "processed" {
			return result{}, fmt.Errorf("cortex normalize: an event %s", ev.Outcome)
		}
	}
	rate := float64(n) / d.Seconds()
	return result{Size: size, Op: fmt.Sprintf("normalize %d events (process): %.0f events/s", n, rate), Runs: 1,
		P50ms: ms(d), P99ms: ms(d), Target: "reported"}, nil
}

// claudeTranscript is a short Claude Code session: a decision, then the
// file it wrote.
func claudeTranscript(session string, i int, words string) []byte {
	at := time.Date(2026, 11, 22, 4, 6, 9, 0, time.UTC).Add(time.Duration(i) * time.Minute)
	ts := func(ms int) string {
		return at.Add(time.Duration(ms) * time.Millisecond).Format("2006-01-02T15:04:05.000Z")
	}
	file := fmt.Sprintf("/home/dev/work/bench/file%d.txt", i)
	common := fmt.Sprintf(`"userType":"external","entrypoint":"cli","cwd":"/home/dev/work/bench","sessionId":%q,"version":"2.1.197","gitBranch":"main"`, session)
	uuid := func(k int) string { return fmt.Sprintf("%08d-0000-4000-8000-%012d", i, k) }
	prompt := fmt.Sprintf("Use %s instead of the old layout for file %d.", strings.TrimSuffix(words, "."), i)
	lines := []string{
		fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"promptId":%q,"type":"user","message":{"role":"user","content":%q},"uuid":%q,"timestamp":%q,"permissionMode":"default",%s}`,
			uuid(9), prompt, uuid(1), ts(0), common),
		fmt.Sprintf(`{"parentUuid":%q,"isSidechain":false,"message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-opus-4-8","content":[{"type":"tool_use","id":"toolu_%d","name":"Write","input":{"file_path":%q,"content":"hello\n"}}],"stop_reason":"tool_use","usage":{"input_tokens":100,"output_tokens":20}},"type":"assistant","uuid":%q,"timestamp":%q,%s}`,
			uuid(1), i, i, file, uuid(2), ts(400), common),
		fmt.Sprintf(`{"parentUuid":%q,"isSidechain":false,"promptId":%q,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_%d","type":"tool_result","content":"File created successfully at: %s"}]},"uuid":%q,"timestamp":%q,"toolUseResult":{"type":"create","filePath":%q,"content":"hello\n","structuredPatch":[],"originalFile":null},%s}`,
			uuid(2), uuid(9), i, file, uuid(3), ts(800), file, common),
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}
