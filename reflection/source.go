package reflection

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

// Transcripts reads the event stream from the transcripts discovery finds
// (every supported tool's folders, or those their override variables name),
// redacted as the pipeline redacts them.
type Transcripts struct {
	Env transcript.Env
	// Pipeline redacts credentials from the events (nil: none redacted).
	Pipeline *pipeline.Pipeline
}

// Session reads the files of the session: those whose name holds the id,
// else those whose records carry it.
func (t Transcripts) Session(ctx context.Context, id string) ([]transcript.Event, error) {
	files, _, err := scribe.Select(scribe.Selection{All: true, Env: t.Env})
	if err != nil {
		return nil, err
	}
	keep := func(e *transcript.Event) bool { return strings.HasPrefix(e.SessionID, id) }
	var out []transcript.Event
	named := false
	for _, f := range files {
		if !strings.Contains(filepath.Base(f.Path), id) && !strings.Contains(filepath.Base(filepath.Dir(f.Path)), id) {
			continue
		}
		named = true
		evs, err := t.read(ctx, f, keep)
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
	}
	if named {
		return out, nil
	}
	// No file is named after the session (a tool that names its files
	// otherwise, a copy renamed): every file is read for its records.
	for _, f := range files {
		evs, err := t.read(ctx, f, keep)
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
	}
	return out, nil
}

// Project reads the files written since then whose sessions worked in the
// project, keeping their events since then.
func (t Transcripts) Project(ctx context.Context, project string, since time.Time) ([]transcript.Event, error) {
	files, _, err := scribe.Select(scribe.Selection{All: true, Env: t.Env, Since: since})
	if err != nil {
		return nil, err
	}
	var out []transcript.Event
	for _, f := range files {
		evs, err := t.read(ctx, f, func(e *transcript.Event) bool {
			if !inProject(e, project) {
				return false
			}
			ts, err := time.Parse(time.RFC3339Nano, e.Timestamp)
			return err != nil || !ts.Before(since)
		})
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
	}
	return out, nil
}

func inProject(e *transcript.Event, project string) bool {
	for _, d := range []string{e.Project.RepoRoot, e.Project.Cwd} {
		if d != "" && strings.EqualFold(filepath.Base(filepath.Clean(d)), project) {
			return true
		}
	}
	return false
}

// read reads one file's events that keep says to, redacted. A file that
// went away since discovery is skipped.
func (t Transcripts) read(ctx context.Context, f scribe.File, keep func(*transcript.Event) bool) ([]transcript.Event, error) {
	tf, err := f.Open()
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer tf.Close()
	var out []transcript.Event
	// The project of a session is known from its first records; events
	// before it (Claude Code's summaries) inherit nothing, so keep is
	// asked of each.
	err = tf.Events(ctx, scribe.Redaction{Pipeline: t.Pipeline}, func(e transcript.Event) error {
		if keep(&e) {
			out = append(out, e)
		}
		return nil
	})
	return out, err
}
