package scribe

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/transcript"
)

// File is a transcript to read and the adapter that reads it.
type File struct {
	Path string
	// Adapter reads the file; when nil, the one that recognises the
	// file's first records does.
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
	// State, when its Home is set, is the state folder that keeps each
	// file's read offset (where, config.State says), so that a later run
	// reads only the sessions whose files changed.
	State config.State
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
	// Unreadable are the databases that could not be read this time (busy
	// while copied, or damaged), with the reason: a later run tries again.
	Unreadable []transcript.Skip `json:"unreadable,omitempty"`
	Events     int               `json:"events"`
	// Replayed counts events dropped as repeats of another file's (a resumed
	// or forked session's copy of its parent's records).
	Replayed int                  `json:"replayed"`
	Sessions int                  `json:"sessions"`
	Nodes    []pipeline.Node      `json:"-"`
	Mine     *memories.MineResult `json:"mine,omitempty"`
}

// Run reads files (each session's files together: main, subagents, resumed
// copies, merged in time order), prepares their nodes and, with a Service,
// writes them to the vault as notes. With a State, files unchanged since
// the last run are not read again — unless they share a session with one
// that changed — and a changed file's session is read whole, so its notes are
// rendered from everything the session holds; notes that already say it are
// not written.
//
// Its stages, in order: the state is locked and loaded (openState); the
// files are stat'd (statFiles) and those changed since the last run marked
// (markChanged); they and the files sharing a session with them are read
// (readSessions) and their events merged (mergeRead); the pipeline makes
// nodes and sessions of them (Prepare), which go to the vault as notes
// (MineToVault); last, the offsets of what was read are recorded
// (recordOffsets).
func (r *Runner) Run(ctx context.Context, files []File) (*RunResult, error) {
	st, err := openState(ctx, r.State, r.StateKey, r.lockTimeout())
	if err != nil {
		return nil, err
	}
	defer st.release()
	rfs, err := statFiles(files)
	if err != nil {
		return nil, err
	}
	markChanged(rfs, st, r.now())
	if err := readSessions(rfs, st.offsets); err != nil {
		return nil, err
	}
	res := &RunResult{}
	prep := Prepare(r.pipeline(), mergeRead(rfs, res))
	res.Nodes, res.Sessions = prep.Nodes, len(prep.Sessions)
	if r.Service != nil {
		mr, err := MineToVault(ctx, r.Service, prep, r.DryRun)
		if err != nil {
			return nil, err
		}
		res.Mine = mr
	}
	if !st.kept() || r.DryRun {
		return res, nil
	}
	recordOffsets(rfs, st.offsets)
	if err := st.save(); err != nil {
		return nil, err
	}
	return res, nil
}

func (r *Runner) lockTimeout() time.Duration {
	if r.LockTimeout > 0 {
		return r.LockTimeout
	}
	return 10 * time.Second
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) pipeline() *pipeline.Pipeline {
	if r.Pipeline != nil {
		return r.Pipeline
	}
	return pipeline.New()
}

// runFile is one file of a run and what the run learns of it.
type runFile struct {
	File
	info fs.FileInfo
	// changed says the file is not as the last run left it (or no state
	// is kept): it is read.
	changed bool
	// final says its last line counts even without a newline: the file
	// is complete or has settled.
	final bool
	// read says it was read, into events up to pos.
	read   bool
	events []transcript.Event
	pos    transcript.Position
	// unreadable says why a database could not be read this run.
	unreadable string
}

// statFiles orders files by path, drops repeats, and stats each: a file that
// is gone is an error, as is one whose tool cannot be told.
func statFiles(files []File) ([]runFile, error) {
	files = slices.Clone(files)
	slices.SortStableFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	files = slices.CompactFunc(files, func(a, b File) bool { return a.Path == b.Path })
	out := make([]runFile, len(files))
	for i, f := range files {
		fi, err := os.Stat(f.Path)
		if err != nil {
			return nil, fmt.Errorf("transcript %s: %w", f.Path, err)
		}
		if f.Adapter == nil {
			t, err := f.Open()
			if err != nil {
				return nil, err
			}
			f.Adapter = t.Adapter
			t.Close()
		}
		if l, ok := f.Adapter.(transcript.Loader); ok {
			// A database changes in its write-ahead log long before
			// its own file does.
			size, mtime, err := l.Stat(f.Path)
			if err != nil {
				return nil, fmt.Errorf("transcript %s: %w", f.Path, err)
			}
			fi = loadedInfo{fi, size, mtime}
		}
		out[i] = runFile{File: f, info: fi}
	}
	return out, nil
}

// loadedInfo is a file's information with the size and time of what its
// Loader reads (a database with its write-ahead log).
type loadedInfo struct {
	fs.FileInfo
	size  int64
	mtime time.Time
}

func (i loadedInfo) Size() int64        { return i.size }
func (i loadedInfo) ModTime() time.Time { return i.mtime }

