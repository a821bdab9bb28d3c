package security

import (
	"fmt"
	"slices"
	"strings"
)

// Category groups rules by the harm they guard against.
type Category string

// The categories of rules.
const (
	CategoryUnicode      Category = "unicode"
	CategoryInjection    Category = "prompt_injection"
	CategoryExfiltration Category = "exfiltration"
	CategoryCredential   Category = "credential"
)

// Finding is one rule that fired.
type Finding struct {
	Rule     string // "<category>.<name>", e.g. "prompt_injection.override"
	Category Category
	Start    int // byte offset of the match in the scanned text
	End      int // byte offset just past it
	Line     int // 1-based line of Start
}

// String names the rule and the line, never the matched text: a finding is
// reported and logged, and the text it points at may be a secret.
func (f Finding) String() string {
	return fmt.Sprintf("%s at line %d", f.Rule, f.Line)
}

// RuleInfo describes one rule of the table, for documentation.
type RuleInfo struct {
	ID          string
	Category    Category
	Description string
}

// Scan runs every rule over text and returns the findings sorted by Start, then
// Rule. Overlapping findings of one rule are merged into one.
//
// Injection findings inside a quotation that the surrounding prose frames as an
// example are left out (see the package documentation); unicode, exfiltration
// and credential findings never are.
func Scan(text string) []Finding {
	return scan(text, nil)
}

// ScanCredentials runs only the credential rules. Transcripts are redacted
// rather than rejected, so the other categories do not apply to them.
func ScanCredentials(text string) []Finding {
	return scan(text, func(r *rule) bool { return r.category == CategoryCredential })
}

// Rules lists the rule table in a stable order (by category, then ID).
func Rules() []RuleInfo {
	t := table()
	out := make([]RuleInfo, 0, len(t.rules))
	for _, r := range t.rules {
		out = append(out, RuleInfo{ID: r.id, Category: r.category, Description: r.desc})
	}
	order := map[Category]int{CategoryUnicode: 0, CategoryInjection: 1, CategoryExfiltration: 2, CategoryCredential: 3}
	slices.SortStableFunc(out, func(a, b RuleInfo) int {
		if c := order[a.Category] - order[b.Category]; c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}
