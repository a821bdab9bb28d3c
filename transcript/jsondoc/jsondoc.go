// Package jsondoc frames transcripts that are one JSON document rewritten
// whole after every change (Amp's threads, Continue's sessions, Cline's task
// files): a record is a whole document, so an adapter reads a thread, a
// session or a task in one Parse, with every member in hand before it emits
// the first event (Amp writes the working folder after the messages).
//
// A rewritten file has no stable byte offsets between versions: a position
// saved against one version is not valid for the next. A reader re-reads a
// changed file from the start; within one version, a read stopped before a
// document is complete leaves it for later, as a line still being written is
// left by the JSON lines reader.
package jsondoc

import (
	"bytes"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// Frame splits data into records: each JSON object or array from its opening
// bracket to the one that closes it, each top-level string, and any other
// text up to the end of its line (so a file that is not a document still
// gives every byte to some record). White space between records is not a
// record. Without atEOF a record still open at the end of data — a document
// whose closing bracket has not been written, text without its newline — is
// left for later and not consumed; with atEOF it is a record to the end.
//
// Frame needs no state: where a record ends is decided by the bytes from its
// start, so framing restarted at any record boundary gives the records that
// follow it, and a read of a prefix ending at a boundary gives the records
// before it. It implements transcript.Framer's Frame for the adapters that
// embed it.
func Frame(data []byte, atEOF bool) ([]transcript.Record, int) {
	var recs []transcript.Record
	pos := rawjson.SkipSpace(data, 0)
	consumed := pos
	for pos < len(data) {
		end := -1
		switch data[pos] {
		case '{', '[':
			end = rawjson.SkipValue(data, pos)
		case '"':
			end = rawjson.SkipString(data, pos)
		default:
			if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
				end = pos + i
			}
		}
		if end < 0 {
			if !atEOF {
				break
			}
			end = len(data)
		}
		body := bytes.TrimRight(data[pos:end], " \t\r\n")
		recs = append(recs, transcript.Record{Offset: int64(pos), Data: body})
		pos = rawjson.SkipSpace(data, end)
		consumed = pos
	}
	return recs, consumed
}

// Framer is embedded by adapters whose files are one JSON document: it gives
// them Frame.
type Framer struct{}

// Frame splits data into documents (see the package function Frame).
func (Framer) Frame(data []byte, atEOF bool) ([]transcript.Record, int) { return Frame(data, atEOF) }
