package main

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/inbox"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

// The transcripts the end-to-end runs read: what each client really wrote
// for the b_write_edit scenario (a file written, then edited), the session
// its Stop payload names, and the conformance catalog's happy path in the
// client's format (a decision, then the edit it produced).
var e2eClients = []struct {
	client     string
	stop       string // the Stop payload (fixtures/hooks)
	compact    string // a PreCompress payload of the same run, when the client has one
	transcript string // the transcript it names (fixtures/)
	// happyPath is where the client keeps a session like the conformance
	// one, relative to HOME; <sid> is its id, <sid8> its first 8 characters.
	happyPath string
}{
	{"claude-code", "claude-code/2.1.197/b_write_edit/1795320369962473529-claude-Stop.json", "",
		"claude-code/2.1.197/b_write_edit.jsonl", ".claude/projects/-home-dev-work-demo-project/<sid>.jsonl"},
	{"codex", "codex/0.169.0/b_write_edit/1795320426007741486-codex-Stop.json", "",
		"codex/0.169.0/b_write_edit.jsonl", ".codex/sessions/2026/11/23/rollout-2026-11-23T09-00-00-<sid>.jsonl"},
	{"gemini-cli", "gemini-cli/0.61.0/b_write_edit/1795320474645874175-gemini-AfterAgent.json",
		"gemini-cli/0.61.0/b_write_edit/1795320473594288812-gemini-PreCompress.json",
		"gemini-cli/0.61.0/b_write_edit.jsonl", ".gemini/tmp/demo-project/chats/session-2026-11-23T09-00-<sid8>.jsonl"},
}

// payloadIn rewrites a fixture payload for a throwaway home: its paths
// under home instead of /home/dev, and, when set, another session and
// transcript.
func payloadIn(t *testing.T, rel, home, session, transcriptPath string) (string, map[string]any) {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal([]byte(strings.ReplaceAll(readHookFixture(t, rel), "/home/dev", home)), &p); err != nil {
		t.Fatal(err)
	}
	if session != "" {
		p["session_id"], p["transcript_path"] = session, transcriptPath
	}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data), p
}

// sessionOf reads a transcript's session id.
func sessionOf(t *testing.T, path string) string {
	t.Helper()
	tr, err := scribe.Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	id := ""
	stop := errors.New("stop")
	err = tr.Events(context.Background(), scribe.Redaction{}, func(e transcript.Event) error {
		if e.SessionID != "" {
			id = e.SessionID
			return stop
		}
		return nil
	})
	if id == "" {
		t.Fatalf("%s: no session id (%v)", path, err)
	}
	return id
}

