package hooks

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
)

// Words of several scripts, emoji and combining marks, for notes that are
// not all ASCII.
var propWords = []string{
	"deploy", "cache", "token", "RS256", "pkg.Func", "snake_case", "/etc/hosts", "ERR_42",
	"Réunion", "naïve", "Straße", "会议", "決定", "データベース", "서버", "сервер", "خادم", "שרת", "सर्वर",
	"🎉", "✓", "e\u0301", "👩‍💻", "`code`", "**bold**", "> quote", "# heading", "- [ ] task", "</hook_context>",
}

func propText(r *rand.Rand, words int) string {
	var b strings.Builder
	for i := 0; i < words; i++ {
		if i > 0 {
			switch r.IntN(12) {
			case 0:
				b.WriteString("\n")
			case 1:
				b.WriteString("\n\n")
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteString(propWords[r.IntN(len(propWords))])
	}
	return b.String()
}

// randomVault makes memories over many projects, some huge, some tiny, with
// open action items, decisions and areas.
func randomVault(r *rand.Rand) []*memories.Memory {
	n := 5 + r.IntN(120)
	projects := 1 + r.IntN(30)
	types := []memories.Type{memories.TypeDecision, memories.TypeConvention, memories.TypeGotcha, memories.TypeFact, memories.TypeAction,
		memories.TypeNote, memories.TypeSession}
	var ms []*memories.Memory
	now := time.Now().UTC().Truncate(time.Second)
	for i := 0; i < n; i++ {
		words := 2 + r.IntN(60)
		if r.IntN(8) == 0 {
			words = 2000 + r.IntN(6000) // a huge note
		}
		p := "demo-project"
		if r.IntN(3) > 0 {
			p = fmt.Sprintf("p%02d", r.IntN(projects))
		}
		if r.IntN(6) == 0 {
			p = memories.DefaultProject
		}
		at := now.Add(-time.Duration(r.IntN(400*24)) * time.Hour)
		m := &memories.Memory{
			ID: fmt.Sprintf("01jn%022d", i+1), Title: propText(r, 1+r.IntN(12)), Body: propText(r, words),
			Type: types[r.IntN(len(types))], Project: p, Source: memories.SourceUser, Status: memories.StatusActive,
			Importance: 1 + r.IntN(5), Created: at, Updated: at,
		}
		if len([]rune(m.Title)) > 100 {
			m.Title = string([]rune(m.Title)[:100])
		}
		m.Title = strings.Join(strings.Fields(m.Title), " ")
		if r.IntN(3) == 0 {
			m.Area = []string{"security", "payments", "ops"}[r.IntN(3)]
		}
		if m.Type == memories.TypeAction {
			m.Status = memories.StatusOpen
			if r.IntN(2) == 0 {
				m.Due = now.AddDate(0, 0, r.IntN(60)-30).Format(time.DateOnly)
			}
		}
		ms = append(ms, m)
	}
	return ms
}

// The briefing never exceeds its budget, whatever the vault holds and however
// small or large the budget: characters (the smaller of tokens×4 and
// max_chars) and memories; the receipt agrees with what was injected.
func TestPropertyBriefingWithinBudget(t *testing.T) {
	vaults := 16
	if testing.Short() {
		vaults = 6
	}
	for seed := 1; seed <= vaults; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 15))
		ms := randomVault(r)
		t.Run(fmt.Sprintf("seed %d, %d notes", seed, len(ms)), func(t *testing.T) {
			tv := newTestVault(t, ms)
			for trial := 0; trial < 4; trial++ {
				h := config.DefaultHooks()
				h.BudgetTokens = 50 + r.IntN(3000)
				h.MaxChars = 200 + r.IntN(20000)
				h.MaxItems = 1 + r.IntN(50)
				budget := min(h.BudgetTokens*4, h.MaxChars)
				client := Clients[r.IntN(len(Clients))]
				payload := `{"session_id":"s","cwd":"/work/demo-project","source":"startup"}`
				res, err := tv.runner(client, SessionStart, h).Run(context.Background(), []byte(payload))
				if err != nil {
					t.Fatal(err)
				}
				if res.Output == nil {
					if res.Outcome != OutcomeNothing {
						t.Fatalf("no output, outcome %q", res.Outcome)
					}
					continue
				}
				text := additionalContext(t, res.Output)
				chars := utf8.RuneCountInString(text)
				if chars > budget {
					t.Fatalf("%s: %d characters injected, budget %d (tokens %d, max_chars %d)", client, chars, budget, h.BudgetTokens, h.MaxChars)
				}
				if !utf8.ValidString(text) || !strings.HasPrefix(text, Header) {
					t.Fatalf("the briefing is not valid UTF-8 or lacks its header:\n%q", text[:min(len(text), 200)])
				}
				rec, _, err := LatestReceipt(tv.layout.Receipts())
				if err != nil {
					t.Fatal(err)
				}
				if rec.Text != text || rec.Used.Chars != chars || rec.Used.Items > h.MaxItems || rec.Used.Items != len(rec.Injected) ||
					rec.Used.Items == 0 || rec.Used.Tokens > h.BudgetTokens {
					t.Fatalf("receipt used %+v, %d injected; budget %+v", rec.Used, len(rec.Injected), rec.Budget)
				}
				sum := 0
				for _, in := range rec.Injected {
					sum += in.Chars
				}
				if sum > chars {
					t.Fatalf("the injected memories take %d characters, more than the %d of the text", sum, chars)
				}
			}
		})
	}
}
