package bench

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cortexmem/cortex/transcript"
)

// TranscriptGenerator makes agent sessions for the transcript benchmarks:
// sessions of Claude Code, Codex and Gemini CLI (about half, a third and a
// sixth of them), in the record shapes of the real transcripts of the
// fixtures, each with its own session id, of long-tailed lengths (most
// sessions a few exchanges, some hundreds), spread over the months before
// end. Texts mix the prose of generated notes with identifiers, paths and
// error codes drawn from a space that grows with the corpus, as a real
// history's vocabulary does.
type TranscriptGenerator struct {
	g   *Generator
	r   *rand.Rand
	end time.Time
	n   int
}

// NewTranscriptGenerator returns a generator for seed.
func NewTranscriptGenerator(seed uint64, end time.Time) *TranscriptGenerator {
	return &TranscriptGenerator{g: NewGenerator(seed, end), r: rand.New(rand.NewPCG(seed, 0x5eed)), end: end}
}

var (
	identParts = strings.Fields(`order cart user session token cache queue worker batch index
		schema migration report invoice payment refund webhook config route handler client
		server pool lock stream parser encoder planner scanner loader writer reader retry`)
	identKinds = strings.Fields(`Handler Service Client Store Config Error Manager Builder Test`)
	errCodes   = strings.Fields(`ECONNREFUSED ECONNRESET ETIMEDOUT ENOENT EACCES E0502 E0499 E0382
		SQLSTATE-23505 SQLSTATE-40001 HTTP-401 HTTP-403 HTTP-409 HTTP-422 HTTP-500 HTTP-502 OOMKilled`)
	tools = []transcript.SourceKind{transcript.ClaudeCode, transcript.ClaudeCode, transcript.ClaudeCode,
		transcript.Codex, transcript.Codex, transcript.GeminiCLI}
	shellCmds = strings.Fields(`go-test npm-test cargo-test pytest make-build docker-build kubectl-logs git-diff terraform-plan`)
)

// ident is an identifier, path or error code: a few thousand distinct ones
// for a small corpus, more for a big one.
func (t *TranscriptGenerator) ident() string {
	r := t.r
	a, b := identParts[r.IntN(len(identParts))], identParts[r.IntN(len(identParts))]
	n := r.IntN(40 + t.n/50)
	switch r.IntN(5) {
	case 0:
		return fmt.Sprintf("%s%s%s", a, strings.ToUpper(b[:1])+b[1:], identKinds[r.IntN(len(identKinds))])
	case 1:
		return fmt.Sprintf("src/%s/%s_%d.go", a, b, n)
	case 2:
		return errCodes[r.IntN(len(errCodes))]
	case 3:
		return fmt.Sprintf("%s_%s_%d", a, b, n)
	}
	return fmt.Sprintf("%s.%s%d", a, strings.ToUpper(b[:1])+b[1:], n)
}

// text is n words of prose with identifiers among them.
func (t *TranscriptGenerator) text(n int) string {
	w := strings.Fields(t.g.Sentence(n))
	for i := range w {
		if t.r.IntN(7) == 0 {
			w[i] = t.ident()
		}
	}
	return strings.Join(w, " ")
}

// Turn is the next exchange of a session in project's folder: a question,
// then the agent's steps — a long tail of them (two to forty, eight on
// average), most of them tool calls whose outputs (files read, commands'
// output) are far longer than the messages, as in the real Claude Code
// session of the fixtures (one turn, ten messages, thirteen tool calls,
// 145 KB).
func (t *TranscriptGenerator) Turn(cwd string) Turn {
	r := t.r
	turn := Turn{User: t.text(8 + r.IntN(30))}
	steps := min(40, 2+int(r.ExpFloat64()*6))
	for i := 0; i < steps; i++ {
		switch k := r.IntN(10); {
		case i == steps-1 || k < 3:
			turn.Steps = append(turn.Steps, Step{Text: t.text(15 + r.IntN(60))})
		case k < 6:
			cmd := strings.ReplaceAll(shellCmds[r.IntN(len(shellCmds))], "-", " ")
			turn.Steps = append(turn.Steps, Step{Shell: cmd + " ./" + t.ident(), Output: t.text(10 + r.IntN(120)), Failed: r.IntN(6) == 0})
		case k < 9:
			turn.Steps = append(turn.Steps, Step{Read: filepath.Join(cwd, t.ident()), Output: t.text(40 + r.IntN(400))})
		default:
			turn.Steps = append(turn.Steps, Step{Edit: filepath.Join(cwd, t.ident()), Old: t.text(6), New: t.text(6)})
		}
	}
	return turn
}

// Session is the next session: its tool, id, project and start, and a
// number of turns drawn from a long tail (most a few, some near a hundred).
func (t *TranscriptGenerator) Session() *Conversation {
	t.n++
	r := t.r
	project := Projects[r.IntN(len(Projects))]
	start := t.end.Add(-time.Duration(r.Int64N(int64(120 * 24 * time.Hour)))).UTC().Truncate(time.Second)
	c := &Conversation{
		Tool:    tools[r.IntN(len(tools))],
		Session: fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()&(1<<48-1)),
		Cwd:     "/home/dev/work/" + project, Branch: "main", Start: start,
	}
	n := 1 + int(r.ExpFloat64()*4)
	if r.IntN(25) == 0 {
		n += 20 + r.IntN(60)
	}
	for i := 0; i < n; i++ {
		c.Turns = append(c.Turns, t.Turn(c.Cwd))
	}
	return c
}

// Messages counts a session's messages as the tools write them: each turn
// the person typed, each message of the agent (a reply or a tool call), and
// each tool result.
func Messages(c *Conversation) int {
	n := 0
	for _, t := range c.Turns {
		n += 1 + len(t.Steps)
		for _, s := range t.Steps {
			if s.Text == "" {
				n++
			}
		}
	}
	return n
}

// WriteTranscriptCorpus writes sessions under home, where each tool keeps
// them, until they hold at least messages messages; it returns the sessions.
func WriteTranscriptCorpus(home string, messages int, seed uint64, end time.Time) ([]*Conversation, error) {
	t := NewTranscriptGenerator(seed, end)
	var out []*Conversation
	for total := 0; total < messages; {
		c := t.Session()
		p := SessionPath(home, c)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return nil, err
		}
		f, err := os.Create(p)
		if err != nil {
			return nil, err
		}
		err = WriteSession(f, c)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		// The file was last written when its last turn was.
		last := c.Start.Add(time.Duration(Messages(c)) * time.Second)
		if err := os.Chtimes(p, last, last); err != nil {
			return nil, err
		}
		total += Messages(c)
		out = append(out, c)
	}
	return out, nil
}
