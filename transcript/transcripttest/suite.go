// Package transcripttest is the conformance suite every transcript adapter
// passes on every fixture: the invariants of transcript.Verify at every record
// boundary, no panic and intact invariants on damaged copies of each fixture,
// golden event streams, and fuzz seeds. Adapters' tests call it; it imports
// no adapter.
package transcripttest

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cortexmem/cortex/internal/golden"
	"github.com/cortexmem/cortex/transcript"
)

// GoldenSuffix is the extension of a fixture's expected events, beside it:
// fixtures/<tool>/<version>/<scenario>.jsonl → <scenario>.events.ndjson.
const GoldenSuffix = ".events.ndjson"

// Fixture is one transcript file of the shared fixtures.
type Fixture struct {
	// Name is the path below the tool's fixture folder, with "/": the file
	// name events carry, so goldens do not depend on where the tree is.
	Name string
	Path string
	Data []byte
}

// Load reads every file under dir whose name ends with one of exts, sorted by
// name.
func Load(t testing.TB, dir string, exts ...string) []Fixture {
	t.Helper()
	var out []Fixture
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !slices.ContainsFunc(exts, func(e string) bool { return strings.HasSuffix(path, e) }) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		out = append(out, Fixture{Name: filepath.ToSlash(rel), Path: path, Data: data})
		return nil
	})
	if err != nil {
		t.Fatalf("load fixtures: %v", err)
	}
	if len(out) == 0 {
		t.Fatalf("no fixtures in %s", dir)
	}
	return out
}

// Run checks every invariant on every fixture, then on damaged copies of it
// (Garbled): no panic, and the invariants that hold for any input (well
// formed, monotonic seq, unique ids, lossless, deterministic, resumable) still
// hold.
func Run(t *testing.T, a transcript.Adapter, fixtures []Fixture) {
	t.Helper()
	for _, fx := range fixtures {
		t.Run(fx.Name, func(t *testing.T) {
			t.Parallel()
			check(t, a, fx.Name, fx.Data, 0)
			for i, g := range Garbled(fx.Data) {
				name := fmt.Sprintf("%s (damaged copy %d)", fx.Name, i)
				if t.Failed() {
					return
				}
				check(t, a, name, g, 3)
			}
		})
	}
}

// check runs Parse directly (so a panic fails the test instead of becoming
// an Unknown event), then Verify.
func check(t *testing.T, a transcript.Adapter, name string, data []byte, points int) {
	t.Helper()
	strict := ParseStrict(a, name, data)
	rep := transcript.Verify(a, name, data, transcript.VerifyOptions{ResumePoints: points})
	for _, v := range rep.Violations {
		t.Errorf("%s: %s", name, v)
	}
	got, err := transcript.Marshal(strict)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	viaReader, _ := transcript.ParseBytes(a, name, data, true)
	want, _ := transcript.Marshal(viaReader)
	if !bytes.Equal(got, want) {
		t.Errorf("%s: Parse called record by record and the Reader disagree", name)
	}
}

// ParseStrict parses data record by record as the Reader frames it (JSON
// lines: blank lines skipped, an unterminated last line read; a Framer's
// records otherwise), calling the adapter's Parse directly: a panic is not
// recovered.
func ParseStrict(a transcript.Adapter, name string, data []byte) []transcript.Event {
	ctx := transcript.NewContext(a.Source(), name)
	var out []transcript.Event
	if _, ok := a.(transcript.Framer); ok {
		for _, rec := range Records(a, name, data) {
			out = append(out, a.Parse(rec, ctx)...)
		}
		return out
	}
	var off int64
	line := 0
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		l := data
		if i >= 0 {
			l = data[:i]
		}
		line++
		if len(bytes.Trim(l, " \t\r\n")) > 0 {
			rec := transcript.Record{File: name, Offset: off, Line: line, Data: bytes.Clone(l)}
			out = append(out, a.Parse(rec, ctx)...)
		}
		if i < 0 {
			break
		}
		off += int64(i + 1)
		data = data[i+1:]
	}
	return out
}

// Golden compares each fixture's events, as NDJSON, with the file beside it
// named <fixture without extension>.events.ndjson; with -update it writes
// them there instead.
func Golden(t *testing.T, a transcript.Adapter, fixtures []Fixture) {
	t.Helper()
	for _, fx := range fixtures {
		t.Run(fx.Name, func(t *testing.T) {
			evs, _ := transcript.ParseBytes(a, fx.Name, fx.Data, true)
			got, err := transcript.Marshal(evs)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, GoldenPath(fx.Path), got)
		})
	}
}

// GoldenPath is where the expected events of the fixture at path are.
func GoldenPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + GoldenSuffix
}

