package scribe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/vault"
)

// File is a transcript to read and the adapter that reads it.
type File struct {
	Path    string
	Adapter transcript.Adapter
	// Final says the file is complete: a last line without a newline is a
	// record. Otherwise the tool may still be writing it, and it waits for
	// a later run (unless the file has not changed for SettleTime).
	Final bool
}

// SettleTime is how long a transcript must go unwritten before its last line,
// unterminated, counts as a whole record.
const SettleTime = 5 * time.Minute

// Runner reads transcripts through the pipeline into the vault.
type Runner struct {
	Pipeline *pipeline.Pipeline
	// Service, when set, receives the rendered notes (Mine); without it
	// Run only prepares nodes.
	Service *memories.Service
	// StateDir, when set, keeps each file's read offset (offsets.json), so
	// that a later run reads only the sessions whose files changed.
	StateDir string
	// StateKey names what the offsets are of — the vault the notes go to —
	// so that runs into another vault read everything again.
	StateKey    string
	LockTimeout time.Duration
	// DryRun decides what Mine would do and writes nothing, offsets
	// included.
	DryRun bool
	// Now is the clock (for SettleTime); time.Now when nil.
	Now func() time.Time
}

// RunResult is what a run read and made.
type RunResult struct {
	Read      []string `json:"read"`      // files read, in order
	Unchanged []string `json:"unchanged"` // files skipped: nothing new since the last run
	Events    int      `json:"events"`
	// Replayed counts events dropped as repeats of another file's (a resumed
	// or forked session's copy of its parent's records).
	Replayed int                  `json:"replayed"`
	Sessions int                  `json:"sessions"`
	Nodes    []pipeline.Node      `json:"-"`
	Mine     *memories.MineResult `json:"mine,omitempty"`
}

// OffsetsFile is the name of the offsets file in the state folder, for a
// runner's StateKey.
func OffsetsFile(key string) string {
	if key == "" {
		return "offsets.json"
	}
	sum := sha256.Sum256([]byte(key))
	return "offsets-" + hex.EncodeToString(sum[:6]) + ".json"
}

// offsets is the state a run keeps between runs: per transcript file, how far
// it was read and the sessions it holds.
type offsets struct {
	Version int                  `json:"version"`
	Files   map[string]fileState `json:"files"`
}

type fileState struct {
	Source   transcript.SourceKind `json:"source"`
	Size     int64                 `json:"size"`
	MTime    int64                 `json:"mtime_ns"`
	Offset   int64                 `json:"offset"`
	Sessions []string              `json:"sessions"`
}

const offsetsVersion = 1

