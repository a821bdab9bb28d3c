package hooks

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/inbox"
	"github.com/cortexmem/cortex/memories"
)

// promptLimit is how many memories a prompt recall looks at; promptItems how
// many it injects at most.
const (
	promptLimit = 5
	promptItems = 3
)

// Runner runs one hook for one client and event.
type Runner struct {
	Client Client
	Event  Event
	// Settings are the hooks' settings; Projects the config's mapping of
	// folders to projects; UserHome the person's home folder (no project).
	Settings config.Hooks
	Projects []config.ProjectFolder
	UserHome string
	// Cwd is the folder the hook runs in, for a payload that names none.
	Cwd string
	// Service opens the memory service: a briefing and a prompt recall need
	// it, a capture never does (it must work when the index is broken).
	Service func() (*memories.Service, error)
	// Inbox is the vault's capture inbox; Receipts its receipts folder.
	Inbox    *inbox.Inbox
	Receipts string
	// Now is the clock; IDs mints receipt ids.
	Now func() time.Time
	IDs memories.IDGen
}

// Result is what a hook run did.
type Result struct {
	// Output is what the hook prints: nil for nothing.
	Output  []byte
	Outcome string
	Detail  string
	Session string
	Project string
	// Warnings are problems that did not stop the run.
	Warnings []string
}

