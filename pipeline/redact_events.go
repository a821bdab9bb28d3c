package pipeline

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/cortexmem/cortex/transcript"
)

// structuralKeys are the event fields StripEvent keeps: what identifies an
// event and places it, never what anyone wrote.
var structuralKeys = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"schema_version": true, "source": true, "session_id": true, "agent_id": true, "seq": true,
		"event_id": true, "parent_id": true, "replaces": true, "timestamp": true, "kind": true,
		"file": true, "pointer": true, "call_id": true, "tool": true, "name": true, "op": true,
		"from": true, "trigger": true, "meta": true, "raw_type": true, "reason": true, "type": true,
		"message_id": true, "stop_reason": true, "model": true, "tool_version": true, "status": true,
	}
})

// RedactEvent rewrites every string of an event — its texts, tool inputs
// and outputs, diffs, raw records of unknown types, project — with r; with
// noContent, every string but the structural ones (ids, kinds, times, tool
// names, …) is emptied instead, and the numbers and flags are kept. A record
// kept as raw JSON stays JSON. It is how a transcript is shared without what
// it must not show.
func RedactEvent(e *transcript.Event, r Redactor, noContent bool) error {
	if r == nil && !noContent {
		return nil
	}
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	var tree any
	if err := json.Unmarshal(data, &tree); err != nil {
		return err
	}
	tree = rewriteStrings(tree, "", func(key, s string) string {
		if noContent {
			if structuralKeys()[key] {
				return s
			}
			return ""
		}
		return r.Redact(s)
	})
	data, err = json.Marshal(tree)
	if err != nil {
		return err
	}
	var out transcript.Event
	if err := json.Unmarshal(data, &out); err != nil {
		return fmt.Errorf("redact event %s: %w", e.EventID, err)
	}
	*e = out
	return nil
}

// rewriteStrings applies fn to every string of a decoded JSON tree; key is
// the object key the string is under (that of the nearest object, for
// strings in arrays).
func rewriteStrings(v any, key string, fn func(key, s string) string) any {
	switch x := v.(type) {
	case string:
		return fn(key, x)
	case []any:
		for i := range x {
			x[i] = rewriteStrings(x[i], key, fn)
		}
	case map[string]any:
		for k, val := range x {
			x[k] = rewriteStrings(val, k, fn)
		}
	}
	return v
}