// Run reads files (each session's files together: main, subagents, resumed
// copies, merged in time order), prepares their nodes and, with a Service,
// writes them to the vault as notes. With a StateDir, files unchanged since
// the last run are not read again — unless they share a session with one
// that changed — and a changed file's session is read whole, so its notes are
// rendered from everything the session holds; notes that already say it are
// not written.
func (r *Runner) Run(ctx context.Context, files []File) (*RunResult, error) {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	st := &offsets{Version: offsetsVersion, Files: map[string]fileState{}}
	var statePath string
	if r.StateDir != "" {
		if err := vault.MkdirAll(r.StateDir); err != nil {
			return nil, err
		}
		lock, err := vault.Acquire(ctx, filepath.Join(r.StateDir, "scribe.lock"), r.lockTimeout())
		if err != nil {
			return nil, err
		}
		defer lock.Release()
		statePath = filepath.Join(r.StateDir, OffsetsFile(r.StateKey))
		st = loadOffsets(statePath)
	}

	files = slices.Clone(files)
	slices.SortStableFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	files = slices.CompactFunc(files, func(a, b File) bool { return a.Path == b.Path })
	infos := make([]fs.FileInfo, len(files))
	for i, f := range files {
		fi, err := os.Stat(f.Path)
		if err != nil {
			return nil, fmt.Errorf("transcript %s: %w", f.Path, err)
		}
		infos[i] = fi
	}
	res := &RunResult{}
	changed := make([]bool, len(files))
	final := make([]bool, len(files))
	for i, f := range files {
		final[i] = f.Final || now().Sub(infos[i].ModTime()) >= SettleTime
		old, ok := st.Files[f.Path]
		changed[i] = statePath == "" || !ok || old.Source != f.Adapter.Source() || old.Size != infos[i].Size() ||
			old.MTime != infos[i].ModTime().UnixNano() || final[i] && old.Offset < old.Size
	}
	// A changed file's sessions are read whole: every file that held one
	// of them is read too.
	touched := map[string]bool{}
	for i, f := range files {
		if changed[i] {
			for _, s := range st.Files[f.Path].Sessions {
				touched[s] = true
			}
		}
	}
	type parsed struct {
		events []transcript.Event
		pos    transcript.Position
	}
	out := make([]*parsed, len(files))
	read := func(i int) error {
		data, err := os.ReadFile(files[i].Path)
		if err != nil {
			return fmt.Errorf("transcript %s: %w", files[i].Path, err)
		}
		evs, pos := transcript.ParseBytes(files[i].Adapter, files[i].Path, data, final[i])
		out[i] = &parsed{events: evs, pos: pos}
		for _, e := range evs {
			touched[string(e.Source)+"/"+e.SessionID] = true
		}
		return nil
	}
	for i := range files {
		if changed[i] {
			if err := read(i); err != nil {
				return nil, err
			}
		}
	}
	for i, f := range files {
		if out[i] != nil {
			continue
		}
		for _, s := range st.Files[f.Path].Sessions {
			if touched[s] {
				if err := read(i); err != nil {
					return nil, err
				}
				break
			}
		}
	}
	var streams [][]transcript.Event
	for i, f := range files {
		if out[i] == nil {
			res.Unchanged = append(res.Unchanged, f.Path)
			continue
		}
		res.Read = append(res.Read, f.Path)
		streams = append(streams, out[i].events)
	}
	events, replayed := pipeline.Merge(streams...)
	res.Events, res.Replayed = len(events), replayed
	p := r.Pipeline
	if p == nil {
		p = pipeline.New()
	}
	res.Nodes = p.Prepare(events)
	sessions := Sessions(events)
	Redact(sessions, p)
	res.Sessions = len(sessions)
	if r.Service != nil {
		notes := Render(res.Nodes, sessions)
		mr, err := r.Service.Mine(ctx, memories.MineRequest{Notes: notes, DryRun: r.DryRun})
		if err != nil {
			return nil, err
		}
		res.Mine = mr
	}
	if statePath == "" || r.DryRun {
		return res, nil
	}
	for i, f := range files {
		if out[i] == nil {
			continue
		}
		seen := map[string]bool{}
		var ss []string
		for _, e := range out[i].events {
			if k := string(e.Source) + "/" + e.SessionID; !seen[k] {
				seen[k] = true
				ss = append(ss, k)
			}
		}
		slices.Sort(ss)
		st.Files[f.Path] = fileState{
			Source: f.Adapter.Source(), Size: infos[i].Size(), MTime: infos[i].ModTime().UnixNano(),
			Offset: out[i].pos.Offset, Sessions: ss,
		}
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := vault.WriteFile(statePath, append(data, '\n')); err != nil {
		return nil, fmt.Errorf("save transcript offsets: %w", err)
	}
	return res, nil
}

func (r *Runner) lockTimeout() time.Duration {
	if r.LockTimeout > 0 {
		return r.LockTimeout
	}
	return 10 * time.Second
}

// loadOffsets reads the offsets file; a missing or unreadable one is an empty
// state (it is a cache: the next run reads everything, and writes nothing the
// vault already has).
func loadOffsets(path string) *offsets {
	st := &offsets{Version: offsetsVersion, Files: map[string]fileState{}}
	data, err := os.ReadFile(path)
	if err != nil {
		return st
	}
	var got offsets
	if err := json.Unmarshal(data, &got); err != nil || got.Version != offsetsVersion || got.Files == nil {
		return st
	}
	return &got
}