func place(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// vaultFiles reads every file of a vault, by path relative to it.
func vaultFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// notesUnder lists the notes of a folder of the cortex folder, recursively.
func notesUnder(files map[string]string, prefix string) []string {
	var out []string
	for p := range files {
		if strings.HasPrefix(p, "cortex/"+prefix) && strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

type normalizeOut struct {
	Events []struct {
		ID, Type, Outcome, Detail, Client, Session string
		Warnings                                   []string
		Notes                                      []struct{ Type, Path, Outcome string }
	}
	Pending, Pruned int
}

// TestNormalizeEndToEnd runs, for each client in a throwaway home, its stop
// hook with the payload it really sent, naming the transcript it really
// wrote (copied where the client keeps it), and a second stop naming a
// session of the conformance catalog's happy path in the client's format;
// normalize turns them into session, decision and episode notes and a record
// per session; a second normalize changes nothing, byte for byte; a later
// session end adds a line to the record and reads nothing again.
func TestNormalizeEndToEnd(t *testing.T) {
	for _, c := range e2eClients {
		t.Run(c.client, func(t *testing.T) {
			e := newCLIEnv(t)
			home := e.dir
			if err := os.MkdirAll(filepath.Join(home, "work", "demo-project", ".git"), 0o700); err != nil {
				t.Fatal(err)
			}
			stop, p := payloadIn(t, c.stop, home, "", "")
			place(t, filepath.Join("../../fixtures", c.transcript), p["transcript_path"].(string))
			happy := filepath.Join("../../fixtures/conformance", c.client, "happy_path.jsonl")
			sid := sessionOf(t, happy)
			happyPath := filepath.Join(home, strings.NewReplacer("<sid>", sid, "<sid8>", sid[:8]).Replace(c.happyPath))
			place(t, happy, happyPath)
			happyStop, _ := payloadIn(t, c.stop, home, sid, happyPath)

			if c.compact != "" {
				compact, _ := payloadIn(t, c.compact, home, "", "")
				if out, _, code := e.run(compact, "hook", c.client, "pre-compact"); code != 0 || out != "" {
					t.Fatalf("hook pre-compact: exit %d, stdout %q", code, out)
				}
			}
			for _, payload := range []string{stop, happyStop} {
				if out, _, code := e.run(payload, "hook", c.client, "stop"); code != 0 || out != "" {
					t.Fatalf("hook stop: exit %d, stdout %q", code, out)
				}
			}
			if le := e.lastLog(); le.Outcome != "captured" {
				t.Fatalf("hook log: %+v", le)
			}

			var res normalizeOut
			if err := json.Unmarshal([]byte(e.must("", "--json", "normalize")), &res); err != nil {
				t.Fatal(err)
			}
			wantEvents := 2
			if c.compact != "" {
				wantEvents = 3
			}
			if len(res.Events) != wantEvents || res.Pending != 0 {
				t.Fatalf("normalize: %+v", res)
			}
			for _, ev := range res.Events {
				if ev.Outcome != "processed" || len(ev.Warnings) > 0 || !strings.Contains(ev.Detail, "transcript read (") && !strings.Contains(ev.Detail, "unchanged") {
					t.Errorf("event %s: %+v", ev.ID, ev)
				}
			}
			files := vaultFiles(t, e.vault)
			mined := notesUnder(files, "sessions/"+c.client+"/")
			records := notesUnder(files, "sessions/"+c.client+"/captured/")
			decisions, episodes := notesUnder(files, "decisions/demo-project/"), notesUnder(files, "episodes/demo-project/")
			if len(mined)-len(records) != 2 || len(records) != 2 || len(decisions) != 1 || len(episodes) != 3 {
				t.Fatalf("sessions %v (records %v), decisions %v, episodes %v", mined, records, decisions, episodes)
			}
			if d := files[decisions[0]]; !strings.Contains(d, "SQLite") || !strings.Contains(d, "[[") {
				t.Errorf("decision note:\n%s", d)
			}
			for _, r := range records {
				if !strings.Contains(files[r], "transcript read (") || !strings.Contains(files[r], "project: demo-project") {
					t.Errorf("record %s:\n%s", r, files[r])
				}
			}

			before := files
			if out := e.must("", "normalize"); out != "Nothing to normalize: the inbox is empty.\n" {
				t.Errorf("second normalize said %q", out)
			}
			if diff := cmp.Diff(before, vaultFiles(t, e.vault)); diff != "" {
				t.Fatalf("a second normalize changed the vault (-before +after):\n%s", diff)
			}

			// The session ends: its record gets a line; the transcript has
			// nothing new, so no other note changes.
			end, _ := payloadIn(t, c.stop, home, "", "")
			e.must(end, "hook", c.client, "session-end")
			e.must("", "normalize")
			after := vaultFiles(t, e.vault)
			var changed []string
			for p, text := range after {
				if before[p] != text {
					changed = append(changed, p)
				}
			}
			if len(changed) != 1 || !strings.Contains(changed[0], "/captured/") || len(after) != len(before) {
				t.Errorf("the session's end changed %v (%d files, %d before), want its record alone", changed, len(after), len(before))
			}
		})
	}
}

// TestNormalizeCodexWithoutTranscript: Codex's Stop payload with a null
// transcript_path; normalize finds the rollout by the session id in the
// file names discovery lists, and reads it.
func TestNormalizeCodexWithoutTranscript(t *testing.T) {
	e := newCLIEnv(t)
	place(t, "../../fixtures/codex/0.169.0/a_qa.jsonl",
		filepath.Join(e.dir, ".codex/sessions/2026/11/22/rollout-2026-11-22T04-07-04-01a2016f-a952-7792-819c-21ee528dd237.jsonl"))
	payload, p := payloadIn(t, "codex/0.169.0/derived/null_transcript-codex-Stop.json", e.dir, "", "")
	if p["transcript_path"] != nil {
		t.Fatalf("the payload names a transcript: %v", p["transcript_path"])
	}
	e.must(payload, "hook", "codex", "stop")
	out := e.must("", "normalize")
	if !strings.Contains(out, "found by its session id; transcript read (") {
		t.Errorf("normalize said:\n%s", out)
	}
}

// TestNormalizeBusy: while another normalize holds the inbox, a second one
// waits --wait, says so, leaves the events and exits 0 (and says it in JSON).
func TestNormalizeBusy(t *testing.T) {
	e := newCLIEnv(t)
	e.must("", "capture", "Release trains leave on Wednesdays at noon.")
	dirs, err := filepath.Glob(filepath.Join(e.state, "vaults", "*", "inbox"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("inbox %v (%v)", dirs, err)
	}
	lock, err := inbox.New(dirs[0]).Lock(context.Background(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	out := e.must("", "normalize", "--wait", "50ms")
	if !strings.HasPrefix(out, "Nothing done: another normalize is running (it has held ") || !strings.HasSuffix(out, "its pass takes the pending events.\n") {
		t.Errorf("stdout %q", out)
	}
	var res struct {
		Busy    bool
		Message string
		Events  []any
	}
	if err := json.Unmarshal([]byte(e.must("", "--json", "normalize", "--wait", "0s")), &res); err != nil || !res.Busy || res.Events == nil {
		t.Errorf("JSON %+v (%v)", res, err)
	}
	if n := len(e.pending()); n != 1 {
		t.Errorf("%d events pending, want the one", n)
	}
}
