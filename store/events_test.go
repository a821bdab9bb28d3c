package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/memories"
)

func TestAppendEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := appendEvents(path, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no events made the log: %v", err)
	}
	at := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	first := []memories.Event{
		{Time: at, Op: memories.OpSave, ID: "01a", Path: "memories/a/x.md", Title: "X"},
		{Time: at, Op: memories.OpSupersede, ID: "01b", Ref: "01a", Reason: "newer \"quoted\"\nline"},
	}
	second := []memories.Event{{Time: at.Add(time.Second), Op: memories.OpUpdate, ID: "01b"}}
	for _, evs := range [][]memories.Event{first, second} {
		if err := appendEvents(path, evs); err != nil {
			t.Fatal(err)
		}
	}
	want := `{"ts":"2024-06-01T12:00:00Z","op":"save","id":"01a","path":"memories/a/x.md","title":"X"}
{"ts":"2024-06-01T12:00:00Z","op":"supersede","id":"01b","ref":"01a","reason":"newer \"quoted\"\nline"}
{"ts":"2024-06-01T12:00:01Z","op":"update","id":"01b"}
`
	if got, err := os.ReadFile(path); err != nil || string(got) != want {
		t.Errorf("log holds %q (%v), want %q", got, err, want)
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != atomicfile.FilePerm {
			t.Errorf("log permissions %v (%v), want %v", fi.Mode().Perm(), err, atomicfile.FilePerm)
		}
	}
	if err := appendEvents(filepath.Join(t.TempDir(), "missing", "events.jsonl"), first); err == nil {
		t.Error("AppendEvents into a missing folder succeeded")
	}
}
