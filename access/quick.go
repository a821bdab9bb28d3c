package access

import (
	"bytes"
	"time"
)

// A session start reads the lines past the cache — up to
// Options.CacheAbove bytes, hundreds of lines — and the JSON decoder took
// most of that time. quickLine and quickHeader read the lines in the form
// this package writes them, exactly, and say when a line is in any other;
// the decoder reads those. They give what the decoder gives (FuzzQuickLine).

// quickLine reads a line as Record and compact write it:
// {"id":"…","ts":"…","source":"…"}, with ,"n":N before the brace for a
// compacted count. Strings must be printable ASCII without escapes and the
// time in RFC 3339 form in UTC, so that they read as the decoder reads them.
func quickLine(ln []byte) (line, bool) {
	var e line
	rest, ok := bytes.CutPrefix(ln, []byte(`{"id":"`))
	if !ok {
		return e, false
	}
	id, rest, ok := quickString(rest)
	if !ok {
		return e, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"ts":"`)); !ok {
		return e, false
	}
	ts, rest, ok := quickString(rest)
	if !ok {
		return e, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"source":"`)); !ok {
		return e, false
	}
	src, rest, ok := quickString(rest)
	if !ok {
		return e, false
	}
	n := 0
	if num, ok := bytes.CutPrefix(rest, []byte(`,"n":`)); ok {
		// A count: 1 to 9 digits, no leading zero (the decoder refuses one).
		i := 0
		for i < len(num) && i < 10 && num[i] >= '0' && num[i] <= '9' {
			n = n*10 + int(num[i]-'0')
			i++
		}
		if i == 0 || i > 9 || num[0] == '0' && i > 1 {
			return e, false
		}
		rest = num[i:]
	}
	if string(rest) != "}" {
		return e, false
	}
	t, ok := quickTime(ts)
	if !ok {
		return e, false
	}
	e.ID, e.Time, e.Source, e.N = string(id), t, string(src), n
	return e, true
}

// quickHeader reads a header line as this package writes it:
// {"log":"<token>"} with a token of tokenLen printable characters.
func quickHeader(ln []byte) (string, bool) {
	ln = bytes.TrimSuffix(ln, []byte("\n"))
	rest, ok := bytes.CutPrefix(ln, []byte(`{"log":"`))
	if !ok {
		return "", false
	}
	tok, rest, ok := quickString(rest)
	if !ok || string(rest) != "}" || len(tok) != tokenLen {
		return "", false
	}
	return string(tok), true
}

// quickString reads a JSON string's content up to its closing quote, when it
// is printable ASCII with no escape, and what follows the quote.
func quickString(b []byte) (s, rest []byte, ok bool) {
	for i, c := range b {
		switch {
		case c == '"':
			return b[:i], b[i+1:], true
		case c < 0x20 || c >= 0x7f || c == '\\':
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// quickTime parses a time as a time.Time is written in JSON in UTC:
// 2006-01-02T15:04:05Z with up to nine digits of fraction before the Z.
func quickTime(b []byte) (time.Time, bool) {
	const shape = "0000-00-00T00:00:00"
	if len(b) < len(shape)+1 || len(b) > len(shape)+11 || b[len(b)-1] != 'Z' {
		return time.Time{}, false
	}
	for i := range len(shape) {
		if shape[i] == '0' && (b[i] < '0' || b[i] > '9') || shape[i] != '0' && b[i] != shape[i] {
			return time.Time{}, false
		}
	}
	frac := b[len(shape) : len(b)-1]
	if len(frac) > 0 {
		if len(frac) < 2 || frac[0] != '.' {
			return time.Time{}, false
		}
		for _, c := range frac[1:] {
			if c < '0' || c > '9' {
				return time.Time{}, false
			}
		}
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}
