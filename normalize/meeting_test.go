package normalize

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/internal/golden"
)

// TestParseMeetingGoldens parses every testdata/meetings/*.md and compares
// what it finds with the .json beside it (go test ./normalize -update
// rewrites them).
func TestParseMeetingGoldens(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "meetings", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no meeting fixtures: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(ParseMeeting(string(data)), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, strings.TrimSuffix(f, ".md")+".json", append(got, '\n'))
		})
	}
}

// TestParseMeetingItems pins the rules one at a time.
func TestParseMeetingItems(t *testing.T) {
	type items struct {
		Actions   []string // title|due|done
		Decisions []string
	}
	for _, tc := range []struct {
		name, notes string
		want        items
	}{
		{"a task anywhere is an action", "Notes\n\n- [ ] call Ana\n- [x] mail Bo\n",
			items{Actions: []string{"call Ana||", "mail Bo||done"}}},
		{"a plain item under an action heading", "## Action items\n- call Ana\n\n## Other\n- not one\n",
			items{Actions: []string{"call Ana||"}}},
		{"a heading's section ends at the next of its level", "## Decisions\n### Sub\n- a\n## Notes\n- b\n",
			items{Decisions: []string{"a"}}},
		{"paragraphs in a decision section", "## Decided\nWe keep the cron.\n\nAnd the queue.\n",
			items{Decisions: []string{"We keep the cron.", "And the queue."}}},
		{"labels", "Decision: use Go 1.25\ndecided : keep it\nTODO: tidy\n",
			items{Actions: []string{"tidy||"}, Decisions: []string{"use Go 1.25", "keep it"}}},
		{"a label needs its colon and text", "Decisions are hard.\nDecision:\nAction items were discussed\n", items{}},
		{"code holds nothing", "```\n- [ ] no\nDecision: no\n```\n    - [ ] indented code\n", items{}},
		{"a task in a decision section is an action", "## Decisions\n- [ ] confirm with legal\n- ship it\n",
			items{Actions: []string{"confirm with legal||"}, Decisions: []string{"ship it"}}},
		{"nested tasks", "- [ ] parent\n  - [ ] child 📅 2026-12-09\n",
			items{Actions: []string{"parent||", "child|2026-12-09|"}}},
		{"an empty task is skipped", "- [ ] \n- [ ]\n", items{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mt := ParseMeeting(tc.notes)
			var got items
			for _, a := range mt.Actions {
				done := ""
				if a.Done {
					done = "done"
				}
				got.Actions = append(got.Actions, a.Title+"|"+a.Due+"|"+done)
			}
			for _, d := range mt.Decisions {
				got.Decisions = append(got.Decisions, d.Title)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFindDue reads due dates in the forms people write them and takes the
// phrase out of the title.
func TestFindDue(t *testing.T) {
	for _, tc := range []struct {
		in, due, rest string
	}{
		{"write the runbook, due 2026-12-01", "2026-12-01", "write the runbook"},
		{"write the runbook due: 2026-12-01", "2026-12-01", "write the runbook"},
		{"write the runbook (due: 28 Nov 2026)", "2026-11-28", "write the runbook"},
		{"write the runbook (due 28th November 2026) today", "2026-11-28", "write the runbook today"},
		{"tune it due by Dec 3, 2026", "2026-12-03", "tune it"},
		{"tune it due on September 3rd 2026", "2026-09-03", "tune it"},
		{"tune it due Sept 3 2026", "2026-09-03", "tune it"},
		{"batch it 📅 2026-12-05", "2026-12-05", "batch it"},
		{"metric ⏫ 📅 2026-12-02", "2026-12-02", "metric ⏫"},
		{"wire it @due(2026-12-09)", "2026-12-09", "wire it"},
		{"ask infra [due:: 2026-12-10]", "2026-12-10", "ask infra"},
		{"Due 2026-12-01: ship", "2026-12-01", ": ship"},
		{"no date 📅 2026-02-30", "", "no date 📅 2026-02-30"},
		{"overdue 2026-11-01 items", "", "overdue 2026-11-01 items"},
		{"due soon", "", "due soon"},
		{"due 2026-13-01", "", "due 2026-13-01"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			due, rest := findDue(tc.in)
			if due != tc.due || rest != tc.rest {
				t.Errorf("findDue(%q) = %q, %q; want %q, %q", tc.in, due, rest, tc.due, tc.rest)
			}
		})
	}
}

// TestParseMeetingTitle: the title comes from the title property, else the
// first level-1 heading, else the first line; the date from the date property, else
// the title.
func TestParseMeetingTitle(t *testing.T) {
	for _, tc := range []struct {
		name, notes, title, date string
		tags                     []string
	}{
		{"property", "---\ntitle: Sync\ndate: 2026-11-02\ntags: a, b\n---\n# Other\n", "Sync", "2026-11-02", []string{"a", "b"}},
		{"level-1 heading", "intro line\n\n# Sync 2026-11-03\n", "Sync 2026-11-03", "2026-11-03", nil},
		{"first line before a level-2 heading", "intro line\n\n## Sync 2026-11-03\n", "intro line", "", nil},
		{"first line", "\n\n  > Vendor call\nmore\n", "Vendor call", "", nil},
		{"empty", "", "Meeting", "", nil},
		{"broken frontmatter is cut, not read", "---\ntitle: [unclosed\n---\n# Real\n", "Real", "", nil},
		{"unclosed frontmatter is text", "---\ntitle: x\n# Real\n", "Real", "", nil},
		{"unclosed frontmatter is text, its line the title", "---\ntitle: x\n", "title: x", "", nil},
		{"a long title is cut", "# " + strings.Repeat("word ", 40), strings.TrimSpace(strings.Repeat("word ", 23)) + "…", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mt := ParseMeeting(tc.notes)
			if mt.Title != tc.title || mt.Date != tc.date {
				t.Errorf("title %q date %q; want %q %q", mt.Title, mt.Date, tc.title, tc.date)
			}
			if diff := cmp.Diff(tc.tags, mt.Tags); diff != "" {
				t.Errorf("tags (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseMeetingLines: items know the line of the notes they are on,
// frontmatter counted.
func TestParseMeetingLines(t *testing.T) {
	mt := ParseMeeting("---\ntitle: x\n---\n# T\n\n- [ ] one\n\nDecision: two\n")
	if len(mt.Actions) != 1 || mt.Actions[0].Line != 6 {
		t.Errorf("actions %+v, want one on line 6", mt.Actions)
	}
	if len(mt.Decisions) != 1 || mt.Decisions[0].Line != 8 {
		t.Errorf("decisions %+v, want one on line 8", mt.Decisions)
	}
}

// FuzzParseMeeting: any input parses without a panic into items whose
// titles are one non-empty line within the bound, with real due dates.
func FuzzParseMeeting(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "meetings", "*.md"))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Add("---\n---\n")
	f.Add("- [ ] due 31 Feb 2026\n> - [x] 📅 2026-01-01\n")
	f.Fuzz(func(t *testing.T, notes string) {
		mt := ParseMeeting(notes)
		if mt.Title == "" || strings.ContainsAny(mt.Title, "\n\r") || utf8.RuneCountInString(mt.Title) > maxItemTitle {
			t.Errorf("title %q", mt.Title)
		}
		if mt.Date != "" {
			if _, err := time.Parse("2006-01-02", mt.Date); err != nil {
				t.Errorf("date %q", mt.Date)
			}
		}
		check := func(kind, title string, line int) {
			if title == "" || strings.ContainsAny(title, "\n\r\t") || utf8.RuneCountInString(title) > maxItemTitle || !utf8.ValidString(title) {
				t.Errorf("%s title %q", kind, title)
			}
			if line < 1 || line > strings.Count(notes, "\n")+1 {
				t.Errorf("%s %q on line %d of %d", kind, title, line, strings.Count(notes, "\n")+1)
			}
		}
		for _, a := range mt.Actions {
			check("action", a.Title, a.Line)
			if a.Due != "" {
				if _, err := time.Parse("2006-01-02", a.Due); err != nil {
					t.Errorf("action %q: due %q", a.Title, a.Due)
				}
			}
		}
		for _, d := range mt.Decisions {
			check("decision", d.Title, d.Line)
		}
	})
}
