package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"unicode/utf8"

	"github.com/cortexmem/cortex/transcript/rawjson"
)

// MaxRecordBytes is the largest record the reader hands to an adapter. A
// longer line becomes an Unknown event (ReasonTooLarge) that points at the
// bytes without holding them.
const MaxRecordBytes = 64 << 20

// Position is where a read stopped: Offset is the first byte not consumed (the
// start of the next record, or of a partial last line left for later), Line
// the number of lines consumed, Context the parser state. A zero Offset and a
// fresh Context is the start of a file.
type Position struct {
	Offset  int64    `json:"offset"`
	Line    int      `json:"line"`
	Context *Context `json:"context"`
}

// Start is the position at the beginning of file, for adapter a.
func Start(a Adapter, file string) Position {
	return Position{Context: NewContext(a.Source(), file)}
}

// Read parses the records of r — which must be positioned at cur.Offset —
// with a, calls emit with each event in order, and returns the position after
// the last record consumed. It advances cur.Context in place (Clone it first
// to keep a checkpoint).
//
// Without final, a last line that has no newline yet is left unconsumed: the
// tool may still be writing it, and the next Read from the returned position
// reads it whole. With final (a file known to be complete), it is parsed as
// a record too. Blank lines are not records. A record Parse fails on becomes
// an Unknown event (ReasonParserError): one bad record never stops a file.
func Read(a Adapter, r io.Reader, cur Position, final bool, emit func(Event) error) (Position, error) {
	if cur.Context == nil {
		return cur, errors.New("read transcript: the position has no context (use transcript.Start)")
	}
	if f, ok := a.(Framer); ok {
		return readFramed(a, f, r, cur, final, emit)
	}
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil) // let go of r
		readers.Put(br)
	}()
	var (
		buf      []byte // the current line, when it spans several reads
		n        int64  // bytes of the current line read so far
		overflow bool   // the current line is over MaxRecordBytes: only counted
	)
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		full := errors.Is(err, bufio.ErrBufferFull)
		if !overflow && (full || buf != nil) {
			if len(buf)+len(chunk) > MaxRecordBytes+1 {
				overflow, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if full {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return cur, fmt.Errorf("read %s: %w", cur.Context.file, err)
		}
		complete := err == nil
		if n == 0 || !complete && !final {
			// The end of the file, or a partial last line left for later.
			return cur, nil
		}
		line := chunk
		if buf != nil {
			line = buf
		}
		rec := Record{File: cur.Context.file, Offset: cur.Offset, Line: cur.Line + 1}
		size := n
		if complete {
			size--
		}
		cur.Offset += n
		cur.Line++
		var evs []Event
		switch {
		case overflow:
			evs = []Event{tooLarge(cur.Context, rec, size)}
		case !isBlank(line):
			rec.Data = bytes.Clone(bytes.TrimSuffix(line, []byte("\n")))
			evs = parseRecord(a, rec, cur.Context)
		}
		buf, n, overflow = nil, 0, false
		for _, e := range evs {
			if err := emit(e); err != nil {
				return cur, err
			}
		}
		if !complete {
			return cur, nil
		}
	}
}

// readers are the readers of Read, kept for the next one: a whole build
// reads thousands of files, and a new buffer for each was a quarter of a
// gigabyte allocated and cleared. No slice of a reader's buffer outlives
// the Read that used it (records are copies).
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 256<<10) }}

// readFramed reads the rest of r whole and lets the adapter split it.
func readFramed(a Adapter, f Framer, r io.Reader, cur Position, final bool, emit func(Event) error) (Position, error) {
	data, err := readAll(r)
	if err != nil {
		return cur, fmt.Errorf("read %s: %w", cur.Context.file, err)
	}
	recs, consumed := f.Frame(data, final)
	for _, rec := range recs {
		rec.File = cur.Context.file
		rec.Offset += cur.Offset
		for _, e := range parseRecord(a, rec, cur.Context) {
			if err := emit(e); err != nil {
				return cur, err
			}
		}
	}
	cur.Offset += int64(max(0, min(consumed, len(data))))
	cur.Line += bytes.Count(data[:max(0, min(consumed, len(data)))], []byte("\n"))
	return cur, nil
}

