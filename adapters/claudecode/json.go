package claudecode

import (
	"strings"

	"github.com/cortexmem/cortex/transcript/rawjson"
)

// flatten turns a tool result's content (a string, or text and image blocks)
// into text.
func flatten(raw []byte) string {
	if s, ok := rawjson.String(raw); ok {
		return s
	}
	var parts []string
	for _, b := range rawjson.AsArray(raw) {
		o := rawjson.AsObject(b)
		switch t := rawjson.AsString(o.Get("type")); t {
		case "text":
			parts = append(parts, rawjson.AsString(o.Get("text")))
		case "":
		default:
			parts = append(parts, "["+t+"]")
		}
	}
	return strings.Join(parts, "\n")
}
