// Package wiring builds cortex from its settings: the vault, the store that
// keeps the vault and its index consistent, the access log, the importer and
// the memory services over them, and the transcript index of the machine.
// It is the one composition root: the CLI (and the MCP server it runs), the
// retrieval evaluation and the benchmark harness all open cortex here, so what the benchmark measures and the
// evaluation scores is what a person runs.
//
// It is the only package besides the commands that knows every other one;
// no package it imports may import it.
package wiring

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cortexmem/cortex/access"
	"github.com/cortexmem/cortex/briefing"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/importer"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/reflection"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcripts"
	"github.com/cortexmem/cortex/vault"
	"github.com/cortexmem/cortex/watch"
)

// Options say how a process uses cortex; the settings say what cortex is.
type Options struct {
	// Resident keeps the store's catalog, index and parsed notes between
	// calls: for a long-running process such as the MCP server.
	Resident bool
	// NoRebuild makes a missing or damaged index an error instead of a
	// rebuild (store.Options.NoRebuild): for the hooks, which must answer
	// within a second.
	NoRebuild bool
	// Warn receives warnings of the store and the services (a note that
	// cannot be read, an access log that cannot be written); dropped when
	// nil.
	Warn func(string)
	// UserHome is the person's home folder: import may read inside it
	// (besides the settings' allowed folders).
	UserHome string
	// NoAccessLog leaves the access log out: recall records no access and
	// reads no activation. For runs that must not change one another, such
	// as the evaluation's queries.
	NoAccessLog bool
	// Service are options of the services, applied after the settings'
	// own (a clock, an id generator, other checks).
	Service []memories.Option
}

// Cortex is cortex opened on one vault and state folder.
type Cortex struct {
	Settings *config.Settings
	Vault    *vault.Vault
	Store    *store.Store
	// Access is the access log; nil with Options.NoAccessLog.
	Access *access.Log
	// Service is the memory services, as the settings and options say.
	Service *memories.Service
	// opts are the options Service was made with.
	opts []memories.Option
}

// Open opens cortex as the settings s say. It creates the state folder when
// it is missing, but never the vault nor cortex's folder in it: the first
// note written does that. The caller checks first that the vault exists when
// it must (config.CheckVault).
func Open(s *config.Settings, o Options) (*Cortex, error) {
	v, err := vault.New(s.Vault, s.VaultFolder)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(store.Options{
		Vault: v, State: s.State(), LockTimeout: s.LockTimeout, Freshness: s.Freshness,
		Resident: o.Resident, NoRebuild: o.NoRebuild, Warn: o.Warn,
	})
	if err != nil {
		return nil, err
	}
	c := &Cortex{Settings: s, Vault: v, Store: st}
	src := &importer.Source{Options: importer.Options{
		Home: o.UserHome, AllowedRoots: s.ImportRoots, Exclude: []string{v.Dir}, Vault: v.Root, MaxFileSize: s.ImportMaxFile,
		AgentAllow: s.ImportAgentAllow, ScratchDir: s.Home,
	}}
	c.opts = []memories.Option{memories.WithRanking(s.Ranking), memories.WithChecks(s.Checks), memories.WithImporter(src)}
	if o.Warn != nil {
		c.opts = append(c.opts, memories.WithWarn(o.Warn))
	}
	if !o.NoAccessLog {
		// A resident process (the MCP server, the watcher) folds a full
		// access log aside: the recall that finds it full is not kept
		// waiting.
		c.Access = access.Open(access.Options{State: s.State(), LockTimeout: s.LockTimeout, Resident: o.Resident, CompactAside: o.Resident, Warn: o.Warn})
		c.opts = append(c.opts, memories.WithAccessLog(c.Access))
	}
	c.opts = append(c.opts, o.Service...)
	c.Service = memories.NewService(st, c.opts...)
	return c, nil
}

// NewService is another service over the same store, made as Service was and
// then changed by opts: the evaluation's baseline ranking, the benchmark's
// saves with some checks turned off.
func (c *Cortex) NewService(opts ...memories.Option) *memories.Service {
	return memories.NewService(c.Store, append(slices.Clone(c.opts), opts...)...)
}

// Briefing is context assembly (`cortex context`, MCP context_assemble) over
// svc, the memory services the caller uses, and this cortex's store and
// vault: playbooks from the vault's playbooks folder, the synthesis command
// the settings name (or claude on PATH). ex is where transcript excerpts
// come from; nil leaves them out, and the briefing says so.
func (c *Cortex) Briefing(svc *memories.Service, ex briefing.Excerpts, warn func(string)) *briefing.Service {
	b := &briefing.Service{
		Memories: svc, Notes: c.Store, Link: c.Vault.VaultPath, Warn: warn,
		Playbooks: briefing.PlaybookFolder{Dir: c.Vault.Dir, Show: c.Vault.VaultPath},
	}
	b.Excerpts = ex
	if cmd := briefing.FindCommand(c.Settings.Context.SynthesizeCommand, c.Settings.Context.SynthesizeTimeout, exec.LookPath); cmd != nil {
		b.Synthesizer = cmd
	}
	return b
}

// Reflection is the roll-up service (`cortex reflect`, MCP reflect) over
// svc, which saves reflection notes, and this cortex's store: the event
// stream is the transcripts discovery finds in env, redacted by the
// settings' pipeline.
func (c *Cortex) Reflection(svc *memories.Service, env transcript.Env) *reflection.Service {
	return &reflection.Service{
		Events: reflection.Transcripts{Env: env, Pipeline: pipeline.New(c.Settings.Pipeline...)},
		Notes:  c.Store, Saver: svc,
	}
}

