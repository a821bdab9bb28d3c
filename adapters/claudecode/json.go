package claudecode

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

// rawValue returns a value for an event field: nil when absent.
func rawValue(raw []byte) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	return json.RawMessage(raw)
}

// flatten turns a tool result's content (a string, or text and image blocks)
// into text.
func flatten(raw []byte) string {
	if s, ok := stringValue(raw); ok {
		return s
	}
	var parts []string
	for _, b := range array(raw) {
		o := object(b)
		switch t := str(o.Get("type")); t {
		case "text":
			parts = append(parts, str(o.Get("text")))
		case "":
		default:
			parts = append(parts, "["+t+"]")
		}
	}
	return strings.Join(parts, "\n")
}
