package pipeline

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDefaultRulesExamples gives every default rule texts it must find its
// marker in (the marker's words in brackets) and texts it must not fire on.
func TestDefaultRulesExamples(t *testing.T) {
	tests := []struct {
		rule string
		yes  []string
		no   []string
	}{
		{"decision.use", []string{
			"[Use] SQLite for the cache.", "Let's [use] pnpm here.", "Actually, [use] Redis.", "- [use] tabs",
			"For the cache, [use] Redis.", "We decided to [use] Go.", "please [use] the new client",
		}, []string{"How do I use git?", "It is in use.", "Read the file and use its contents", "the users use it daily"}},
		{"decision.go_with", []string{"Let's [go with] option B.", "I'm [going with] Postgres."}, []string{"It goes with the rest.", "go-with"}},
		{"decision.switch_to", []string{"[Switch to] the new API client.", "we [switched over to] yarn"}, []string{"the switch statement"}},
		{"decision.migrate_to", []string{"[Migrate to] Postgres 16.", "[migrate the db to] MySQL", "[migrating to] v2"}, []string{"the migration ran"}},
		{"decision.adopt", []string{"We should [adopt] conventional commits."}, []string{"an adoption curve"}},
		{"decision.decide", []string{"We [decided] on gRPC.", "[Decision:] keep the monorepo.", "[our decision is] final"}, []string{"a decisive win", "undecided"}},
		{"decision.choose", []string{"[Choose] the simplest one.", "I [chose] Bun."}, []string{"choosy"}},
		{"decision.settle_on", []string{"We [settled on] MIT."}, []string{"the dust settled"}},
		{"decision.pick", []string{"[Pick] whichever is faster."}, []string{"a pickle", "toothpick it"}},
		{"decision.stick_with", []string{"[Stick with] REST.", "let's [keep using] make"}, []string{"sticky notes"}},
		{"rejection.instead_of", []string{"Redis [instead of] Memcached"}, []string{"insteadof"}},
		{"rejection.rather_than", []string{"tabs [rather than] spaces"}, []string{"rather nice"}},
		{"rejection.as_opposed_to", []string{"Go [as opposed to] Rust"}, []string{"opposed"}},
		{"rejection.in_favour_of", []string{"drop it [in favour of] X", "[in favor of] Y"}, []string{"a favour"}},
		{"ban.never_use", []string{"[Never use] lodash.", "[don't add] a new ORM", "[Don’t use] moment", "We [must not depend on] it", "[stop using] eval"}, []string{"I never knew", "don't worry"}},
		{"ban.no_new_dependency", []string{"[No new dependencies].", "[no third-party libraries]", "[no dependency] on cgo"}, []string{"no new ideas", "not a dependency"}},
		{"ban.avoid", []string{"[avoid using] reflection"}, []string{"avoid it"}},
		{"imperative.must", []string{"Tests [must] pass."}, []string{"mustard"}},
		{"imperative.always", []string{"[Always] run gofmt.", "You [always] squash.", "and [always] rebase"}, []string{"It always fails on CI.", "always-on"}},
		{"imperative.never", []string{"[Never] push to main.", "we [never] squash"}, []string{"It never worked."}},
		{"imperative.shall", []string{"Each package [shall] have a doc.go."}, []string{"shallow"}},
		{"imperative.required_to", []string{"You are [required to] sign commits."}, []string{"required field"}},
		{"memory.remember", []string{"[Remember] the port is 8080.", "please [remember] this: tabs, not spaces"}, []string{"I remember when"}},
		{"memory.remember_that", []string{"I [remember that] we pinned Go 1.22", "[remember this]: the API is rate limited"}, []string{"remembered"}},
		{"memory.keep_in_mind", []string{"[Keep in mind] the quota is 100 requests a minute."}, []string{"keep it"}},
		{"memory.note_that", []string{"[Note that] v2 is broken.", "Please [note that] v1 is gone"}, []string{"a note that I wrote"}},
		{"memory.for_future_reference", []string{"[For future reference], X."}, []string{"future"}},
		{"memory.from_now_on", []string{"[From now on] use ruff."}, []string{"from now"}},
		{"memory.going_forward", []string{"[Going forward], tag releases."}, []string{"going for"}},
	}
	g := DefaultGate()
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.rule] = true
		for _, yes := range tt.yes {
			s, e := strings.Index(yes, "["), strings.Index(yes, "]")
			text := yes[:s] + yes[s+1:e] + yes[e+1:]
			want := Match{Rule: tt.rule, Start: s, End: e - 1, Text: yes[s+1 : e]}
			v := g.Check(text)
			found := false
			for _, m := range v.Matches {
				if m.Rule == tt.rule {
					m.Category, m.Question = "", false
					if diff := cmp.Diff(want, m); diff != "" {
						t.Errorf("%s on %q (-want +got):\n%s", tt.rule, text, diff)
					}
					found = true
				}
			}
			if !found {
				t.Errorf("%s does not fire on %q (matches %v)", tt.rule, text, v.Matches)
			}
			if !v.Admits {
				t.Errorf("%q is not admitted", text)
			}
		}
		for _, no := range tt.no {
			for _, m := range g.Check(no).Matches {
				if m.Rule == tt.rule {
					t.Errorf("%s fires on %q: %+v", tt.rule, no, m)
				}
			}
		}
	}
	for _, r := range DefaultRules() {
		if !covered[r.ID] {
			t.Errorf("rule %s has no examples", r.ID)
		}
	}
}

