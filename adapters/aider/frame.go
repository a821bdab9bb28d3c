package aider

import (
	"bytes"

	"github.com/cortexmem/cortex/transcript"
)

// The kinds of records a chat history frames.
const (
	recHeader    = 'h' // "# aider chat started at …"
	recTool      = 't' // "> " lines: aider's own output
	recUser      = 'u' // "#### " lines: what the person typed
	recAssistant = 'a' // anything else: the model's reply
)

// headerPrefix opens every session of a chat history.
const headerPrefix = "# aider chat started at "

// Frame splits a chat history into records: session headers, runs of
// aider's output messages, runs of the person's lines, and the model's
// replies (see package doc). Blank lines between records are not records.
// A record ends where the next begins, or at the end of data: without
// atEOF a last line with no newline yet, a tool message whose last line has
// not come, and a reply inside an open code fence are left for later.
// Framing needs no state: a record boundary is a place where framing can
// start afresh, so a read stopped at one and resumed gives the records of
// one read.
func (a *Adapter) Frame(data []byte, atEOF bool) ([]transcript.Record, int) {
	var recs []transcript.Record
	pos := 0
	consumed := 0
	for pos < len(data) {
		line, next, complete := lineAt(data, pos)
		if !complete && !atEOF {
			break
		}
		if isBlank(line) {
			pos = next
			consumed = pos
			continue
		}
		end, ok := recordEnd(data, pos, atEOF)
		if !ok {
			break
		}
		if body := trimBlankLines(data[pos:end]); len(body) > 0 {
			recs = append(recs, transcript.Record{Offset: int64(pos), Data: body})
		}
		pos = end
		consumed = pos
	}
	return recs, consumed
}

// lineAt returns the line at pos without its newline, where the next line
// starts, and whether the line has its newline.
func lineAt(data []byte, pos int) ([]byte, int, bool) {
	i := bytes.IndexByte(data[pos:], '\n')
	if i < 0 {
		return data[pos:], len(data), false
	}
	return data[pos : pos+i], pos + i + 1, true
}

func isBlank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

// trimBlankLines drops b's trailing newline and the blank lines before it;
// the last line keeps its trailing spaces (aider's line breaks).
func trimBlankLines(b []byte) []byte {
	for {
		b = bytes.TrimRight(b, "\r\n")
		i := bytes.LastIndexByte(b, '\n')
		if !isBlank(b[i+1:]) {
			return b
		}
		if i < 0 {
			return b[:0]
		}
		b = b[:i]
	}
}

// endsLine reports whether line (without its newline) ends a message aider
// wrote: aider strips a message's trailing white space and adds the two
// spaces of a markdown hard break, so the line has text and then exactly
// those — or is a first line of nothing but its prefix ("> " or "#### ")
// and the two spaces (an empty message). A line of white space alone inside
// a message (an indented blank line of code) ends nothing.
func endsLine(line []byte) bool {
	l := bytes.TrimRight(line, "\r")
	if !bytes.HasSuffix(l, []byte("  ")) {
		return false
	}
	body := bytes.TrimSpace(l)
	return len(body) > 0 && !bytes.Equal(body, []byte(">")) || bytes.Equal(body, []byte(">")) && l[0] == '>' || bytes.Equal(body, []byte("####"))
}

func isHeader(line []byte) bool { return bytes.HasPrefix(line, []byte(headerPrefix)) }
func isTool(line []byte) bool   { return len(line) > 0 && line[0] == '>' }
func isUser(line []byte) bool {
	l := bytes.TrimRight(line, "\r")
	return bytes.HasPrefix(l, []byte("#### ")) || bytes.Equal(bytes.TrimRight(l, " "), []byte("####"))
}

// kindAt is the kind of the record that starts with line.
func kindAt(line []byte) byte {
	switch {
	case isHeader(line):
		return recHeader
	case isTool(line):
		return recTool
	case isUser(line):
		return recUser
	}
	return recAssistant
}

// recordEnd returns where the record starting at pos ends (the start of the
// line after its last), and false when it may not be complete yet.
func recordEnd(data []byte, pos int, atEOF bool) (int, bool) {
	line, next, _ := lineAt(data, pos)
	switch kindAt(line) {
	case recHeader:
		return next, true
	case recTool:
		// Messages, one after the other: each from its "> " line to the
		// line that ends with aider's two spaces (a message with line
		// breaks has "> " on its first line only).
		end := pos
		for p := pos; p < len(data); {
			l, n, complete := lineAt(data, p)
			if !isTool(l) {
				break
			}
			for {
				if !complete && !atEOF {
					return 0, false
				}
				if endsLine(l) || n >= len(data) {
					break
				}
				nl, nn, nc := lineAt(data, n)
				if isHeader(nl) {
					break
				}
				l, n, complete = nl, nn, nc
			}
			end, p = n, n
		}
		return end, true
	case recUser:
		end := pos
		for p := pos; p < len(data); {
			l, n, complete := lineAt(data, p)
			if !isUser(l) {
				break
			}
			if !complete && !atEOF {
				return 0, false
			}
			end, p = n, n
		}
		return end, true
	}
	// The model's reply: until a header, a message of aider's, or the
	// person's line that ends with two spaces, outside code fences (a
	// header ends it anywhere).
	fence := []byte(nil)
	end := pos
	blanks := 0 // blank lines just before the current one
	for p := pos; p < len(data); {
		l, n, complete := lineAt(data, p)
		if !complete && !atEOF {
			return 0, false
		}
		if p > pos {
			if isHeader(l) {
				break
			}
			if fence == nil && (isTool(l) && endsLine(l) || isUser(l) && endsLine(l)) {
				break
			}
			if fence != nil && interrupted(l, blanks) {
				break
			}
		}
		if isBlank(l) {
			blanks++
		} else {
			blanks = 0
		}
		if f := fenceOf(l); f != nil {
			switch {
			case fence == nil:
				fence = f
			case bytes.Equal(bytes.TrimSpace(bytes.TrimRight(l, "\r")), fence):
				fence = nil
			}
		}
		end, p = n, n
	}
	return end, true
}

// fenceOf returns the backticks that open or close a code fence on line,
// nil when it is not a fence line.
func fenceOf(line []byte) []byte {
	l := bytes.TrimLeft(line, " ")
	n := 0
	for n < len(l) && l[n] == '`' {
		n++
	}
	if n < 3 {
		return nil
	}
	return l[:n]
}

// interrupted reports whether line, inside a code fence of a reply, is
// where aider went on after the reply was cut off (the person pressed
// Ctrl-C while the model wrote code, and the fence was never closed): the
// person's next line after the two blank lines aider leaves (the reply's
// "\n\n" and the prompt's leading "\n"), or aider's own interrupt and
// token messages after a blank line.
func interrupted(line []byte, blanks int) bool {
	if !endsLine(line) {
		return false
	}
	switch {
	case isUser(line):
		return blanks >= 2
	case isTool(line):
		return blanks >= 1 && (bytes.HasPrefix(line, []byte("> ^C")) || bytes.HasPrefix(line, []byte("> Tokens: ")))
	}
	return false
}
