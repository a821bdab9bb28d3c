package scribe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/cortexmem/cortex/adapters"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/transcript"
)

// headBytes is how much of a file detection reads: enough for the records
// adapters.Detect looks at, even when they hold whole files.
const headBytes = 1 << 20

// Transcript is an open transcript file and the adapter that reads it.
type Transcript struct {
	File
	f *os.File
}

// Open opens the transcript at path, read by the adapter of the tool as
// names or, when as is empty, by the one that recognises its first records.
// A missing file, a folder, an unknown tool and a file of no tool cortex
// reads are errors a person can fix (memories.ErrInvalid).
func Open(path, as string) (*Transcript, error) {
	return open(File{Path: path}, as)
}

// Open opens f; without an Adapter, the one that recognises the start of
// the file reads it.
func (f File) Open() (*Transcript, error) {
	return open(f, "")
}

// open opens f, read by f.Adapter unless as names another tool or f has
// none, when as's adapter or detection's is used.
func open(f File, as string) (*Transcript, error) {
	fh, err := openFile(f.Path)
	if err != nil {
		return nil, err
	}
	if f.Adapter == nil || as != "" {
		if f.Adapter, err = adapterOf(as, f.Path, fh); err != nil {
			fh.Close()
			return nil, err
		}
	}
	return &Transcript{File: f, f: fh}, nil
}

// Close closes the file.
func (t *Transcript) Close() error { return t.f.Close() }

// Bytes reads the whole file: for a transcript read through Load (a
// database), the records Load gives for it.
func (t *Transcript) Bytes() ([]byte, error) {
	if l, ok := t.Adapter.(transcript.Loader); ok {
		return l.Load(t.Path, transcript.Start(t.Adapter, t.Path).Context)
	}
	data, err := io.ReadAll(t.f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t.Path, err)
	}
	return data, nil
}

// Redaction is what Events hides of each event. The zero value hides
// nothing.
type Redaction struct {
	// Pipeline, when set, replaces every credential its redaction rules
	// find (the safety rules and the config's patterns) with
	// [REDACTED:<rule>], in texts, tool inputs and outputs, diffs and the
	// records of unknown types.
	Pipeline *pipeline.Pipeline
	// NoContent drops every text and keeps the structure: ids, kinds,
	// times, tools, counts.
	NoContent bool
}

// Events reads the transcript from its start and hands fn its events in
// order, redacted as red says. It stops at fn's first error, and when ctx is
// done.
func (t *Transcript) Events(ctx context.Context, red Redaction, fn func(transcript.Event) error) error {
	var r pipeline.Redactor
	if red.Pipeline != nil && !red.NoContent {
		r = textRedactor(red.Pipeline.RedactText)
	}
	var src io.Reader = t.f
	if _, ok := t.Adapter.(transcript.Loader); ok {
		data, err := t.Bytes()
		if err != nil {
			return err
		}
		src = bytes.NewReader(data)
	}
	_, err := transcript.Read(t.Adapter, src, transcript.Start(t.Adapter, t.Path), true, func(e transcript.Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := pipeline.RedactEvent(&e, r, red.NoContent); err != nil {
			return err
		}
		return fn(e)
	})
	return err
}

// textRedactor is a redaction function as a pipeline.Redactor.
type textRedactor func(string) string

func (f textRedactor) Redact(s string) string { return f(s) }

// adapterOf returns the adapter as names for the file at path, or the one
// that recognises the start of f (which it then rewinds).
func adapterOf(as, path string, f io.ReadSeeker) (transcript.Adapter, error) {
	if as != "" {
		return Named(as, path)
	}
	return Detect(path, f)
}

// Named returns the adapter of the tool as names (any name
// transcript.ParseSource takes) for the file at path.
func Named(as, path string) (transcript.Adapter, error) {
	k, ok := transcript.ParseSource(as)
	if !ok {
		var names []string
		for _, s := range transcript.Sources() {
			names = append(names, string(s))
		}
		return nil, &memories.ArgError{Arg: "--as", Rule: fmt.Sprintf("unknown tool %q (tools: %s)", as, strings.Join(names, ", "))}
	}
	ad, ok := adapters.For(k)
	if !ok {
		return nil, &memories.ArgError{Arg: "--as", Rule: fmt.Sprintf("no adapter reads %s transcripts yet (tools read: %s)", k.Name(), strings.Join(Tools(), ", "))}
	}
	return adapters.Resolve(ad, path), nil
}

// Detect tells from the first records of f (the file at path) which tool
// wrote it, and rewinds f. A file no adapter recognises is ErrInvalid: the
// person is to name its tool.
func Detect(path string, f io.ReadSeeker) (transcript.Adapter, error) {
	head := make([]byte, headBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	ad, err := adapters.DetectFile(path, head[:n])
	if err != nil {
		return nil, &memories.ArgError{Arg: "file", Rule: fmt.Sprintf("%s: cannot tell which tool wrote it; name the tool with --as (tools read: %s)", path, strings.Join(Tools(), ", "))}
	}
	return ad, nil
}

// openFile opens a file a person named: a missing one or a folder is
// ErrInvalid.
func openFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &memories.ArgError{Arg: "file", Rule: path + ": no such file"}
	}
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, &memories.ArgError{Arg: "file", Rule: path + ": a folder, not a transcript file"}
	}
	return f, nil
}

// ReadEvents reads the events at path ("-": from stdin) as Encoder writes
// them (what 'scribe parse' prints), refusing any that is not a cortex
// event of this schema version.
func ReadEvents(ctx context.Context, path string, stdin io.Reader) ([]transcript.Event, error) {
	r := stdin
	if path != "-" {
		f, err := openFile(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	var evs []transcript.Event
	err := transcript.Decode(r, func(e transcript.Event) error {
		if e.SchemaVersion != transcript.SchemaVersion || e.Kind == "" || e.Source == "" {
			return fmt.Errorf("event %d is not a cortex event of schema %d (make events with cortex scribe parse)", len(evs)+1, transcript.SchemaVersion)
		}
		evs = append(evs, e)
		return ctx.Err()
	})
	if err != nil {
		return nil, &memories.ArgError{Arg: "events", Rule: fmt.Sprintf("%s: %v", path, err)}
	}
	return evs, nil
}
