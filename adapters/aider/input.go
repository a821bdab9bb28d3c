package aider

import (
	"bytes"
	"strings"

	"github.com/cortexmem/cortex/transcript"
)

// InputHistory reads aider's prompt history (.aider.input.history, written
// by prompt_toolkit): for each prompt, "# <time>" and then its lines, each
// prefixed "+". It implements transcript.Framer: a record is one prompt.
// Each gives a user_turn with its time; the file names no session, so the
// events carry none (the chat history beside it holds the same prompts
// with the replies, in sessions).
type InputHistory struct{}

var (
	_ transcript.Adapter = (*InputHistory)(nil)
	_ transcript.Framer  = (*InputHistory)(nil)
)

// NewInputHistory returns the adapter of aider's prompt history.
func NewInputHistory() *InputHistory { return &InputHistory{} }

// Source is aider.
func (h *InputHistory) Source() transcript.SourceKind { return transcript.Aider }

// Discover is the chat history adapter's: it lists the chat histories and
// passes over the prompt histories, saying why.
func (h *InputHistory) Discover(env transcript.Env) transcript.Discovery { return New().Discover(env) }

// Fingerprint names a prompt's schema: a "# " time line followed by "+"
// lines.
func (h *InputHistory) Fingerprint(rec transcript.Record) transcript.Variant {
	v := transcript.Variant{Source: transcript.Aider}
	first, next, _ := lineAt(rec.Data, 0)
	if isStamp(first) && next < len(rec.Data) && rec.Data[next] == '+' {
		v.Schema = SchemaInput
	}
	return v
}

// isStamp reports whether line is a prompt's "# 2024-08-05 19:33:07.123456".
func isStamp(line []byte) bool {
	l := bytes.TrimRight(line, "\r")
	return len(l) >= 12 && l[0] == '#' && l[1] == ' ' && l[2] >= '0' && l[2] <= '9'
}

// Frame splits a prompt history into prompts: a time line and the "+"
// lines after it; any other line is a record of its own. A record ends at
// the end of its last line, which needs its newline unless atEOF.
func (h *InputHistory) Frame(data []byte, atEOF bool) ([]transcript.Record, int) {
	var recs []transcript.Record
	pos, consumed := 0, 0
	for pos < len(data) {
		line, next, complete := lineAt(data, pos)
		if !complete && !atEOF {
			break
		}
		if isBlank(line) {
			pos, consumed = next, next
			continue
		}
		end := next
		if isStamp(line) {
			for end < len(data) {
				l, n, c := lineAt(data, end)
				if len(l) == 0 || l[0] != '+' {
					break
				}
				if !c && !atEOF {
					return recs, consumed
				}
				end = n
			}
		}
		recs = append(recs, transcript.Record{Offset: int64(pos), Data: bytes.TrimRight(data[pos:end], "\r\n")})
		pos, consumed = end, end
	}
	return recs, consumed
}

// Parse turns one prompt into a user_turn (a line that is no prompt into an
// unknown event).
func (h *InputHistory) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	first, next, _ := lineAt(rec.Data, 0)
	if !isStamp(first) {
		return []transcript.Event{transcript.UnknownEvent(ctx, rec, "", transcript.ReasonUnrecognized)}
	}
	var lines []string
	if next < len(rec.Data) {
		for _, l := range strings.Split(string(rec.Data[next:]), "\n") {
			lines = append(lines, strings.TrimPrefix(strings.TrimSuffix(l, "\r"), "+"))
		}
	}
	text := strings.Join(lines, "\n")
	e := ctx.NewEvent(rec, transcript.KindUserTurn, "")
	e.Timestamp = strings.TrimSpace(string(bytes.TrimRight(first, "\r"))[2:])
	e.UserTurn = &transcript.UserTurn{Text: text, Meta: inputMeta(text)}
	return []transcript.Event{e}
}
