package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/inbox"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

type captureOptions struct {
	typ, session, project, transcript string
	tags                              []string
}

func newCaptureCmd(a *app) *cobra.Command {
	var o captureOptions
	cmd := &cobra.Command{
		Use:   "capture [flags] [CONTENT... | -]",
		Short: "Drop an event into the inbox, for normalize to turn into notes later",
		Long: `Capture writes one event file into the vault's inbox (in the state folder,
inbox/pending/) and prints its id, nothing else. It reads nothing of the
content and touches no index and no lock: it works when everything else is
broken, and takes a few milliseconds. Normalize turns events into notes later
— a stop or pre_compact event's transcript into session, decision and episode
notes, a meeting into a meeting note with its action items and decisions, a
manual capture into a memory — scanning them first as save does.

Types: manual (the default), meeting, stop, pre_compact. The content is the
words given, or standard input with "-" (or when input is piped); a stop or
pre_compact event may give a transcript or a session instead.`,
		Example: `  cortex capture --project my-webapp "Ask the DBA about the replica lag alerts"
  cortex capture --type meeting --project my-webapp --tags planning - < standup.md
  cortex capture --type stop --session 4f1c… --transcript ~/.claude/projects/…/4f1c….jsonl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCapture(a, o, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.typ, "type", string(inbox.TypeManual), "stop, pre_compact, meeting or manual")
	f.StringVar(&o.session, "session", "", "the agent session the event comes from")
	f.StringVar(&o.project, "project", "", "project hint: where normalize files what it makes")
	f.StringSliceVar(&o.tags, "tags", nil, "tags for the notes made from it, comma-separated")
	f.StringVar(&o.transcript, "transcript", "", "the session's transcript file (stop, pre_compact)")
	return cmd
}

type captureJSON struct {
	ID string `json:"id"`
}

func runCapture(a *app, o captureOptions, words []string) error {
	content, err := a.readCaptureContent(words)
	if err != nil {
		return err
	}
	if o.transcript != "" {
		abs, err := filepath.Abs(o.transcript)
		if err != nil {
			return &memories.ArgError{Arg: "transcript", Rule: err.Error()}
		}
		o.transcript = abs
	}
	b, err := a.openInbox()
	if err != nil {
		return err
	}
	id, err := b.Capture(inbox.Request{Type: o.typ, Content: content, Session: o.session, Project: o.project, Tags: o.tags,
		Transcript: o.transcript, Origin: inbox.OriginCLI})
	if err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(captureJSON{ID: id})
	}
	fmt.Fprintln(a.stdout, id)
	return nil
}

// readCaptureContent reads a capture's content: the words given, or standard
// input for "-" or when no words are given and input is not a terminal. No
// words on a terminal is no content (a stop event may name only its
// transcript).
func (a *app) readCaptureContent(words []string) (string, error) {
	if len(words) == 1 && words[0] == "-" || len(words) == 0 && a.stdin != nil && !isTerminal(a.stdin) {
		data, err := io.ReadAll(io.LimitReader(a.stdin, inbox.MaxBody+1))
		if err != nil {
			return "", fmt.Errorf("read content from standard input: %w", err)
		}
		if len(data) > inbox.MaxBody {
			return "", &memories.ArgError{Arg: "content", Rule: fmt.Sprintf("is more than %d bytes; the maximum is %d (1 MiB)", inbox.MaxBody, inbox.MaxBody)}
		}
		return string(data), nil
	}
	return strings.Join(words, " "), nil
}

// openInbox resolves the settings and the vault's inbox, without opening the
// store: capture must work when the index is broken, and stay cheap.
func (a *app) openInbox() (*inbox.Inbox, error) {
	if a.inbox != nil {
		return a.inbox, nil
	}
	if err := a.resolve(); err != nil {
		return nil, err
	}
	if err := config.CheckVault(a.settings); err != nil {
		return nil, err
	}
	v, err := vault.New(a.settings.Vault, a.settings.VaultFolder)
	if err != nil {
		return nil, err
	}
	layout, err := a.settings.State().Vault(v.Dir)
	if err != nil {
		return nil, err
	}
	a.inbox = inbox.New(layout.Inbox().Dir)
	return a.inbox, nil
}
