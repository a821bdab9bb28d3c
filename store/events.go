package store

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/memories"
)

// appendEvents adds events to the audit log at path, one JSON object a line, in
// one write, and syncs it.
func appendEvents(path string, events []memories.Event) error {
	if len(events) == 0 {
		return nil
	}
	var buf []byte
	for _, ev := range events {
		line, err := json.Marshal(ev)
		if err != nil {
			return fmt.Errorf("event log: %w", err)
		}
		buf = append(append(buf, line...), '\n')
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, atomicfile.FilePerm)
	if err != nil {
		return fmt.Errorf("event log: %w", err)
	}
	_, err = f.Write(buf)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("event log %s: %w", path, err)
	}
	return nil
}