// readAll is io.ReadAll with the buffer sized up front when r says how much
// it holds (a file, a bytes.Reader): a document of tens of megabytes is read
// into one allocation rather than a dozen, each twice the last and cleared.
func readAll(r io.Reader) ([]byte, error) {
	size := 0
	switch v := r.(type) {
	case interface{ Len() int }:
		size = v.Len()
	case interface{ Stat() (fs.FileInfo, error) }:
		if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() < 1<<40 {
			size = int(fi.Size())
		}
	}
	var b bytes.Buffer
	b.Grow(size + bytes.MinRead)
	_, err := b.ReadFrom(r)
	return b.Bytes(), err
}

// parseRecord runs the adapter on one record; a panic becomes an Unknown
// event, so one record the adapter cannot handle never stops a file.
func parseRecord(a Adapter, rec Record, ctx *Context) (evs []Event) {
	defer func() {
		if r := recover(); r != nil {
			evs = []Event{UnknownEvent(ctx, rec, "", ReasonParserError)}
		}
	}()
	return a.Parse(rec, ctx)
}

func tooLarge(ctx *Context, rec Record, size int64) Event {
	e := ctx.NewEvent(rec, KindUnknown, HashID([]byte(fmt.Sprintf("%s:%d:%d", rec.File, rec.Offset, size))))
	e.Provenance.Length = int(size)
	e.Unknown = &Unknown{Reason: ReasonTooLarge}
	return e
}

// UnknownEvent preserves rec as an Unknown event of the given raw type and
// reason, with the record's content hash as its id: as JSON when it is JSON,
// as text when it is other text, as bytes otherwise.
func UnknownEvent(ctx *Context, rec Record, rawType, reason string) Event {
	e := ctx.NewEvent(rec, KindUnknown, HashID(rec.Data))
	e.Unknown = &Unknown{RawType: rawType, Reason: reason}
	SetRaw(e.Unknown, rec.Data)
	return e
}

// RecordObject returns the members of rec, a JSON object, validating it
// once. When rec is not valid JSON, or JSON of another type, it returns the
// record's Unknown event (malformed) instead: the first thing a JSON lines
// adapter's Parse does.
func RecordObject(ctx *Context, rec Record) (rawjson.Object, []Event) {
	valid := rawjson.Valid(rec.Data)
	if valid {
		if m, ok := rawjson.ParseObject(rec.Data); ok {
			return m, nil
		}
	}
	e := ctx.NewEvent(rec, KindUnknown, HashID(rec.Data))
	e.Unknown = NewUnknown("", ReasonMalformed, rec.Data, valid)
	return nil, []Event{e}
}

// SetRaw stores data in u as Raw, Text or Bytes, whichever keeps it intact.
func SetRaw(u *Unknown, data []byte) {
	setRaw(u, data, rawjson.Valid(data))
}

// NewUnknown returns the payload preserving a record whose validity as JSON
// the caller already knows (saving a second validation). The record's bytes
// are kept, not copied: they belong to the record.
func NewUnknown(rawType, reason string, data []byte, validJSON bool) *Unknown {
	u := &Unknown{RawType: rawType, Reason: reason}
	setRaw(u, data, validJSON)
	return u
}

func setRaw(u *Unknown, data []byte, validJSON bool) {
	switch {
	case !utf8.Valid(data):
		u.Bytes = data
	case validJSON:
		u.Raw = json.RawMessage(data)
	default:
		u.Text = string(data)
	}
}

// ParseBytes reads a whole transcript held in memory: every event, and the
// position after it. With final, an unterminated last line is a record.
func ParseBytes(a Adapter, file string, data []byte, final bool) ([]Event, Position) {
	var evs []Event
	cur, _ := Read(a, bytes.NewReader(data), Start(a, file), final, func(e Event) error {
		evs = append(evs, e)
		return nil
	})
	return evs, cur
}

// ReadAll reads r from cur to its end and returns the events and where it
// stopped.
func ReadAll(a Adapter, r io.Reader, cur Position, final bool) ([]Event, Position, error) {
	var evs []Event
	cur, err := Read(a, r, cur, final, func(e Event) error {
		evs = append(evs, e)
		return nil
	})
	return evs, cur, err
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}
