package pipeline_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortexmem/cortex/adapters"
	"github.com/cortexmem/cortex/internal/golden"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/pipeline/pipelinetest"
	"github.com/cortexmem/cortex/security"
	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// NodesSuffix is the extension of a fixture's expected nodes, beside it:
// <scenario>.jsonl → <scenario>.nodes.ndjson.
const nodesSuffix = ".nodes.ndjson"

// fixtureSet is every transcript fixture of every tool with an adapter.
type fixture struct {
	transcripttest.Fixture
	adapter transcript.Adapter
}

func fixtures(t testing.TB) []fixture {
	t.Helper()
	var out []fixture
	for _, a := range adapters.All() {
		dir := filepath.Join("..", "fixtures", string(a.Source()))
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		for _, fx := range transcripttest.Load(t, dir, ".jsonl", ".json", ".md") {
			// Sidecars and the folders' notes are no transcripts (an .md
			// is one for aider).
			if strings.HasSuffix(fx.Name, ".meta.json") || strings.HasSuffix(fx.Name, ".settings.json") || strings.HasSuffix(fx.Name, "README.md") {
				continue
			}
			fx.Name = string(a.Source()) + "/" + fx.Name
			out = append(out, fixture{fx, adapters.Resolve(a, fx.Path)})
		}
	}
	if len(out) == 0 {
		t.Fatal("no fixtures")
	}
	return out
}

func events(t testing.TB, fx fixture) []transcript.Event {
	evs, _ := transcript.ParseBytes(fx.adapter, fx.Name, fx.Data, true)
	return evs
}

// TestGoldenNodes compares the nodes of every fixture (unredacted) with the
// stream beside it; go test ./pipeline -run GoldenNodes -update rewrites them.
func TestGoldenNodes(t *testing.T) {
	p := pipeline.New(pipeline.WithoutRedaction())
	for _, fx := range fixtures(t) {
		t.Run(fx.Name, func(t *testing.T) {
			got, err := pipeline.Marshal(p.Prepare(events(t, fx)))
			if err != nil {
				t.Fatal(err)
			}
			again, _ := pipeline.Marshal(p.Prepare(events(t, fx)))
			if !bytes.Equal(got, again) {
				t.Fatal("two runs give different bytes")
			}
			golden.CheckOrAbsent(t, strings.TrimSuffix(fx.Path, filepath.Ext(fx.Path))+nodesSuffix, got)
		})
	}
}

// TestReplayRoundTrip checks that nodes survive their NDJSON: decoding and
// encoding again gives the same bytes.
func TestReplayRoundTrip(t *testing.T) {
	p := pipeline.New(pipeline.WithoutRedaction())
	for _, fx := range fixtures(t) {
		data, _ := pipeline.Marshal(p.Prepare(events(t, fx)))
		nodes, err := pipeline.DecodeNodes(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", fx.Name, err)
		}
		again, _ := pipeline.Marshal(nodes)
		if !bytes.Equal(data, again) {
			t.Errorf("%s: nodes change through their NDJSON", fx.Name)
		}
	}
}

// TestRedactionLeavesNoCredential plants secrets in every fixture and checks
// that the default pipeline's nodes hold none, anywhere in their JSON — and
// that without redaction they do (so the check can fail).
func TestRedactionLeavesNoCredential(t *testing.T) {
	red, raw := pipeline.New(), pipeline.New(pipeline.WithoutRedaction())
	withSecrets := 0
	for _, fx := range fixtures(t) {
		evs := pipelinetest.PlantCredentials(events(t, fx))
		data, err := pipeline.Marshal(red.Prepare(evs))
		if err != nil {
			t.Fatal(err)
		}
		if f := security.ScanCredentials(string(data)); len(f) > 0 {
			t.Errorf("%s: redacted nodes hold %s", fx.Name, f[0])
		}
		if !bytes.Contains(data, []byte("[REDACTED:")) && len(data) > 0 {
			t.Errorf("%s: nothing was redacted", fx.Name)
		}
		rawData, _ := pipeline.Marshal(raw.Prepare(evs))
		if len(security.ScanCredentials(string(rawData))) > 0 {
			withSecrets++
		}
	}
	if withSecrets == 0 {
		t.Error("no fixture's unredacted nodes held a planted secret")
	}
}

// TestNoContent checks that --no-content keeps the structure and no text.
func TestNoContent(t *testing.T) {
	p := pipeline.New(pipeline.WithoutContent(), pipeline.WithoutRedaction())
	full := pipeline.New(pipeline.WithoutRedaction())
	for _, fx := range fixtures(t) {
		evs := events(t, fx)
		stripped, kept := p.Prepare(evs), full.Prepare(evs)
		if len(stripped) != len(kept) {
			t.Fatalf("%s: %d nodes without content, %d with", fx.Name, len(stripped), len(kept))
		}
		for i, n := range stripped {
			if n.ID != kept[i].ID || n.Kind != kept[i].Kind {
				t.Errorf("%s: node %d is %s %s, with content %s %s", fx.Name, i, n.Kind, n.ID, kept[i].Kind, kept[i].ID)
			}
			switch {
			case n.Conversation != nil:
				for _, turn := range n.Conversation.Turns {
					if turn.Text != "" {
						t.Errorf("%s: a turn keeps its text", fx.Name)
					}
				}
			case n.Decision != nil:
				if n.Decision.Epitome != "" || n.Decision.Chosen != nil || n.Decision.Rejected != nil {
					t.Errorf("%s: a decision keeps its text", fx.Name)
				}
			case n.Episode != nil:
				if n.Episode.Unified != "" || n.Episode.Path == "" {
					t.Errorf("%s: an episode keeps its diff or lost its path", fx.Name)
				}
			}
		}
	}
}
