package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/cortexmem/cortex/memories"
)

// ContextFile is the context section of the config file.
//
//	context:
//	  synthesize_command: [claude, -p, --model, haiku]   # the command --synthesize runs (default: that one, when claude is on PATH)
//	  synthesize_timeout: 30s                            # how long it may take before the deterministic briefing is used
type ContextFile struct {
	SynthesizeCommand []string `yaml:"synthesize_command"`
	SynthesizeTimeout string   `yaml:"synthesize_timeout"`
}

// Context are the settings of context assembly.
type Context struct {
	// SynthesizeCommand is the synthesis command's argv; empty means the
	// default when it is on PATH.
	SynthesizeCommand []string
	SynthesizeTimeout time.Duration
}

// DefaultSynthesizeTimeout bounds a synthesis command.
const DefaultSynthesizeTimeout = 30 * time.Second

func contextSettings(configFile string, f ContextFile) (Context, error) {
	c := Context{SynthesizeTimeout: DefaultSynthesizeTimeout}
	for _, a := range f.SynthesizeCommand {
		if strings.TrimSpace(a) == "" {
			return c, &memories.ArgError{Arg: configFile + ": context.synthesize_command", Rule: "has an empty argument"}
		}
	}
	c.SynthesizeCommand = f.SynthesizeCommand
	var err error
	if c.SynthesizeTimeout, err = duration(configFile+": context.synthesize_timeout", f.SynthesizeTimeout, DefaultSynthesizeTimeout,
		time.Second, 10*time.Minute); err != nil {
		return c, err
	}
	return c, nil
}

// WatchFile is the watch section of the config file.
//
//	watch:
//	  debounce: 300ms        # how long the watcher waits for a burst of changes to end
//	  poll: 2s               # how often it looks when the system's watches run out
//	  transcripts: true      # read agents' transcripts into notes as they grow (scribe run --to-vault)
type WatchFile struct {
	Debounce    string `yaml:"debounce"`
	Poll        string `yaml:"poll"`
	Transcripts *bool  `yaml:"transcripts"`
}

// Watch are the watcher's settings.
type Watch struct {
	Debounce time.Duration
	Poll     time.Duration
	// Transcripts runs agents' transcripts through the pipeline into notes
	// as they grow.
	Transcripts bool
}

// Defaults of the watcher.
const (
	DefaultWatchDebounce = 300 * time.Millisecond
	DefaultWatchPoll     = 2 * time.Second
)

func watchSettings(configFile string, f WatchFile) (Watch, error) {
	w := Watch{Transcripts: f.Transcripts == nil || *f.Transcripts}
	var err error
	if w.Debounce, err = duration(configFile+": watch.debounce", f.Debounce, DefaultWatchDebounce, 10*time.Millisecond, time.Minute); err != nil {
		return w, err
	}
	if w.Poll, err = duration(configFile+": watch.poll", f.Poll, DefaultWatchPoll, 100*time.Millisecond, time.Hour); err != nil {
		return w, err
	}
	return w, nil
}

// duration reads a Go duration between lo and hi; empty is def.
func duration(arg, s string, def, lo, hi time.Duration) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < lo || d > hi {
		return 0, &memories.ArgError{Arg: arg, Rule: fmt.Sprintf("%q is not a duration from %s to %s", s, lo, hi)}
	}
	return d, nil
}
