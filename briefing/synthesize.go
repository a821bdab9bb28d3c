package briefing

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// DefaultSynthesizeTimeout bounds a synthesis command.
const DefaultSynthesizeTimeout = 30 * time.Second

// DefaultSynthesizeCommand is the command synthesis runs when none is
// configured and it is on PATH.
var DefaultSynthesizeCommand = []string{"claude", "-p", "--model", "haiku"}

// maxSynthesisOutput bounds what is read of a command's answer.
const maxSynthesisOutput = 1 << 20

// Command is a synthesizer that runs an external command: the prompt on its
// standard input, the briefing on its standard output.
type Command struct {
	Argv    []string
	Timeout time.Duration
	// Env, when set, is the command's environment.
	Env []string
}

// Name is the command line.
func (c *Command) Name() string { return strings.Join(c.Argv, " ") }

// Synthesize runs the command. A non-zero exit, a timeout or an answer
// larger than maxSynthesisOutput is an error; the command is killed at the
// timeout and its output is not waited for beyond it.
func (c *Command) Synthesize(ctx context.Context, prompt string) (string, error) {
	if len(c.Argv) == 0 {
		return "", errors.New("no command")
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultSynthesizeTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	cmd.Stdin = strings.NewReader(prompt)
	if c.Env != nil {
		cmd.Env = c.Env
	}
	var out, errOut limitedBuffer
	out.max, errOut.max = maxSynthesisOutput, 4096
	cmd.Stdout, cmd.Stderr = &out, &errOut
	// A command that leaves children holding its output open must not hold
	// the briefing past the timeout.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return "", fmt.Errorf("timed out after %s", timeout)
	case err != nil:
		msg := strings.TrimSpace(errOut.String())
		if msg != "" {
			return "", fmt.Errorf("%w: %s", err, clip(msg, 200))
		}
		return "", err
	case out.over:
		return "", fmt.Errorf("answered more than %d bytes", maxSynthesisOutput)
	}
	return out.String(), nil
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.over = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// FindCommand is the synthesis command: argv when given, else the default
// when it is on PATH; nil when there is none.
func FindCommand(argv []string, timeout time.Duration, lookPath func(string) (string, error)) *Command {
	if len(argv) == 0 {
		if _, err := lookPath(DefaultSynthesizeCommand[0]); err != nil {
			return nil
		}
		argv = DefaultSynthesizeCommand
	}
	return &Command{Argv: append([]string(nil), argv...), Timeout: timeout}
}

// prompt asks for a briefing from the material, keeping its ids and paths.
func prompt(mat *Material, material string, budget int) string {
	return fmt.Sprintf(`You are preparing a briefing for a coding agent about to work on this task in the project %s:

%s

Below is what its long-term memory holds that bears on it: the project's playbook, memories, decisions with the code edits they produced, and transcript excerpts. Write a focused markdown briefing of at most %d words that tells the agent what it must know and do, bans first. Keep every id in [brackets] and every path you rely on, so that the agent can open them. Use only what the material says; if it says nothing useful, say so.

<material>
%s
</material>
`, mat.Project, mat.Query, budget*3/4, material)
}

// synthesize asks the synthesizer for the briefing, and gives the
// deterministic one back, saying why, on any failure.
func (s *Service) synthesize(ctx context.Context, mat *Material, det *Briefing) *Briefing {
	fallback := func(why string) *Briefing {
		note := "Synthesis was not used (" + why + "); this is the deterministic briefing."
		b := Render(mat, det.Budget, note)
		b.Fallback = why
		return b
	}
	if s.Synthesizer == nil {
		return fallback("no synthesis command: configure context.synthesize_command or put claude on PATH")
	}
	name := s.Synthesizer.Name()
	// The material the command sees is what the deterministic briefing
	// shows, at twice the budget: more to choose from, never everything.
	material := Render(mat, 2*det.Budget, "").Markdown
	out, err := s.Synthesizer.Synthesize(ctx, prompt(mat, material, det.Budget))
	if err != nil {
		return fallback(fmt.Sprintf("%s failed: %v", clip(name, 60), err))
	}
	out = strings.TrimSpace(out)
	switch {
	case out == "":
		return fallback(clip(name, 60) + " answered nothing")
	case Tokens(out) > det.Budget:
		return fallback(fmt.Sprintf("%s answered %d tokens, over the budget of %d", clip(name, 60), Tokens(out), det.Budget))
	}
	if err := s.Memories.Screen(ctx, "synthesized briefing", out); err != nil {
		return fallback(fmt.Sprintf("the answer of %s was refused: %v", clip(name, 60), err))
	}
	b := *det
	b.Markdown = out + "\n"
	b.Tokens = Tokens(b.Markdown)
	if b.Tokens > b.Budget {
		return fallback(fmt.Sprintf("%s answered %d tokens, over the budget of %d", clip(name, 60), b.Tokens, det.Budget))
	}
	b.Synthesized = true
	return &b
}
