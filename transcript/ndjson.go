package transcript

import (
	"io"

	"github.com/cortexmem/cortex/transcript/ndjson"
)

// Encoder writes events as NDJSON: one JSON object per line, keys in the
// order of the Event type, maps' keys sorted, HTML characters unescaped. The
// same events always give the same bytes.
type Encoder = ndjson.Encoder[Event]

// NewEncoder returns an encoder writing to w.
func NewEncoder(w io.Writer) *Encoder { return ndjson.NewEncoder[Event](w) }

// Marshal returns the NDJSON of events.
func Marshal(events []Event) ([]byte, error) { return ndjson.Marshal(events) }

// Decode reads events NDJSON from r (Encoder's output), calling fn for each.
// Blank lines are skipped; a line that does not decode stops it with an error
// naming the line.
func Decode(r io.Reader, fn func(Event) error) error { return ndjson.Decode(r, fn) }