// maxCuts bounds how many lines Garbled cuts a file inside of.
const maxCuts = 12

// Garbled returns damaged copies of data, the same every time: cut in the
// middle of a line and a few bytes before its newline (for up to maxCuts lines
// spread over the file), with a line dropped, a line doubled, two lines
// swapped, a byte changed in each line, junk lines (text, JSON of other
// shapes, invalid UTF-8, a NUL) inserted, CRLF line ends, and without its
// last newline.
func Garbled(data []byte) [][]byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	join := func(ls [][]byte) []byte { return bytes.Join(ls, nil) }
	var out [][]byte
	var off int
	step := max(1, (len(lines)+maxCuts-1)/maxCuts)
	for i, l := range lines {
		if i%step == 0 || i == len(lines)-1 {
			out = append(out, bytes.Clone(data[:off+len(l)/2]))
			if len(l) > 4 {
				out = append(out, bytes.Clone(data[:off+len(l)-3]))
			}
		}
		if i == len(lines)/2 && len(lines) > 1 {
			dropped := slices.Clone(lines)
			out = append(out, join(slices.Delete(dropped, i, i+1)))
			doubled := slices.Insert(slices.Clone(lines), i, l)
			out = append(out, join(doubled))
			swapped := slices.Clone(lines)
			swapped[i], swapped[i-1] = swapped[i-1], swapped[i]
			out = append(out, join(swapped))
		}
		off += len(l)
	}
	// One byte changed per line, at a place that moves along the line.
	flipped := bytes.Clone(data)
	off = 0
	for i, l := range lines {
		if len(l) > 1 {
			pos := off + (i*7919)%(len(l)-1)
			flipped[pos] ^= 0x20
		}
		off += len(l)
	}
	out = append(out, flipped)
	junk := [][]byte{
		[]byte("not json at all\n"), []byte("{\"type\":\n"), []byte("[1,2,3]\n"), []byte("null\n"),
		[]byte("{}\n"), []byte("{\"type\":42,\"uuid\":[],\"message\":\"x\"}\n"), []byte("\xff\xfe\x00garbage\n"),
		[]byte("{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\"}]}}\n"),
		[]byte("{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"input\":7}]}}\n"),
		[]byte("   \n"), []byte("\"just a string\"\n"),
	}
	withJunk := slices.Clone(lines)
	for i, j := range junk {
		withJunk = slices.Insert(withJunk, min(i*2, len(withJunk)), j)
	}
	out = append(out, join(withJunk))
	out = append(out, bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")))
	out = append(out, bytes.TrimSuffix(data, []byte("\n")))
	return out
}

// maxSeed is the largest whole fixture Seeds adds: the fuzzer spends long
// minimising large inputs, so larger files go in line by line only.
const maxSeed = 32 << 10

// Seeds adds every fixture (up to maxSeed bytes), and every line of each
// alone, to a fuzz corpus.
func Seeds(f *testing.F, fixtures []Fixture) {
	for _, fx := range fixtures {
		if len(fx.Data) <= maxSeed {
			f.Add(fx.Data)
		}
		for _, l := range bytes.Split(fx.Data, []byte("\n")) {
			if len(l) > 0 {
				f.Add(l)
			}
		}
	}
}

// Fuzz is the body of an adapter's fuzz target: Parse never panics (it is
// called directly), and the events keep the invariants of CheckEvents.
func Fuzz(t *testing.T, a transcript.Adapter, data []byte) {
	evs := ParseStrict(a, "fuzz.jsonl", data)
	for _, v := range transcript.CheckEvents(a.Source(), Records(a, "fuzz.jsonl", data), evs) {
		t.Errorf("%s", v)
	}
	if _, err := transcript.Marshal(evs); err != nil {
		t.Errorf("events do not encode: %v", err)
	}
}

// Records are the records of data, a whole transcript named name, as the
// Reader frames them for a: its lines (blank ones skipped), or the records
// of its Framer.
func Records(a transcript.Adapter, name string, data []byte) []transcript.Record {
	if f, ok := a.(transcript.Framer); ok {
		recs, _ := f.Frame(data, true)
		for i := range recs {
			recs[i].File = name
		}
		return recs
	}
	var recs []transcript.Record
	var off int64
	for i, l := range bytes.SplitAfter(data, []byte("\n")) {
		body := bytes.TrimSuffix(l, []byte("\n"))
		if len(bytes.Trim(body, " \t\r\n")) > 0 {
			recs = append(recs, transcript.Record{File: name, Offset: off, Line: i + 1, Data: body})
		}
		off += int64(len(l))
	}
	return recs
}