// Run handles the hook's input (the client's JSON payload).
func (r *Runner) Run(ctx context.Context, input []byte) (*Result, error) {
	p, err := ParsePayload(input)
	if err != nil {
		return nil, err
	}
	if p.Cwd == "" {
		p.Cwd = r.Cwd
	}
	res := &Result{Session: p.SessionID}
	proj := ResolveProject(p.Cwd, r.Projects, r.UserHome)
	res.Project = proj.Name
	switch r.Event {
	case SessionStart:
		err = r.sessionStart(ctx, p, proj, res)
	case UserPromptSubmit:
		err = r.prompt(ctx, p, proj, res)
	case PreCompact, Stop, SessionEnd:
		err = r.capture(p, proj, res)
	default:
		err = fmt.Errorf("event %q has no handler", r.Event)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (r *Runner) sessionStart(ctx context.Context, p *Payload, proj Project, res *Result) error {
	svc, err := r.Service()
	if err != nil {
		return err
	}
	h := r.Settings
	b, err := svc.Brief(ctx, memories.BriefRequest{Project: proj.Name, Limit: min(h.MaxItems, memories.MaxRecallLimit)})
	if err != nil {
		return err
	}
	budget := BudgetOf(h.BudgetTokens, h.MaxChars, h.MaxItems)
	rend := RenderBriefing(b, budget)
	rec := r.receipt(p, proj, budget, h.BudgetTokens)
	rec.Considered = b.Considered
	return r.inject(ctx, svc, rend, rec, memories.AccessSessionStart, res)
}

func (r *Runner) prompt(ctx context.Context, p *Payload, proj Project, res *Result) error {
	h := r.Settings
	switch {
	case !h.PromptRecall:
		res.Outcome, res.Detail = OutcomeSkipped, "prompt recall is off (hooks.prompt_recall in the config file)"
		return nil
	case r.Client == Cursor:
		res.Outcome, res.Detail = OutcomeSkipped, "Cursor's beforeSubmitPrompt hook cannot add context"
		return nil
	case strings.TrimSpace(p.Prompt) == "":
		res.Outcome, res.Detail = OutcomeNothing, "no prompt in the payload"
		return nil
	}
	svc, err := r.Service()
	if err != nil {
		return err
	}
	matches, err := svc.PromptRecall(ctx, p.Prompt, proj.Name, promptLimit)
	if err != nil {
		return err
	}
	var keep []memories.PromptMatch
	for _, m := range matches {
		if m.Coverage >= h.PromptMinScore {
			keep = append(keep, m)
		}
	}
	budget := BudgetOf(h.PromptBudgetTokens, h.MaxChars, promptItems)
	rend := RenderPrompt(proj.Name, keep, budget)
	rec := r.receipt(p, proj, budget, h.PromptBudgetTokens)
	rec.Considered = len(matches)
	for _, m := range matches {
		if m.Coverage < h.PromptMinScore && len(rec.LeftOut) < maxLeftOut {
			rec.LeftOut = append(rec.LeftOut, LeftOut{ID: m.Memory.ID, Title: m.Memory.Title, Section: sectionPrompt,
				Reason: fmt.Sprintf("holds %.0f%% of the prompt's key words, under %.0f%%", m.Coverage*100, h.PromptMinScore*100)})
		}
	}
	return r.inject(ctx, svc, rend, rec, memories.AccessContext, res)
}

// receipt starts the receipt of an injection.
func (r *Runner) receipt(p *Payload, proj Project, budget Budget, tokens int) *Receipt {
	now := r.now()
	rec := &Receipt{ID: r.IDs.NewID(now), Time: now.UTC(), Client: r.Client, Event: r.Event, Session: p.SessionID, Source: p.Source,
		Cwd: p.Cwd, Project: proj}
	rec.Budget.Tokens, rec.Budget.Chars, rec.Budget.Items = tokens, budget.Chars, budget.Items
	return rec
}

// inject hands rendered text to the client: the receipt first (no receipt,
// no injection), then the accesses, then the output.
func (r *Runner) inject(ctx context.Context, svc *memories.Service, rend Rendered, rec *Receipt, source string, res *Result) error {
	out := Output(r.Client, r.Event, rend.Text)
	if out == nil {
		res.Outcome = OutcomeNothing
		res.Detail = fmt.Sprintf("nothing to inject (%d memories considered)", rec.Considered)
		if rend.Text != "" {
			res.Detail = fmt.Sprintf("%s cannot take context at %s", r.Client, r.Client.Native(r.Event))
		}
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	rec.Output = outputForm(r.Client)
	rec.Injected, rec.LeftOut, rec.Text = rend.Injected, append(rend.LeftOut, rec.LeftOut...), rend.Text
	chars := rend.Chars()
	rec.Used.Chars, rec.Used.Tokens, rec.Used.Items = chars, Tokens(chars), len(rend.Injected)
	path, err := WriteReceipt(r.Receipts, rec)
	if err != nil {
		return err
	}
	ids := make([]string, len(rend.Injected))
	for i, in := range rend.Injected {
		ids[i] = in.ID
	}
	if err := svc.RecordAccess(ctx, ids, source); err != nil {
		res.Warnings = append(res.Warnings, err.Error())
	}
	res.Output, res.Outcome = out, OutcomeInjected
	res.Detail = fmt.Sprintf("%d memories, %d of %d tokens; receipt %s", len(ids), rec.Used.Tokens, rec.Budget.Tokens, path)
	return nil
}

// outputForm says how each client is handed the text.
func outputForm(c Client) string {
	if c == Cursor {
		return "JSON additional_context"
	}
	return "JSON hookSpecificOutput.additionalContext"
}

// capture writes a pre_compact or stop event for normalize.
func (r *Runner) capture(p *Payload, proj Project, res *Result) error {
	typ := inbox.TypeStop
	if r.Event == PreCompact {
		typ = inbox.TypePreCompact
	}
	ev := &inbox.Event{
		Type: typ, Time: r.now(), Origin: inbox.OriginHook, Client: string(r.Client), Hook: hookName(p.HookEventName, r.Client.Native(r.Event)),
		Session: p.SessionID, Cwd: p.Cwd, Trigger: p.Trigger, Reason: p.Reason, Body: string(p.Raw), TranscriptSize: -1,
	}
	if proj.From != "none" {
		ev.Project = proj.Name
	}
	if p.Transcript != "" && filepath.IsAbs(p.Transcript) {
		ev.Transcript = filepath.Clean(p.Transcript)
		ev.TranscriptSize = inbox.Size(ev.Transcript)
	}
	id, dup, err := r.Inbox.AddUnlessPending(ev, r.Settings.DedupWindow)
	if err != nil {
		return err
	}
	if dup {
		res.Outcome, res.Detail = OutcomeSkipped, "event "+id+" of this session is pending already"
		return nil
	}
	res.Outcome, res.Detail = OutcomeCaptured, "event "+id
	return nil
}

// hookName is the client's name of the event as its payload gave it, when
// that is a plain short name, else the name cortex knows it by.
func hookName(given, native string) string {
	if given == "" || len(given) > 64 || strings.IndexFunc(given, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-')
	}) >= 0 {
		return native
	}
	return given
}

func (r *Runner) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}
