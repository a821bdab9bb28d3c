package hooks

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// hookTagExpr is the expression defuseTags stands for.
var hookTagExpr = regexp.MustCompile(`(?i)<(/?)(hook_context|system|instructions?)\b`)

// defuseCases are texts at the edges of the expression: case, the letters
// that fold to 's' and 'k' ('ſ', 'K'), \b after an ASCII or a non-ASCII
// last letter, "instructions" against "instruction", tags one after the
// other, a '<' or a '/' on its own.
var defuseCases = []string{
	"", "<", "</", "<>", "<system>", "</system>", "<SYSTEM>", "<System", "<system", "</SyStEm attr>",
	"<systemx", "<system_", "<system1", "<system-", "<system\n", "<<system", "<</system", "</ /system",
	"<ſystem>", "<ſyſtem>", "<Hook_Context>", "<hook_conteKt>", "<hook_context1", "<hook-context",
	"<instructions>", "<instruction>", "<instructionsx", "<instructionx", "<instructionſ", "<instructionſ ",
	"<instructionſx", "<instructionsſ", "<INSTRUCTIONS", "a<system>b</system>c", "<system><system>",
	"x < y and <system", "‹system>", "<sys tem>", "<systém>", "<ſystem\u212a", "<hook_conte\u212at>",
	"</instructions></instruction>", "<system\u00e9", "<system\u017f", "<\u0130nstructions", "<\u0131nstructions",
}

func TestDefuseTagsAsTheExpression(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := defuseTags(s), hookTagExpr.ReplaceAllString(s, "‹$1$2"); got != want {
			t.Fatalf("defuseTags(%q) = %q, the expression gives %q", s, got, want)
		}
	}
	for _, s := range defuseCases {
		check(s)
	}
	// Texts made of the pieces the expression looks at.
	pieces := []string{"<", "/", "system", "SYSTEM", "ſ", "hook_context", "K", "instruction", "instructions",
		"s", "x", "_", "1", " ", "-", "é", "ſystem", "hook_conte", "t", ">", "\n", "INSTRUCTION"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		check(b.String())
	}
}

func FuzzDefuseTags(f *testing.F) {
	for _, s := range defuseCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := defuseTags(s), hookTagExpr.ReplaceAllString(s, "‹$1$2"); got != want {
			t.Fatalf("defuseTags(%q) = %q, the expression gives %q", s, got, want)
		}
	})
}
