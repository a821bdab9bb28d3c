// Package adapters is the registry of transcript adapters: one package per
// agent tool beneath this one (adapters/claudecode, …), each implementing
// transcript.Adapter. The CLI and the pipeline find an adapter here by tool,
// or by reading the first records of a file. Adapters never import this
// package or each other: they import only transcript, transcript/rawjson and
// the transcript packages that wrap a driver or decoder (transcript/sqlitedb,
// transcript/zstd) (arch_test.go checks).
package adapters

import (
	"bytes"
	"errors"

	"github.com/cortexmem/cortex/adapters/aider"
	"github.com/cortexmem/cortex/adapters/amp"
	"github.com/cortexmem/cortex/adapters/claudecode"
	"github.com/cortexmem/cortex/adapters/cline"
	"github.com/cortexmem/cortex/adapters/codex"
	"github.com/cortexmem/cortex/adapters/continuedev"
	"github.com/cortexmem/cortex/adapters/copilotcli"
	"github.com/cortexmem/cortex/adapters/cursor"
	"github.com/cortexmem/cortex/adapters/droid"
	"github.com/cortexmem/cortex/adapters/gemini"
	"github.com/cortexmem/cortex/adapters/opencode"
	"github.com/cortexmem/cortex/adapters/otlp"
	"github.com/cortexmem/cortex/adapters/vscodecopilot"
	"github.com/cortexmem/cortex/adapters/windsurf"
	"github.com/cortexmem/cortex/adapters/zed"
	"github.com/cortexmem/cortex/transcript"
)

// ErrNoAdapter is returned for a tool that has no adapter yet, and for a
// file no adapter recognises.
var ErrNoAdapter = errors.New("no transcript adapter")

// All returns an adapter of every tool that has one, in the priority order of
// transcript.Sources.
func All() []transcript.Adapter {
	return []transcript.Adapter{
		claudecode.New(), codex.New(), gemini.New(), copilotcli.New(), cursor.New(), opencode.New(),
		aider.New(), amp.New(), cline.New(), cline.NewRoo(), cline.NewKilo(),
		windsurf.New(), vscodecopilot.New(), zed.New(), continuedev.New(), droid.New(), otlp.New(),
	}
}

// For returns the adapter of a tool.
func For(k transcript.SourceKind) (transcript.Adapter, bool) {
	for _, a := range All() {
		if a.Source() == k {
			return a, true
		}
	}
	return nil, false
}

// detectRecords is how many records Detect reads.
const detectRecords = 50

// Detect tells which tool wrote a transcript from the first bytes of it: the
// adapter that recognises the most of its first records (Fingerprint), the
// earlier in priority order on a tie. It returns ErrNoAdapter when none
// recognises any.
func Detect(head []byte) (transcript.Adapter, error) {
	var recs []transcript.Record
	for _, l := range bytes.Split(head, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		recs = append(recs, transcript.Record{Data: l})
		if len(recs) == detectRecords {
			break
		}
	}
	var best transcript.Adapter
	bestN := 0
	for _, a := range All() {
		n := 0
		for _, r := range recs {
			if a.Fingerprint(r).Schema != "" {
				n++
			}
		}
		if n > bestN {
			best, bestN = a, n
		}
	}
	if best == nil {
		return nil, ErrNoAdapter
	}
	return best, nil
}

// fileResolver is an adapter of a tool that writes more than one kind of
// file (Gemini CLI's and VS Code Copilot Chat's JSON lines and their older
// single JSON documents): it names the adapter that reads a given one.
type fileResolver interface {
	ForFile(path string) transcript.Adapter
}

// claimer is an adapter whose transcripts are read through Load (a SQLite
// database, a tree of JSON files, a document of its own shape): it tells
// its files by their path and first bytes.
type claimer interface {
	Claims(path string, head []byte) bool
}

// Resolve returns the adapter that reads the transcript at path: the one a
// names for it when its tool writes several kinds of file, else a.
func Resolve(a transcript.Adapter, path string) transcript.Adapter {
	if r, ok := a.(fileResolver); ok {
		if b := r.ForFile(path); b != nil {
			return b
		}
	}
	return a
}

// DetectFile tells which tool wrote the transcript at path from its first
// bytes, head, and returns the adapter that reads it (Resolve'd): the file
// read as JSON lines (Detect), else framed by each tool's Framer for such a
// path (a pretty-printed single JSON document, which has no record a line;
// a markdown log).
func DetectFile(path string, head []byte) (transcript.Adapter, error) {
	if a, err := Detect(head); err == nil {
		return Resolve(a, path), nil
	}
	for _, a := range All() {
		if c, ok := a.(claimer); ok && c.Claims(path, head) {
			return Resolve(a, path), nil
		}
	}
	for _, a := range All() {
		r := Resolve(a, path)
		f, ok := r.(transcript.Framer)
		if !ok {
			continue
		}
		// The head may stop mid-document: complete records only, a few.
		recs, _ := f.Frame(head, false)
		if len(recs) == 0 {
			recs, _ = f.Frame(head, true)
		}
		for i, rec := range recs {
			if i == detectRecords {
				break
			}
			if r.Fingerprint(rec).Schema != "" {
				return r, nil
			}
		}
	}
	return nil, ErrNoAdapter
}
