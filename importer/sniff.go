package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// How much of a file sniffJSON reads. Exports run to hundreds of megabytes;
// what they are shows in their first element's first keys.
const (
	sniffLine   = 1 << 20  // the longest first line read as a JSON Lines record
	sniffPrefix = 64 << 10 // the prefix token-checked when the file is larger than sniffWhole
	sniffWhole  = 1 << 20  // files up to this size are checked whole
)

// sniffJSON says what JSON data holds, by its content: the MCP memory
// server's graph (JSON Lines of entities and relations), a Claude.ai or a
// ChatGPT export (an array of conversations), other JSON (an object or an
// array), or "" when it is not JSON and should be read as text. It reads a
// prefix: an export is known by its first element's keys, and a large file
// that starts as valid JSON is taken to be JSON (its parser reports where it
// breaks).
func sniffJSON(data []byte) Kind {
	data = bytes.TrimLeft(stripBOM(data), " \t\r\n")
	if len(data) == 0 {
		return ""
	}
	if isMCPRecordLine(firstLine(data)) {
		return KindMCPMemory
	}
	switch data[0] {
	case '[':
		if k := exportKind(data); k != "" {
			return k
		}
	case '{':
	default:
		return ""
	}
	if validJSONPrefix(data) {
		return KindJSON
	}
	return ""
}

// firstLine is the first line of data (which starts with no white space),
// nil when it is longer than sniffLine.
func firstLine(data []byte) []byte {
	end := bytes.IndexByte(data[:min(len(data), sniffLine+1)], '\n')
	if end < 0 {
		if len(data) > sniffLine {
			return nil
		}
		end = len(data)
	}
	return bytes.TrimRight(data[:end], " \t\r")
}

// isMCPRecordLine reports whether line is a record of the MCP memory
// server's graph: an object with "type" "entity" or "relation", or without a
// type and shaped as one (name, entityType and observations; from, to and
// relationType).
func isMCPRecordLine(line []byte) bool {
	if len(line) == 0 || line[0] != '{' {
		return false
	}
	var rec map[string]json.RawMessage
	if json.Unmarshal(line, &rec) != nil {
		return false
	}
	var typ string
	if json.Unmarshal(rec["type"], &typ) == nil && (typ == "entity" || typ == "relation") {
		return true
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := rec[k]; !ok {
				return false
			}
		}
		return true
	}
	return rec["type"] == nil && (has("name", "entityType", "observations") || has("from", "to", "relationType"))
}

// exportKind is the export an array of conversations comes from, known by
// its first element's keys, read as tokens up to the telling one: Claude.ai
// has "chat_messages" (an array), ChatGPT "mapping" (an object). It is ""
// for any other array.
func exportKind(data []byte) Kind {
	dec := json.NewDecoder(bytes.NewReader(data))
	if !isDelim(dec, '[') || !isDelim(dec, '{') {
		return ""
	}
	for {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return ""
		}
		switch {
		case key == "chat_messages" && isDelim(dec, '['):
			return KindClaudeExport
		case key == "mapping" && isDelim(dec, '{'):
			return KindChatGPTExport
		case key == "chat_messages" || key == "mapping":
			return ""
		}
		if !skipValue(dec) {
			return ""
		}
	}
}

// isDelim reads the next token and reports whether it is the delimiter d.
func isDelim(dec *json.Decoder, d json.Delim) bool {
	tok, err := dec.Token()
	return err == nil && tok == d
}

// skipValue reads the tokens of one value.
func skipValue(dec *json.Decoder) bool {
	n := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			n++
		case json.Delim('}'), json.Delim(']'):
			n--
		}
		if n <= 0 {
			return n == 0
		}
	}
}

// validJSONPrefix reports whether data is one valid JSON value, checking the
// whole of a small file and the first sniffPrefix bytes of a large one (a
// value that has not ended there is taken to go on validly).
func validJSONPrefix(data []byte) bool {
	if len(data) <= sniffWhole {
		return json.Valid(data)
	}
	dec := json.NewDecoder(bytes.NewReader(data[:sniffPrefix]))
	n := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return n > 0 && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF))
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			n++
		case json.Delim('}'), json.Delim(']'):
			n--
		}
		if n == 0 {
			// The value ended inside the prefix: only white space may follow.
			return len(bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n")) == 0
		}
	}
}