// TranscriptOptions say how a process uses the transcript index.
type TranscriptOptions struct {
	// Env is where agents keep their transcripts: the person's home folder
	// and the environment that holds each tool's home override.
	Env transcript.Env
	// Freshness, when set, replaces the settings' freshness for the index's
	// quick checks (transcripts.Options.Freshness).
	Freshness time.Duration
	// Progress, when set, hears how far a long update of the index is.
	Progress func(read, total int)
}

// Transcripts is the transcript index of the settings' state folder (one per
// machine: transcripts belong to no vault, so none is opened), over every
// transcript discovery finds in o.Env, its texts redacted with the
// settings' credential rules before they are kept.
func Transcripts(s *config.Settings, o TranscriptOptions) *transcripts.Service {
	fresh := s.Freshness
	if o.Freshness > 0 {
		fresh = o.Freshness
	}
	// The credential rules are compiled when a text is first redacted: a
	// search that finds nothing new to index never needs them.
	redact := sync.OnceValue(func() func(string) string { return pipeline.New(s.Pipeline...).RedactText })
	return transcripts.New(transcripts.Options{
		Dir:         s.State().TranscriptIndexDir(),
		Selection:   scribe.Selection{All: true, Env: o.Env},
		Redact:      func(text string) string { return redact()(text) },
		LockTimeout: s.LockTimeout,
		Freshness:   fresh,
		Progress:    o.Progress,
	})
}

// TranscriptExcerpts is transcript search as the briefing's port sees it:
// the best exchange of each session for a query, in the project's sessions,
// or in every project's when the project's hold none (a cortex project need
// not be named as the folder its sessions ran in).
type TranscriptExcerpts struct {
	Search interface {
		Search(ctx context.Context, r transcripts.Request) (*transcripts.Result, error)
	}
}

var _ briefing.Excerpts = TranscriptExcerpts{}

// Excerpts searches the transcripts.
func (t TranscriptExcerpts) Excerpts(ctx context.Context, query, project string, limit int) ([]briefing.Excerpt, error) {
	res, err := t.Search.Search(ctx, transcripts.Request{Query: query, Project: project, Limit: limit})
	if err != nil {
		return nil, err
	}
	// Nothing in the project: search every project, unless the index is
	// empty (no transcripts read yet), where that finds nothing too.
	if len(res.Hits) == 0 && project != "" && res.Documents > 0 {
		if res, err = t.Search.Search(ctx, transcripts.Request{Query: query, Limit: limit, NoSync: true}); err != nil {
			return nil, err
		}
	}
	out := make([]briefing.Excerpt, 0, len(res.Hits))
	for _, h := range res.Hits {
		out = append(out, briefing.Excerpt{ID: "transcript:" + h.ID, Tool: h.Tool, Session: h.Session, Project: h.Project, Time: h.Time,
			User: h.User, Reply: h.Reply, File: h.File, Line: h.Line})
	}
	return out, nil
}

// FollowVault runs, until ctx ends, a watcher of the vault's notes (package
// watch) whose re-index tells the store when the index holds every change it
// saw, so that calls — this process's and, through the store's heartbeat,
// other processes' — skip stat'ing every note (store.Followed): for a
// long-running process such as the MCP server, whose calls should not pay
// for that check. It takes no watch lock: `cortex watch` and other servers
// run beside it, each re-index finding the index up to date when another did
// it first. When the system cannot follow the folders it says so through
// warn and stops, leaving each call to check the notes itself. The channel is
// closed once the watcher has stopped.
func (c *Cortex) FollowVault(ctx context.Context, warn func(string)) <-chan struct{} {
	st := c.Store
	ctx, stop := context.WithCancel(ctx)
	w := watch.New(watch.Options{
		Jobs: []watch.Job{{Name: "index", Dirs: []string{c.Vault.Dir},
			Run: func(ctx context.Context) error {
				_, err := st.Sync(ctx)
				return err
			},
			// After the first run, the events say which notes to look at:
			// the server's own saves need no stat of every note.
			RunChanged: func(ctx context.Context, paths []string) error {
				_, err := st.SyncChanged(ctx, paths)
				return err
			},
			Settled: st.Followed,
			// While it waits to take in the notes its events named, calls
			// look at those notes instead of stat'ing every one.
			Named: st.Named}},
		Debounce: c.Settings.Watch.Debounce, Poll: c.Settings.Watch.Poll,
		Log: func(msg string) {
			// Only what changes how calls work is worth a warning: the
			// re-index's own timings are not.
			switch {
			case strings.HasPrefix(msg, "cannot watch"):
				// Polling would stat every note in the background as well
				// as before each call: the calls' own checks are enough.
				warn("cannot follow the vault's notes, each call checks them instead: " + msg)
				stop()
			case strings.Contains(msg, " failed: "):
				warn("following the vault: " + msg)
			}
		},
	})
	done := make(chan struct{})
	// Other processes (the hooks, other commands) are told too.
	heart := make(chan struct{})
	go func() {
		defer close(heart)
		st.Heartbeat(ctx)
	}()
	st.Watching(true)
	go func() {
		defer close(done)
		defer func() { <-heart }()
		defer stop()
		defer st.Watching(false)
		if err := w.Run(ctx); err != nil {
			warn("following the vault: " + err.Error())
		}
	}()
	return done
}

// CompactLimit is how many saves a vault of notes notes takes before one
// compacts its catalog (store.CompactLimit): the benchmark harness saves
// that many to measure a session of the server that meets a compaction.
func CompactLimit(notes int) int { return store.CompactLimit(notes) }