func TestGateVerdict(t *testing.T) {
	g := DefaultGate()
	tests := []struct {
		name      string
		text      string
		admits    bool
		ban       bool
		rules     []string
		questions int
	}{
		{"plain question", "Should we use Redis instead of Memcached?", false, false, []string{"rejection.instead_of"}, 1},
		{"question then decision", "Why did it fail? Use Redis.", true, false, []string{"decision.use"}, 0},
		{"ban", "Never use lodash.", true, true, []string{"ban.never_use", "imperative.never"}, 0},
		{"ban in a question", "Should we never use lodash?", false, false, []string{"ban.never_use", "imperative.never"}, 2},
		{"no marker", "Fix the flaky test in store_test.go.", false, false, nil, 0},
		{"in inline code", "Run `never use this` please.", false, false, nil, 0},
		{"in a fence", "Here is the log:\n```\nvalue must not be null\nuse strict\n```\nWhat happened", false, false, nil, 0},
		{"after a fence", "```\nx must\n```\nFrom now on, use zap.", true, false, []string{"memory.from_now_on", "decision.use"}, 0},
		{"unclosed fence", "```go\nyou must\n", false, false, nil, 0},
		{"empty", "", false, false, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := g.Check(tt.text)
			var rules []string
			q := 0
			for _, m := range v.Matches {
				rules = append(rules, m.Rule)
				if m.Question {
					q++
				}
				if tt.text[m.Start:m.End] != m.Text {
					t.Errorf("match %+v: offsets give %q", m, tt.text[m.Start:m.End])
				}
			}
			if diff := cmp.Diff(tt.rules, rules); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
			if v.Admits != tt.admits || v.IsBan != tt.ban || q != tt.questions {
				t.Errorf("admits %v ban %v questions %d, want %v %v %d", v.Admits, v.IsBan, q, tt.admits, tt.ban, tt.questions)
			}
		})
	}
}

