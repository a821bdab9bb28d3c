package codex

import (
	"strings"

	"github.com/cortexmem/cortex/transcript/rawjson"
)

// texts returns the text of every content item of raw (an array of
// {type, text} items, or a string) whose type is one of types ("" for any
// item with a string text), and the items that are not text.
func texts(raw []byte, types ...string) (out []string, other [][]byte) {
	if s, ok := rawjson.String(raw); ok {
		return []string{s}, nil
	}
	for _, item := range rawjson.AsArray(raw) {
		o := rawjson.AsObject(item)
		t := rawjson.AsString(o.Get("type"))
		text, isText := rawjson.String(o.Get("text"))
		match := isText && (len(types) == 0 || contains(types, t))
		if match {
			out = append(out, text)
		} else {
			other = append(other, item)
		}
	}
	return out, other
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
	if s, ok := rawjson.String(raw); ok {
		return s
	}
	if rawjson.IsObject(raw) {
		o := rawjson.AsObject(raw)
		switch {
		case o.Get("text") != nil:
			return rawjson.AsString(o.Get("text"))
		case o.Get("content") != nil:
			return flatten(o.Get("content"))
		case o.Get("output") != nil:
			return flatten(o.Get("output"))
		}
		return ""
	}
	var parts []string
	for _, item := range rawjson.AsArray(raw) {
		o := rawjson.AsObject(item)
		if s, ok := rawjson.String(item); ok {
			parts = append(parts, s)
			continue
		}
		if t, ok := rawjson.String(o.Get("text")); ok {
			parts = append(parts, t)
			continue
		}
		if t := rawjson.AsString(o.Get("type")); t != "" {
			parts = append(parts, "["+t+"]")
		}
	}
	return strings.Join(parts, "\n")
}
