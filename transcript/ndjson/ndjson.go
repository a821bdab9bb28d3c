// Package ndjson writes and reads newline-delimited JSON: one compact JSON
// value per line. It is how the transcript half streams its events
// (package transcript) and nodes (package pipeline) between commands and
// into golden files, so its output is deterministic: the same values always
// give the same bytes (struct fields in declaration order, map keys sorted,
// HTML characters left unescaped). It imports the standard library only.
package ndjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Encoder writes values of type T as NDJSON, one line per value, each in one
// Write (a reader of a pipe never sees half a line from it).
type Encoder[T any] struct {
	w    io.Writer
	buf  bytes.Buffer
	enc  *json.Encoder
	line int
}

// NewEncoder returns an encoder writing to w.
func NewEncoder[T any](w io.Writer) *Encoder[T] {
	e := &Encoder[T]{w: w}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

// Encode writes one value and its newline.
func (e *Encoder[T]) Encode(v *T) error {
	e.line++
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return fmt.Errorf("encode line %d: %w", e.line, err)
	}
	_, err := e.w.Write(e.buf.Bytes())
	return err
}

// Marshal returns the NDJSON of vs.
func Marshal[T any](vs []T) ([]byte, error) {
	var b bytes.Buffer
	enc := NewEncoder[T](&b)
	for i := range vs {
		if err := enc.Encode(&vs[i]); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

// readSize is the reader's buffer: lines are often long (a tool's output),
// and a larger buffer saves growing one line at a time.
const readSize = 256 << 10

// Decode reads NDJSON of values of type T from r, calling fn for each in
// order. Blank lines are skipped; a line that does not decode stops it with
// an error naming the line, and an error from fn stops it with that error.
func Decode[T any](r io.Reader, fn func(T) error) error {
	br := bufio.NewReaderSize(r, readSize)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			var v T
			if jerr := json.Unmarshal(b, &v); jerr != nil {
				return fmt.Errorf("line %d: %w", line, jerr)
			}
			if ferr := fn(v); ferr != nil {
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

// DecodeAll reads every value of r (see Decode). On an error it returns the
// values read before it.
func DecodeAll[T any](r io.Reader) ([]T, error) {
	var out []T
	err := Decode(r, func(v T) error {
		out = append(out, v)
		return nil
	})
	return out, err
}