func TestNewGateErrors(t *testing.T) {
	tests := []struct {
		rules []Rule
		want  string
	}{
		{nil, "gate rules: the table is empty"},
		{[]Rule{{ID: "", Category: CategoryBan, Pattern: "x"}}, "gate rule 1: id: must not be empty"},
		{[]Rule{{ID: "a", Category: CategoryBan, Pattern: "x"}, {ID: "a", Category: CategoryBan, Pattern: "y"}}, `gate rule "a": id: used twice`},
		{[]Rule{{ID: "a", Category: "vibe", Pattern: "x"}}, `gate rule "a": category: "vibe" is not one of decision, rejection, ban, imperative, memory`},
		{[]Rule{{ID: "a", Category: CategoryBan, Pattern: " "}}, `gate rule "a": pattern: must not be empty`},
		{[]Rule{{ID: "a", Category: CategoryBan, Pattern: "(x"}}, `gate rule "a": pattern: error parsing regexp`},
		{[]Rule{{ID: "a", Category: CategoryBan, Pattern: "x*"}}, `gate rule "a": pattern: matches empty text`},
		{[]Rule{{ID: "a", Category: CategoryBan, Pattern: "x", Hints: []string{"X"}}}, `gate rule "a": hints: "X" must be a non-empty lower-case word`},
	}
	for _, tt := range tests {
		_, err := NewGate(tt.rules)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("NewGate(%v) = %v, want %q", tt.rules, err, tt.want)
		}
	}
}

func TestCustomGate(t *testing.T) {
	g, err := NewGate([]Rule{{ID: "team.adr", Category: CategoryDecision, Pattern: `\bADR:`}})
	if err != nil {
		t.Fatal(err)
	}
	v := g.Check("ADR: keep the monorepo. Use Redis.")
	want := []Match{{Rule: "team.adr", Category: CategoryDecision, Start: 0, End: 4, Text: "ADR:"}}
	if diff := cmp.Diff(want, v.Matches); diff != "" || !v.Admits {
		t.Errorf("admits %v, matches (-want +got):\n%s", v.Admits, diff)
	}
	if diff := cmp.Diff([]Rule{{ID: "team.adr", Category: CategoryDecision, Pattern: `\bADR:`}}, g.Rules()); diff != "" {
		t.Error(diff)
	}
}

func TestSplitSentences(t *testing.T) {
	text := "Use X. Why?\nNo: keep Y!  file.go stays (ok?) \n\n  last"
	var got []string
	for _, s := range splitSentences(text) {
		q := ""
		if s.question {
			q = "?"
		}
		got = append(got, q+text[s.start:s.end])
	}
	want := []string{"Use X.", "?Why?", "No: keep Y!", "?file.go stays (ok?)", "last"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// FuzzGate checks the gate on any text: no panic, offsets inside the text
// and on the words they name, matches in order, the verdict agreeing with
// them.
func FuzzGate(f *testing.F) {
	for _, s := range []string{"Use SQLite. Never use Redis instead of X?", "```\nmust\n```\nFrom now on, use zap.", "a`b`c must", "Don’t use it.\r\n- always", "\xff\xfeuse x",
		"Use a subagent instead of grep. Remember the number 42: 7, 8.", "Remember that we: it’s x. Save it in cortex!"} {
		f.Add(s)
	}
	g := DefaultGate()
	rules := DefaultRules()
	for i := range rules {
		rules[i].Hints = nil
	}
	noHints, err := NewGate(rules)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v := g.Check(text)
		if diff := cmp.Diff(noHints.Check(text), v); diff != "" {
			t.Fatalf("the hints skip a match (-without +with):\n%s", diff)
		}
		admits, ban := false, false
		prev := -1
		for _, m := range v.Matches {
			if m.Start < 0 || m.End > len(text) || m.Start >= m.End || text[m.Start:m.End] != m.Text {
				t.Fatalf("bad offsets %+v in %q", m, text)
			}
			if m.Start < prev {
				t.Fatalf("matches out of order: %+v", v.Matches)
			}
			prev = m.Start
			if m.Question && m.Task != "" {
				t.Fatalf("a marker in a question asks something of the task: %+v", m)
			}
			if m.Commits() {
				admits = true
				ban = ban || m.Category == CategoryBan
			}
		}
		if admits != v.Admits || ban != v.IsBan {
			t.Fatalf("verdict %v/%v disagrees with matches %+v", v.Admits, v.IsBan, v.Matches)
		}
		if v.Admits {
			epitome, _, _ := decide(text, v)
			if epitome == "" || !strings.Contains(text, epitome) {
				t.Fatalf("epitome %q not in the text", epitome)
			}
		}
	})
}

