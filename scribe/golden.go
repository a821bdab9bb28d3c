package scribe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cortexmem/cortex/adapters"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/transcript"
)

// The golden files kept beside a transcript fixture <name>.jsonl (or .json).
const (
	EventsGolden = ".events.ndjson" // its events, as parse prints them
	NodesGolden  = ".nodes.ndjson"  // its nodes, as replay prints them (unredacted)
)

// Golden is the check of one golden file.
type Golden struct {
	File   string `json:"file"`   // the transcript
	Golden string `json:"golden"` // the golden file beside it
	OK     bool   `json:"ok"`
	// Error says where the bytes made today leave the golden's.
	Error string `json:"error,omitempty"`
}

// GoldenReport is what CheckGoldens found.
type GoldenReport struct {
	Failed  int      `json:"failed"`
	Goldens []Golden `json:"goldens"`
	OK      int      `json:"ok"`
}

// CheckGoldens checks the golden fixtures under dir: for every transcript
// (dir/<tool>/…/<name>.jsonl or .json) with expected events
// (<name>.events.ndjson) or nodes (<name>.nodes.ndjson) beside it, the
// adapter of its tool folder must give exactly those events, and the
// pipeline (unredacted, as goldens are) exactly those nodes. A folder
// holding no golden is ErrInvalid: the person named the wrong one.
func CheckGoldens(ctx context.Context, dir string) (*GoldenReport, error) {
	rep := &GoldenReport{}
	p := pipeline.New(pipeline.WithoutRedaction())
	for _, ad := range adapters.All() {
		root := filepath.Join(dir, string(ad.Source()))
		if _, err := os.Stat(root); err != nil {
			continue
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			gs, err := checkFixture(p, ad, root, path)
			rep.Goldens = append(rep.Goldens, gs...)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if len(rep.Goldens) == 0 {
		return nil, &memories.ArgError{Arg: "--capture", Rule: fmt.Sprintf("%s holds no golden fixtures (<tool>/…/<name>.events.ndjson beside <name>.jsonl)", dir)}
	}
	for _, g := range rep.Goldens {
		if g.OK {
			rep.OK++
		} else {
			rep.Failed++
		}
	}
	return rep, nil
}

// checkFixture checks the goldens beside the file at path, under the
// folder root of ad's tool; a file that is not a transcript has none.
func checkFixture(p *pipeline.Pipeline, ad transcript.Adapter, root, path string) ([]Golden, error) {
	ext := filepath.Ext(path)
	if ext != ".jsonl" && ext != ".json" || strings.HasSuffix(path, ".meta.json") {
		return nil, nil
	}
	stem := strings.TrimSuffix(path, ext)
	var data []byte
	read := func() error {
		if data != nil {
			return nil
		}
		var err error
		if l, ok := adapters.Resolve(ad, path).(transcript.Loader); ok {
			// Not a file of records (an export, a session of a tree
			// of files): the records its adapter loads from it.
			data, err = l.Load(path, transcript.Start(ad, path).Context)
		} else {
			data, err = os.ReadFile(path)
		}
		return err
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return nil, err
	}
	// Event goldens name the file from the tool's folder, node goldens
	// from the fixtures folder (as the tests write them).
	names := map[string]string{EventsGolden: filepath.ToSlash(rel), NodesGolden: string(ad.Source()) + "/" + filepath.ToSlash(rel)}
	var out []Golden
	for _, g := range []string{EventsGolden, NodesGolden} {
		want, err := os.ReadFile(stem + g)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, err
		}
		if err := read(); err != nil {
			return out, err
		}
		evs, _ := transcript.ParseBytes(adapters.Resolve(ad, path), names[g], data, true)
		var got []byte
		if g == EventsGolden {
			got, err = transcript.Marshal(evs)
		} else {
			got, err = pipeline.Marshal(p.Prepare(evs))
		}
		if err != nil {
			return out, err
		}
		r := Golden{File: path, Golden: stem + g, OK: bytes.Equal(got, want)}
		if !r.OK {
			r.Error = firstDifference(want, got)
		}
		out = append(out, r)
	}
	return out, nil
}

// firstDifference names the first line where got leaves want.
func firstDifference(want, got []byte) string {
	wl, gl := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < max(len(wl), len(gl)); i++ {
		if i >= len(wl) || i >= len(gl) || !bytes.Equal(wl[i], gl[i]) {
			return fmt.Sprintf("line %d is not what it was", i+1)
		}
	}
	return "the same lines, other bytes"
}
