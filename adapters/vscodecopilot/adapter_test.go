package vscodecopilot

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

const fixtureDir = "../../fixtures/vscode-copilot-chat"

// logFixtures are the mutation logs (.jsonl); documents the single-document
// sessions (.json).
func logFixtures(t testing.TB) []transcripttest.Fixture {
	return transcripttest.Load(t, fixtureDir, ".jsonl")
}

func documents(t testing.TB) []transcripttest.Fixture {
	return transcripttest.Load(t, fixtureDir, ".json")
}

// TestInvariants runs the shared suite on every mutation log and on damaged
// copies of each.
func TestInvariants(t *testing.T) {
	transcripttest.Run(t, New(), logFixtures(t))
}

// TestDocumentInvariants checks the invariants on every document, at every
// record boundary, and on damaged copies of each (transcripttest.Run frames
// records as lines; Verify reads through the Framer).
func TestDocumentInvariants(t *testing.T) {
	a := NewDocument()
	for _, fx := range documents(t) {
		t.Run(fx.Name, func(t *testing.T) {
			t.Parallel()
			rep := transcript.Verify(a, fx.Name, fx.Data, transcript.VerifyOptions{})
			for _, v := range rep.Violations {
				t.Errorf("%s", v)
			}
			for i, g := range transcripttest.Garbled(fx.Data) {
				rep := transcript.Verify(a, fx.Name, g, transcript.VerifyOptions{ResumePoints: 3})
				for _, v := range rep.Violations {
					t.Errorf("damaged copy %d: %s", i, v)
				}
			}
		})
	}
}

// TestGolden compares the events of every fixture with the expected stream
// beside it (go test -run Golden -update rewrites them).
func TestGolden(t *testing.T) {
	t.Run("log", func(t *testing.T) { transcripttest.Golden(t, New(), logFixtures(t)) })
	t.Run("document", func(t *testing.T) { transcripttest.Golden(t, NewDocument(), documents(t)) })
}

// parse reads a fixture whole, with the adapter its name calls for.
func parse(t *testing.T, name string) []transcript.Event {
	t.Helper()
	return transcripttest.ParseFile(t, New().ForFile(name), fixtureDir, name)
}

// TestPartialLastLine: a line still being written is left for the next read.
func TestPartialLastLine(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtureDir, "hand-made", "agent_edits.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	transcripttest.PartialLastLine(t, New(), "s.jsonl", data, len(lines[len(lines)-2])/2)
}

func FuzzParse(f *testing.F) {
	transcripttest.Seeds(f, logFixtures(f))
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		transcripttest.Fuzz(t, a, data)
	})
}