// TestGateTasks: markers that ask something of the task at hand — the
// agent's means of working, a value to hold for the conversation, the
// memory itself — are recorded with what they ask and admit nothing; the
// same words stating a choice about the project still do.
func TestGateTasks(t *testing.T) {
	g := DefaultGate()
	type mark struct{ Rule, Task string }
	tests := []struct {
		text   string
		admits bool
		marks  []mark
	}{
		{"Use a subagent to list the files.", false, []mark{{"decision.use", TaskTool}}},
		{"Use two subagents in parallel to check the docs.", false, []mark{{"decision.use", TaskTool}}},
		{"Use the Task tool to explore the codebase.", false, []mark{{"decision.use", TaskTool}}},
		{"Use grep to find the callers.", false, []mark{{"decision.use", TaskTool}}},
		{"Use plan mode for this.", false, []mark{{"decision.use", TaskTool}}},
		{"Use a subagent instead of doing it yourself.", false, []mark{{"decision.use", TaskTool}, {"rejection.instead_of", TaskTool}}},
		{"Remember the number 42. [[S:turn1]]", false, []mark{{"memory.remember", TaskRecall}}},
		{"Please remember this.", false, []mark{{"memory.remember", TaskRecall}, {"memory.remember_that", TaskRecall}}},
		{"Remember these numbers: 3, 5, 8.", false, []mark{{"memory.remember", TaskRecall}}},
		{"Remember what I said about the tests.", false, []mark{{"memory.remember", TaskRecall}}},
		{"Remember the error from the last run.", false, []mark{{"memory.remember", TaskRecall}}},
		{"Remember our database decision in cortex.", false, []mark{{"memory.remember", TaskMemory}}},
		{"Use cortex to recall what we decided.", false, []mark{{"decision.use", TaskMemory}, {"decision.decide", TaskMemory}}},
		{"Save it in your memory; always run gofmt.", true, []mark{{"imperative.always", ""}}},
		{"Always save it in your memory; run gofmt.", false, []mark{{"imperative.always", TaskMemory}}},

		{"Use ripgrep instead of grep in the scripts.", true, []mark{{"decision.use", ""}, {"rejection.instead_of", ""}}},
		{"Use the golangci-lint tool for linting.", true, []mark{{"decision.use", ""}}},
		{"Use the agent SDK for the support bot.", true, []mark{{"decision.use", ""}}},
		{"Use errors.Join to combine the close errors.", true, []mark{{"decision.use", ""}}},
		{"Remember the port is 8080.", true, []mark{{"memory.remember", ""}}},
		{"Remember to run gofmt before every commit.", true, []mark{{"memory.remember", ""}}},
		{"Remember, we deploy only from the release branch.", true, []mark{{"memory.remember", ""}}},
		{"Remember this: the payments service owns the ledger.", true, []mark{{"memory.remember", ""}, {"memory.remember_that", ""}}},
		{"Remember that the cache keys include the tenant id.", true, []mark{{"memory.remember", ""}, {"memory.remember_that", ""}}},
		{"Keep sessions in memory instead of Redis.", true, []mark{{"rejection.instead_of", ""}}},
		{"Always log errors to cortex's event log.", true, []mark{{"imperative.always", ""}}},
		{"Never add a migration to the memory store by hand.", true, []mark{{"ban.never_use", ""}, {"imperative.never", ""}}},
		{"From now on, use a subagent for every search.", true, []mark{{"memory.from_now_on", ""}, {"decision.use", TaskTool}}},
		{"Use a subagent to list the files. Then use Postgres for the store.", true, []mark{{"decision.use", TaskTool}, {"decision.use", ""}}},
		{"Use a subagent?", false, []mark{{"decision.use", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			v := g.Check(tt.text)
			var got []mark
			for _, m := range v.Matches {
				got = append(got, mark{m.Rule, m.Task})
			}
			if diff := cmp.Diff(tt.marks, got); diff != "" {
				t.Errorf("markers (-want +got):\n%s", diff)
			}
			if v.Admits != tt.admits {
				t.Errorf("admits %v, want %v", v.Admits, tt.admits)
			}
		})
	}
}