// markChanged marks the files whose size, time or tool differ from what
// the offsets say (every file when no state is kept), and those that became
// final since they were read short of their end.
func markChanged(files []runFile, st *runState, now time.Time) {
	for i := range files {
		f := &files[i]
		f.final = f.Final || now.Sub(f.info.ModTime()) >= SettleTime
		old, ok := st.offsets.Files[f.Path]
		f.changed = !st.kept() || !ok || old.Source != f.Adapter.Source() || old.Size != f.info.Size() ||
			old.MTime != f.info.ModTime().UnixNano() || f.final && old.Offset < old.Size
	}
}

// readSessions reads the changed files and, so that a changed session is
// read whole, every other file that held one of their sessions last time or
// holds one of the sessions read now.
func readSessions(files []runFile, st *offsets) error {
	touched := map[string]bool{}
	for _, f := range files {
		if f.changed {
			for _, s := range st.Files[f.Path].Sessions {
				touched[s] = true
			}
		}
	}
	for i := range files {
		if files[i].changed {
			if err := files[i].parse(touched); err != nil {
				return err
			}
		}
	}
	for i := range files {
		f := &files[i]
		if f.read {
			continue
		}
		if slices.ContainsFunc(st.Files[f.Path].Sessions, func(s string) bool { return touched[s] }) {
			if err := f.parse(touched); err != nil {
				return err
			}
		}
	}
	return nil
}

// parse reads the file's events and marks their sessions touched. A
// database a Loader could not read now is left unread, with the reason
// (unreadable): the run goes on without it.
func (f *runFile) parse(touched map[string]bool) error {
	var data []byte
	var err error
	if l, ok := f.Adapter.(transcript.Loader); ok {
		if data, err = l.Load(f.Path, transcript.Start(f.Adapter, f.Path).Context); err != nil {
			f.unreadable = err.Error()
			return nil
		}
	} else if data, err = os.ReadFile(f.Path); err != nil {
		return fmt.Errorf("transcript %s: %w", f.Path, err)
	}
	f.events, f.pos = transcript.ParseBytes(f.Adapter, f.Path, data, f.final)
	f.read = true
	for _, e := range f.events {
		touched[sessionOf(&e)] = true
	}
	return nil
}

// sessionOf is the key of an event's session in the offsets.
func sessionOf(e *transcript.Event) string {
	return string(e.Source) + "/" + e.SessionID
}

// mergeRead lists in res the files read and those left unchanged, and
// merges the events of those read into one stream (pipeline.Merge: time
// order, a resumed session's repeats of its parent dropped).
func mergeRead(files []runFile, res *RunResult) []transcript.Event {
	var streams [][]transcript.Event
	for _, f := range files {
		if f.unreadable != "" {
			res.Unreadable = append(res.Unreadable, transcript.Skip{Path: f.Path, Reason: f.unreadable})
			continue
		}
		if !f.read {
			res.Unchanged = append(res.Unchanged, f.Path)
			continue
		}
		res.Read = append(res.Read, f.Path)
		streams = append(streams, f.events)
	}
	events, replayed := pipeline.Merge(streams...)
	res.Events, res.Replayed = len(events), replayed
	return events
}

// Prepared is what the pipeline made of a stream of events.
type Prepared struct {
	Nodes []pipeline.Node
	// Sessions are the sessions the events hold, redacted as the nodes
	// are.
	Sessions []Session
}

// Prepare runs the pipeline over events (merged, as Run merges a session's
// files) and reads their sessions.
func Prepare(p *pipeline.Pipeline, events []transcript.Event) Prepared {
	nodes := p.Prepare(events)
	sessions := Sessions(events)
	Redact(sessions, p)
	return Prepared{Nodes: nodes, Sessions: sessions}
}

// Miner writes notes into the vault: memories.Service.
type Miner interface {
	Mine(ctx context.Context, req memories.MineRequest) (*memories.MineResult, error)
}

// MineToVault renders what Prepare made as session, decision and episode
// notes and has m write them (idempotently: a note that already says it is
// not written, one the person edited is kept); with dryRun it says what it
// would do and writes nothing.
func MineToVault(ctx context.Context, m Miner, prep Prepared, dryRun bool) (*memories.MineResult, error) {
	return m.Mine(ctx, memories.MineRequest{Notes: Render(prep.Nodes, prep.Sessions), DryRun: dryRun})
}

// recordOffsets sets, for every file read, how far it was read and the
// sessions it holds (sorted), for the next run to compare with.
func recordOffsets(files []runFile, st *offsets) {
	for _, f := range files {
		if !f.read {
			continue
		}
		seen := map[string]bool{}
		var ss []string
		for i := range f.events {
			if k := sessionOf(&f.events[i]); !seen[k] {
				seen[k] = true
				ss = append(ss, k)
			}
		}
		slices.Sort(ss)
		offset := f.pos.Offset
		if _, ok := f.Adapter.(transcript.Loader); ok {
			// Its offset is in what Load gave, not in the file: it was
			// read whole.
			offset = f.info.Size()
		}
		st.Files[f.Path] = fileState{
			Source: f.Adapter.Source(), Size: f.info.Size(), MTime: f.info.ModTime().UnixNano(),
			Offset: offset, Sessions: ss,
		}
	}
}
