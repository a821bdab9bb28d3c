package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cortexmem/cortex/memories"
)

// maxJSONDepth is how deeply an element may nest: deeper ones are skipped
// rather than decoded (the decoder itself stops at 10,000 levels, which
// fails the whole file).
const maxJSONDepth = 100

// The fields of a JSON element that parseJSON reads, first found first.
var (
	jsonTitleKeys   = []string{"title", "name", "subject", "summary", "key"}
	jsonContentKeys = []string{"content", "text", "body", "note", "value", "description", "observations", "observation"}
	jsonTagKeys     = []string{"tags", "labels"}
	jsonTimeKeys    = []string{"created", "created_at", "date", "timestamp"}
)

// parseJSON reads a JSON object as one memory and a JSON array as one memory
// an element. An array broken halfway gives the elements before the break
// and a skip saying where it broke.
func parseJSON(path string, data []byte) ([]Item, []Skip) {
	data = stripBOM(data)
	name := fileTitle(path)
	switch firstByte(data) {
	case 0:
		return nil, []Skip{{Source: path, Reason: "empty"}}
	case '{':
		var raw json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			return nil, []Skip{{Source: path, Reason: jsonReason(data, err)}}
		}
		return jsonItems(raw, path, name)
	case '[':
		elems, bad := jsonArray(data)
		var items []Item
		var skips []Skip
		for i, raw := range elems {
			is, ss := jsonItems(raw, fmt.Sprintf("%s#%d", path, i+1), fmt.Sprintf("%s #%d", name, i+1))
			items = append(items, is...)
			skips = append(skips, ss...)
		}
		if bad != "" {
			skips = append(skips, Skip{Source: path, Reason: bad})
		} else if len(elems) == 0 {
			skips = append(skips, Skip{Source: path, Reason: "an empty array"})
		}
		return items, skips
	}
	if !json.Valid(data) {
		var v any
		return nil, []Skip{{Source: path, Reason: jsonReason(data, json.Unmarshal(data, &v))}}
	}
	return nil, []Skip{{Source: path, Reason: "not a JSON object or array"}}
}

// jsonItems makes the items of one JSON value.
func jsonItems(raw json.RawMessage, source, fallbackTitle string) ([]Item, []Skip) {
	if d := depth(raw); d > maxJSONDepth {
		return nil, []Skip{{Source: source, Reason: fmt.Sprintf("nested %d levels deep; at most %d are read", d, maxJSONDepth)}}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers too large for a float64 stay as written
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, []Skip{{Source: source, Reason: jsonReason(raw, err)}}
	}
	it := Item{Source: source, Kind: KindJSON}
	var content string
	var found bool
	if obj, ok := v.(map[string]any); ok {
		if s, ok := field(obj, jsonTitleKeys).(string); ok {
			it.Title = titleOf(s, titleMax)
		}
		for _, k := range jsonContentKeys {
			if content, found = contentOf(field(obj, []string{k})); found {
				break
			}
		}
		it.Tags = tagsOf(stringsOf(field(obj, jsonTagKeys)))
		it.Created = timeOf(field(obj, jsonTimeKeys))
		if s, ok := field(obj, []string{"type"}).(string); ok && strings.TrimSpace(s) != "" {
			if t, err := memories.ParseType(s); err == nil {
				it.Type = t
			}
		}
	} else if s, ok := v.(string); ok {
		content, found = cleanText(s), true
	}
	// Letters and digits are counted in what the element says, not in the
	// fence put around it.
	n := meaningful(content)
	if !found {
		var b bytes.Buffer
		if err := json.Indent(&b, raw, "", "  "); err != nil {
			return nil, []Skip{{Source: source, Reason: jsonReason(raw, err)}}
		}
		text := cleanText(b.String())
		n = meaningful(text)
		content = fenced("json", text)
	}
	if it.Title == "" {
		it.Title = fallbackTitle
	}
	if n < MinSectionChars {
		return nil, []Skip{{Source: source, Reason: tooShort(n)}}
	}
	return split(it, content)
}

// field is the value of the first of keys in obj: an exact key first, else
// one that differs only in case ("Title"), the first in sorted order.
func field(obj map[string]any, keys []string) any {
	for _, k := range keys {
		if v, ok := obj[k]; ok && v != nil {
			return v
		}
		var names []string
		for name := range obj {
			if strings.EqualFold(name, k) {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			if v := obj[name]; v != nil {
				return v
			}
		}
	}
	return nil
}

// contentOf is the text of a content field: a string as it is, a list as a
// markdown list, a number or boolean as written, an object as a JSON block.
// It reports whether there was something to say.
func contentOf(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		s := cleanText(v)
		return s, s != ""
	case json.Number:
		return v.String(), true
	case bool:
		return strconv.FormatBool(v), true
	case []any:
		var lines []string
		for _, e := range v {
			s, ok := "", false
			if obj, isObj := e.(map[string]any); isObj {
				s = compactJSON(obj)
				ok = len(obj) > 0
			} else {
				s, ok = contentOf(e)
			}
			if ok {
				lines = append(lines, listItem(s))
			}
		}
		return strings.Join(lines, "\n"), len(lines) > 0
	case map[string]any:
		if len(v) == 0 {
			return "", false
		}
		b, err := marshalIndent(v)
		if err != nil {
			return "", false
		}
		return fenced("json", cleanText(string(b))), true
	}
	return "", false
}

