package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Encoder writes events as NDJSON: one JSON object per line, keys in the
// order of the Event type, maps' keys sorted, HTML characters unescaped. The
// same events always give the same bytes.
type Encoder struct {
	w   io.Writer
	buf bytes.Buffer
	enc *json.Encoder
}

// NewEncoder returns an encoder writing to w.
func NewEncoder(w io.Writer) *Encoder {
	e := &Encoder{w: w}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

// Encode writes one event and its newline.
func (e *Encoder) Encode(ev *Event) error {
	e.buf.Reset()
	if err := e.enc.Encode(ev); err != nil {
		return fmt.Errorf("encode event %s: %w", ev.EventID, err)
	}
	_, err := e.w.Write(e.buf.Bytes())
	return err
}

// Marshal returns the NDJSON of events.
func Marshal(events []Event) ([]byte, error) {
	var b bytes.Buffer
	enc := NewEncoder(&b)
	for i := range events {
		if err := enc.Encode(&events[i]); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

// Decode reads events NDJSON from r (Encoder's output), calling fn for each.
// Blank lines are skipped; a line that does not decode stops it with an error
// naming the line.
func Decode(r io.Reader, fn func(Event) error) error {
	br := bufio.NewReaderSize(r, 256<<10)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			var e Event
			if jerr := json.Unmarshal(b, &e); jerr != nil {
				return fmt.Errorf("events line %d: %w", line, jerr)
			}
			if ferr := fn(e); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
