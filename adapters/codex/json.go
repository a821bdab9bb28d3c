package codex

import (
	"encoding/json"
	"strings"

	"github.com/cortexmem/cortex/transcript/rawjson"
)

// Small readers of JSON values (from a record already validated) that never
// fail: a value of the wrong type reads as the zero value.

func object(raw []byte) rawjson.Object {
	o, ok := rawjson.ParseObject(raw)
	if !ok {
		return nil
	}
	return o
}

func array(raw []byte) [][]byte {
	a, _ := rawjson.ParseArray(raw)
	return a
}

func stringValue(raw []byte) (string, bool) { return rawjson.String(raw) }

func str(raw []byte) string {
	s, _ := rawjson.String(raw)
	return s
}

func boolean(raw []byte) bool { return rawjson.Bool(raw) }

func integer(raw []byte) int64 { return rawjson.Int(raw) }

// isNumber reports whether raw is a JSON number.
func isNumber(raw []byte) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

// rawValue returns a value for an event field: nil when absent or null.
func rawValue(raw []byte) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return json.RawMessage(raw)
}

// path reads a value nested in objects: dig(o, "git", "branch").
func dig(o rawjson.Object, keys ...string) []byte {
	var v []byte
	for i, k := range keys {
		if i > 0 {
			o = object(v)
		}
		v = o.Get(k)
		if v == nil {
			return nil
		}
	}
	return v
}

// texts returns the text of every content item of raw (an array of
// {type, text} items, or a string) whose type is one of types ("" for any
// item with a string text), and the items that are not text.
func texts(raw []byte, types ...string) (out []string, other [][]byte) {
	if s, ok := stringValue(raw); ok {
		return []string{s}, nil
	}
	for _, item := range array(raw) {
		o := object(item)
		t := str(o.Get("type"))
		text, isText := stringValue(o.Get("text"))
		match := isText && (len(types) == 0 || contains(types, t))
		if match {
			out = append(out, text)
		} else {
			other = append(other, item)
		}
	}
	return out, other
}

// stringsOf reads an array of strings (other elements are skipped).
func stringsOf(raw []byte) []string {
	var out []string
	for _, v := range array(raw) {
		if s, ok := stringValue(v); ok {
			out = append(out, s)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// flatten turns a tool output (a string, content items, or an object with a
// text or content) into text.
func flatten(raw []byte) string {
	if s, ok := stringValue(raw); ok {
		return s
	}
	if rawjson.IsObject(raw) {
		o := object(raw)
		switch {
		case o.Get("text") != nil:
			return str(o.Get("text"))
		case o.Get("content") != nil:
			return flatten(o.Get("content"))
		case o.Get("output") != nil:
			return flatten(o.Get("output"))
		}
		return ""
	}
	var parts []string
	for _, item := range array(raw) {
		o := object(item)
		if s, ok := stringValue(item); ok {
			parts = append(parts, s)
			continue
		}
		if t, ok := stringValue(o.Get("text")); ok {
			parts = append(parts, t)
			continue
		}
		if t := str(o.Get("type")); t != "" {
			parts = append(parts, "["+t+"]")
		}
	}
	return strings.Join(parts, "\n")
}