// listItem is s as a markdown list item, its later lines indented under it.
func listItem(s string) string {
	return "- " + strings.ReplaceAll(s, "\n", "\n  ")
}

func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return cleanText(b.String())
}

func marshalIndent(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return b.Bytes(), err
}

// fenced puts text in a fenced code block whose fence is longer than any run
// of backticks inside, so that the text cannot close it.
func fenced(lang, text string) string {
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + lang + "\n" + text + "\n" + fence
}

// stringsOf is the strings of a tags field: a list of strings, or one string
// of comma-separated names.
func stringsOf(v any) []string {
	switch v := v.(type) {
	case string:
		return strings.Split(v, ",")
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// timeOf reads a date: RFC 3339 (or its date, or its date and time without a
// zone, taken as UTC) or Unix seconds, as a number or a string of digits.
// Anything else, or a time before 1970 or after 9999, is no date.
func timeOf(v any) time.Time {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return time.Time{}
		}
		return unixTime(f)
	case string:
		s := strings.TrimSpace(v)
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return unixTime(f)
		}
		for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
			if t, err := time.Parse(layout, s); err == nil {
				return t.UTC()
			}
		}
	}
	return time.Time{}
}

// unixTime is the time of f Unix seconds, to the microsecond (a float64 holds
// no more). Values too large to be seconds are taken as milliseconds, which
// some tools write.
func unixTime(f float64) time.Time {
	if f >= 1e11 {
		f /= 1000
	}
	if !(f > 0 && f < 253402300800) { // 9999-12-31T23:59:59Z and NaN
		return time.Time{}
	}
	sec := math.Floor(f)
	usec := math.Round((f - sec) * 1e6)
	return time.Unix(int64(sec), int64(usec)*1000).UTC()
}

// fileTitle is the title of what has no title of its own: its file name
// without the extension.
func fileTitle(path string) string {
	base := filepath.Base(path)
	if ext := filepath.Ext(base); ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	if t := titleOf(base, titleMax-10); t != "" && t != "." && t != string(filepath.Separator) {
		return t
	}
	return "JSON"
}

// firstByte is the first byte of data that is not JSON white space, 0 when
// there is none.
func firstByte(data []byte) byte {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// jsonArray decodes the elements of the JSON array in data one at a time, so
// that a broken (or truncated) array still gives the elements before the
// break; bad is why it broke, "" when it did not.
func jsonArray(data []byte) (elems []json.RawMessage, bad string) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // [
		return nil, invalidJSON(data)
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return elems, invalidJSON(data)
		}
		elems = append(elems, raw)
	}
	if _, err := dec.Token(); err != nil { // ]
		return elems, invalidJSON(data)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		end += int64(len(data[end:]) - len(bytes.TrimLeft(data[end:], " \t\r\n")))
		return elems, fmt.Sprintf("invalid JSON at %s: more data after the array", position(data, end))
	}
	return elems, ""
}

// invalidJSON says why data, which a decoder failed to read, is not JSON.
// The whole is scanned again: the scanner's messages and offsets are those
// of json.Unmarshal, which the stream decoder's are not.
func invalidJSON(data []byte) string {
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return jsonReason(data, err)
	}
	return "invalid JSON"
}

// jsonReason says why data is not JSON, and where: the decoder's message with
// the line and column of the character it stopped at.
func jsonReason(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := se.Offset - 1 // the offset is of the byte after the bad one
		if se.Offset == 0 || strings.HasPrefix(se.Error(), "unexpected end") {
			off = se.Offset
		}
		return fmt.Sprintf("invalid JSON at %s: %s", position(data, off), se.Error())
	}
	return "invalid JSON: " + err.Error()
}

// position is "line L, column C" (counted in characters, from 1) of the byte
// offset off of data.
func position(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := 1 + bytes.Count(before, []byte("\n"))
	col := 1 + utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:])
	return fmt.Sprintf("line %d, column %d", line, col)
}

// depth is how deeply the JSON value raw nests, counted without recursion.
func depth(raw []byte) int {
	d, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}
