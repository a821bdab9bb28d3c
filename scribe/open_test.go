package scribe_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/adapters"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/pipeline/pipelinetest"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

// TestDetect: each tool's transcript is recognised from its first records
// (Gemini CLI's older single JSON document too) and the file is rewound; a
// file of no tool is ErrInvalid asking for --as.
func TestDetect(t *testing.T) {
	tests := []struct {
		name    string
		path    string
		want    transcript.SourceKind
		wantErr string
	}{
		{"claude code", claudeFixture, transcript.ClaudeCode, ""},
		{"codex", codexFixture, transcript.Codex, ""},
		{"gemini cli", geminiFixture, transcript.GeminiCLI, ""},
		{"gemini cli document", legacyFixture, transcript.GeminiCLI, ""},
		{"not a transcript", "../fixtures/claude-code/README.md", "", "cannot tell which tool wrote it; name the tool with --as (tools read: " + strings.Join(scribe.Tools(), ", ") + ")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := os.ReadFile(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			r := bytes.NewReader(data)
			ad, err := scribe.Detect(tt.path, r)
			if tt.wantErr != "" {
				if !errors.Is(err, memories.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want ErrInvalid with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ad.Source() != tt.want {
				t.Errorf("detected %s, want %s", ad.Source(), tt.want)
			}
			if rest, _ := io.ReadAll(r); !bytes.Equal(rest, data) {
				t.Errorf("not rewound: %d of %d bytes left", len(rest), len(data))
			}
		})
	}
}

// TestFileOpen: a File with an adapter keeps it, one without gets the
// adapter that recognises it; Open with a tool named uses that tool's.
func TestFileOpen(t *testing.T) {
	codex, _ := adapters.For(transcript.Codex)
	tests := []struct {
		name string
		open func() (*scribe.Transcript, error)
		want transcript.SourceKind
	}{
		{"detected", func() (*scribe.Transcript, error) { return scribe.File{Path: claudeFixture}.Open() }, transcript.ClaudeCode},
		{"adapter kept", func() (*scribe.Transcript, error) { return scribe.File{Path: claudeFixture, Adapter: codex}.Open() }, transcript.Codex},
		{"named", func() (*scribe.Transcript, error) { return scribe.Open(claudeFixture, "codex") }, transcript.Codex},
		{"open detects", func() (*scribe.Transcript, error) { return scribe.Open(codexFixture, "") }, transcript.Codex},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := tt.open()
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			if tr.Adapter.Source() != tt.want {
				t.Errorf("read by %s, want %s", tr.Adapter.Source(), tt.want)
			}
		})
	}
}

// secretSession is a Claude Code transcript whose person pastes a token.
func secretSession(t *testing.T) string {
	t.Helper()
	line := `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"From now on use the token ` + pipelinetest.FakeGitHubPAT +
		` for the release job."},"uuid":"389fc5f2-05d1-48e7-8111-47775bd238a8","timestamp":"2026-11-22T04:06:09.614Z","cwd":"/home/dev/work/app","sessionId":"abec5a35-9921-4cdf-b4f7-cfe555641860","version":"2.1.197","gitBranch":"main"}` + "\n"
	p := filepath.Join(t.TempDir(), "secret.jsonl")
	if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEvents: events are the adapter's, as transcript.Read gives them,
// unless a Redaction says to hide credentials or every text.
func TestEvents(t *testing.T) {
	path := secretSession(t)
	tests := []struct {
		name      string
		red       scribe.Redaction
		want      string // in the user turn's text
		wantToken bool
	}{
		{"as written", scribe.Redaction{}, "use the token " + pipelinetest.FakeGitHubPAT, true},
		{"redacted", scribe.Redaction{Pipeline: pipeline.New()}, "use the token [REDACTED:credential.github_pat] for", false},
		{"no content", scribe.Redaction{Pipeline: pipeline.New(), NoContent: true}, "", false},
		{"no content without a pipeline", scribe.Redaction{NoContent: true}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := scribe.Open(path, "")
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			var got []transcript.Event
			if err := tr.Events(context.Background(), tt.red, func(e transcript.Event) error {
				got = append(got, e)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			data, err := transcript.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if has := bytes.Contains(data, []byte(pipelinetest.FakeGitHubPAT)); has != tt.wantToken {
				t.Errorf("token in the events: %v, want %v:\n%s", has, tt.wantToken, data)
			}
			var text *string
			for i := range got {
				if got[i].UserTurn != nil {
					text = &got[i].UserTurn.Text
				}
			}
			if text == nil {
				t.Fatalf("no user turn in %s", data)
			}
			if tt.want == "" && *text != "" || !strings.Contains(*text, tt.want) {
				t.Errorf("user turn %q, want %q in it", *text, tt.want)
			}
		})
	}
}

// TestEventsStops: fn's error and a cancelled context stop the read.
func TestEventsStops(t *testing.T) {
	stop := errors.New("enough")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		fn   func(transcript.Event) error
		want error
	}{
		{"fn", context.Background(), func(transcript.Event) error { return stop }, stop},
		{"cancelled", ctx, func(transcript.Event) error { return nil }, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := scribe.Open(claudeFixture, "")
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			n := 0
			err = tr.Events(tt.ctx, scribe.Redaction{}, func(e transcript.Event) error { n++; return tt.fn(e) })
			if !errors.Is(err, tt.want) || n > 1 {
				t.Fatalf("err %v after %d events, want %v after at most 1", err, n, tt.want)
			}
		})
	}
}

// TestReadEvents: events written by the Encoder read back as they were,
// from a file or from stdin; anything else is ErrInvalid naming the event.
func TestReadEvents(t *testing.T) {
	data, err := os.ReadFile(claudeFixture)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := transcript.ParseBytes(adapters.Resolve(mustFor(t, transcript.ClaudeCode), claudeFixture), "b_write_edit.jsonl", data, true)
	ndjson, err := transcript.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "events.ndjson")
	if err := os.WriteFile(file, ndjson, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		stdin   string
		wantErr string
	}{
		{"file", file, "", ""},
		{"stdin", "-", string(ndjson), ""},
		{"not events", "-", `{"type":"user"}` + "\n", "events: -: event 1 is not a cortex event of schema 1 (make events with cortex scribe parse)"},
		{"missing", filepath.Join(dir, "missing.ndjson"), "", "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scribe.ReadEvents(context.Background(), tt.path, strings.NewReader(tt.stdin))
			if tt.wantErr != "" {
				if !errors.Is(err, memories.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want ErrInvalid with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			back, err := transcript.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(ndjson), string(back)); diff != "" {
				t.Errorf("events read back differ (-written +read):\n%s", diff)
			}
		})
	}
}

func mustFor(t *testing.T, k transcript.SourceKind) transcript.Adapter {
	t.Helper()
	a, ok := adapters.For(k)
	if !ok {
		t.Fatalf("no adapter of %s", k)
	}
	return a
}

// FuzzDetect: detection never panics, and whatever it says, the reader is
// back at its start.
func FuzzDetect(f *testing.F) {
	for _, p := range []string{claudeFixture, codexFixture, legacyFixture} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(p, data[:min(len(data), 4096)])
	}
	f.Add("x.jsonl", []byte("not json\n{}\n"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		r := bytes.NewReader(data)
		ad, err := scribe.Detect(name, r)
		if err == nil && ad == nil || err != nil && !errors.Is(err, memories.ErrInvalid) {
			t.Fatalf("Detect = %v, %v", ad, err)
		}
		if rest, _ := io.ReadAll(r); !bytes.Equal(rest, data) {
			t.Fatalf("not rewound")
		}
	})
}
