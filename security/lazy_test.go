package security

import (
	"regexp"
	"testing"
)

// TestPatternsCompileLazily checks the table compiles no expression until a
// trigger of its form is found (a process that scans one short note pays
// for the forms that note triggers, not for all of them), and that every
// pattern compiles, since a bad one would otherwise panic only when some
// text first triggers it.
func TestPatternsCompileLazily(t *testing.T) {
	var rules []*rule
	for _, group := range [][]*rule{unicodeRules(), injectionRules(), exfiltrationRules(), credentialRules(), configCredentialRules()} {
		rules = append(rules, group...)
	}
	tab := buildTable(rules)
	for _, r := range tab.rows {
		if r.form.re.re != nil {
			t.Fatalf("%s: expression compiled when the table was built", r.rule.id)
		}
	}
	for _, r := range tab.rows {
		if _, err := regexp.Compile(r.form.re.pattern); err != nil {
			t.Errorf("%s: %v", r.rule.id, err)
		}
	}
}
