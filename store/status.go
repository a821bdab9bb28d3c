package store

import (
	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
)

var _ memories.UnreadableCounter = (*snapshot)(nil)

// Unreadable counts the notes of the snapshot that cannot be read (status
// reports it; doctor lists them).
func (sn *snapshot) Unreadable() (int, error) {
	n := 0
	err := sn.cat.Records(func(r *index.Record) error {
		if r.Broken != "" {
			n++
		}
		return nil
	})
	return n, err
}
