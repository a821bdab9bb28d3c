package security

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkPres checks that no form's pre turns away a place where its
// expression matches and the keywords it needs are found: pre is a cheaper
// test run first, and must be one that every match passes. Every offset of
// text is tried, not only those where a trigger is.
func checkPres(t *testing.T, text string) {
	t.Helper()
	var v texts
	v[original] = text
	v[folded], v[unleet] = foldTexts(text)
	for _, row := range table().rows {
		r, f := row.rule, row.form
		if f.pre == nil {
			continue
		}
		if f.afterTrigger {
			t.Fatalf("%s %q: a pre on a form matched from the end of its trigger", r.id, f.triggers)
		}
		src := v[r.on]
		for i := 0; i < len(text); i++ {
			if !utf8.RuneStart(text[i]) || f.pre(text, i) {
				continue
			}
			end := alignEnd(src, i+r.maxLen)
			if f.needSet != nil {
				we := needEnd(src, i, end, f.needWithin)
				if !f.needSet.in(src[i:we]) || f.need2Set != nil && !f.need2Set.in(src[i:we]) {
					continue
				}
			}
			if loc := f.re.get().FindStringIndex(src[i:end]); loc != nil {
				t.Fatalf("%s %q: pre turns away %q at %d, where the expression matches %q",
					r.id, f.triggers, text, i, src[i:i+loc[1]])
			}
		}
	}
}

// TestPresAreNecessary runs checkPres over the corpus and over random texts
// made of the forms' triggers, the signs and words their expressions read,
// and blanks.
func TestPresAreNecessary(t *testing.T) {
	for _, s := range fuzzSeeds(t) {
		checkPres(t, s)
	}
	alphabet := []string{"=", "==", "-", "---", "#", "##", "######", "[ ", " [", "[", "[[", "]", "]]", " ", "\t", "\n", ":", "@", "/", "://",
		"system", "SYSTEM", "begin ", "Start ", "admin", "assistant", "instruction", "override", "message", "prompt",
		"root", "operator", "developer", "human", "response", "user", "=== admin override ===", "-----BEGIN ASSISTANT INSTRUCTIONS-----", "== Operator prompt ==", "---- root message ----", "[[ developer message ]]", "[Operator]:", "[root]:", "[Operator note:", "[ admin update:", "[developer alert:", "[System notice:", "## Human:", "#Instruction:", "https://u:pa55w0rd@host", "--0123456789-0123456789_0123456789.012345678", "--db-password ", "--TOKEN\t", "curl ", "Http\n", "/dev/tcp/", "nc\t", "ncat ", "https://", "postgres://u:p4ssw0rd@db", "jdbc:cockroachdb://a:b@c", "mongodb+srv://x:y@z", "redis", "pat", "pat0123456789ABcd.", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "pa55word", "password", "--password", "secret", "_", ".", "|", "hunter22", "\"", "Token", "example.com", "é", "\u00a0"}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		var sb strings.Builder
		for range 1 + rng.IntN(14) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		checkPres(t, sb.String())
	}
}

// TestFolderPres runs checkPres over the notes of the folders named by
// SECURITY_BENCH_DIRS, when set.
func TestFolderPres(t *testing.T) {
	for _, s := range folderTexts(t, 50) {
		checkPres(t, s)
	}
}

func FuzzPres(f *testing.F) {
	for _, s := range fuzzSeeds(&testing.T{}) {
		f.Add(s)
	}
	f.Fuzz(checkPres)
}

// TestMarkdownSkipsExpressions: the markdown that most often holds the
// triggers of the fake_marker and url_credentials forms (rules, headings,
// wikilinks, task boxes, URLs) is turned away by their pre, before the
// expression runs.
func TestMarkdownSkipsExpressions(t *testing.T) {
	cases := []struct {
		rule, trigger, text string
	}{
		{"prompt_injection.fake_marker", "---", "---\ntitle: Notes\n---"},
		{"prompt_injection.fake_marker", "==", "x == y"},
		{"prompt_injection.fake_marker", "##", "## Notes"},
		{"prompt_injection.fake_marker", "# ", "# Meeting notes"},
		{"prompt_injection.fake_marker", "[[", "[[Project plan]]"},
		{"prompt_injection.fake_marker", "[ ", "[ ] buy milk"},
		{"prompt_injection.fake_marker", "[s", "[see the docs](https://example.com)"},
		{"credential.url_credentials", "://", "https://example.com/a:b@c"},
		{"exfiltration.secret_variable", "http", "see https://example.com"},
		{"credential.database_url", "postgres", "we moved to postgres last year"},
		{"credential.vendor_token", "pat", "a pattern"},
		{"credential.password_assignment", "--", "|---|---|\n| pass | word |"},
		{"credential.secret_assignment", "--", "---\ntitle: token\n---"},
		{"credential.secret_assignment", "--", "a --> token: b"},
	}
	for _, c := range cases {
		n := 0
		for _, row := range table().rows {
			if row.rule.id != c.rule || !contains(row.form.triggers, c.trigger) {
				continue
			}
			n++
			if row.form.pre == nil || row.form.pre(c.text, strings.Index(c.text, strings.TrimSpace(c.trigger))) {
				t.Errorf("%s %q: %q is not turned away before the expression", c.rule, row.form.triggers, c.text)
			}
		}
		if n == 0 {
			t.Errorf("no form of %s has the trigger %q", c.rule, c.trigger)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
