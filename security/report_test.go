package security

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The scan report measures Scan on sets of texts that must be refused
// (attacks, live secrets) and sets that must save (notes, documentation,
// placeholders), and prints per set how many it refuses and which rule
// families refused them:
//
//	go test ./security -run ScanReport -v
//
// The committed sets (the corpus, the multilingual corpus, fixtures/scan and
// the real documentation under fixtures/import) are always read, and each
// must meet its goal. Larger sets that cannot be committed (their licence, or
// their size) are read from the folder named by CORTEX_SCAN_SETS when it is
// set: every *.jsonl file there holds one sample a line,
//
//	{"set": "hijack", "label": "attack", "text": "…", "source": "…"}
//
// with label "attack" (must be refused) or "benign" (must save). Their
// results are printed next to the goals of scanSetGoals, for the set names it
// lists, and a set that misses its goal is marked in the table; only the
// committed sets fail the test. fixtures/scan/README.md says how the external
// sets were built.

// scanSetsEnv names the folder of the external sets.
const scanSetsEnv = "CORTEX_SCAN_SETS"

// scanShowEnv names how many samples an external set gets wrong are logged
// (40 when unset).
const scanShowEnv = "CORTEX_SCAN_SHOW"

func showWrong(t *testing.T) int {
	t.Helper()
	v := os.Getenv(scanShowEnv)
	if v == "" {
		return 40
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a count of samples", scanShowEnv, v)
	}
	return n
}

// scanDir holds the committed sets written for the report.
const scanDir = "../fixtures/scan"

// scanSample is one text of a set.
type scanSample struct {
	text, source string
	attack       bool
}

// scanSet is a named set of samples.
type scanSet struct {
	name    string
	samples []scanSample
}

// scanGoal is what a set must reach: the least share of attacks refused, or
// the largest share of benign samples refused.
type scanGoal struct {
	minCaught, maxRefused float64
}

// scanSetGoals are the goals of the sets by name. Committed sets without a
// goal of their own must catch every attack and refuse at most 1 % of the
// benign samples; external sets without one are only reported.
var scanSetGoals = map[string]scanGoal{
	"corpus-malicious":          {minCaught: 1},
	"corpus-benign":             {maxRefused: 0.01},
	"multilingual-benign":       {maxRefused: 0},
	"multilingual-attacks":      {minCaught: 1},
	"fixtures-docs":             {maxRefused: 0.01},
	"docs-benign":               {maxRefused: 0.01},
	"docs-obsidian":             {maxRefused: 0.01},
	"hijack":                    {minCaught: 0.70},
	"extraction":                {minCaught: 0.50},
	"pallms":                    {minCaught: 0.80},
	"gitleaks-dev-true":         {minCaught: 0.95},
	"gitleaks-dev-false":        {maxRefused: 0.05},
	"gitleaks-heldout-true":     {minCaught: 0.95},
	"gitleaks-heldout-false":    {maxRefused: 0.05},
	"gitleaks-dev-nearmiss":     {maxRefused: 0.05},
	"gitleaks-heldout-nearmiss": {maxRefused: 0.05},
	"security-notes-benign":     {maxRefused: 0.01},
	"scan-attacks-extraction":   {minCaught: 1},
	"scan-attacks-boundary":     {minCaught: 1},
	"scan-attacks-role":         {minCaught: 1},
	"scan-attacks-override":     {minCaught: 1},
	"scan-benign-notes":         {maxRefused: 0},
	"scan-benign-security-docs": {maxRefused: 0},
}

// setGoal is the goal of the set name. An external set split into halves
// ("hijack-dev", "hijack-heldout") has the goal of the set it was split from.
func setGoal(name string) (scanGoal, bool) {
	if g, ok := scanSetGoals[name]; ok {
		return g, true
	}
	for _, half := range []string{"-dev", "-heldout"} {
		if base, ok := strings.CutSuffix(name, half); ok {
			g, ok := scanSetGoals[base]
			return g, ok
		}
	}
	return scanGoal{}, false
}

// committedSets reads the sets that live in the repository.
func committedSets(t *testing.T) []scanSet {
	t.Helper()
	var sets []scanSet
	add := func(name string, attack bool, texts []string, source string) {
		s := scanSet{name: name}
		for _, x := range texts {
			s.samples = append(s.samples, scanSample{text: x, source: source, attack: attack})
		}
		sets = append(sets, s)
	}
	add("corpus-malicious", true, readCorpus(t, "malicious.txt"), "security/testdata/corpus/malicious.txt")
	add("corpus-benign", false, readCorpus(t, "benign.txt"), "security/testdata/corpus/benign.txt")

	files, err := filepath.Glob(filepath.Join(multilingualDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var ml []string
	for _, f := range files {
		if filepath.Base(f) != "attacks.txt" {
			ml = append(ml, readSamples(t, f)...)
		}
	}
	add("multilingual-benign", false, ml, "fixtures/multilingual")
	var mla []string
	for _, a := range readAttacks(t) {
		mla = append(mla, a.text)
	}
	add("multilingual-attacks", true, mla, "fixtures/multilingual/attacks.txt")

	// fixtures/scan: attacks-*.txt and benign-*.txt in the corpus format.
	scan, err := filepath.Glob(filepath.Join(scanDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range scan {
		base := strings.TrimSuffix(filepath.Base(f), ".txt")
		attack := strings.HasPrefix(base, "attacks-")
		if !attack && !strings.HasPrefix(base, "benign-") {
			t.Fatalf("%s: a set's file name starts with attacks- or benign-", f)
		}
		add("scan-"+base, attack, readSamples(t, f), "fixtures/scan/"+filepath.Base(f))
	}

	// Real documentation and hand-written vaults: every markdown file under
	// fixtures/import is a note someone could save.
	var docs []string
	err = filepath.WalkDir("../fixtures/import", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if len(strings.TrimSpace(string(b))) > 0 {
			docs = append(docs, string(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	add("fixtures-docs", false, docs, "fixtures/import/**/*.md")
	return sets
}

// externalSets reads the *.jsonl files of dir.
func externalSets(t *testing.T, dir string) []scanSet {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("%s=%s: no *.jsonl file there", scanSetsEnv, dir)
	}
	byName := map[string]*scanSet{}
	var names []string
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for n := 1; sc.Scan(); n++ {
			var rec struct{ Set, Label, Text, Source string }
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("%s:%d: %v", f, n, err)
			}
			if rec.Label != "attack" && rec.Label != "benign" {
				t.Fatalf("%s:%d: label %q, want attack or benign", f, n, rec.Label)
			}
			s := byName[rec.Set]
			if s == nil {
				s = &scanSet{name: rec.Set}
				byName[rec.Set] = s
				names = append(names, rec.Set)
			}
			s.samples = append(s.samples, scanSample{text: rec.Text, source: rec.Source, attack: rec.Label == "attack"})
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	slices.Sort(names)
	sets := make([]scanSet, 0, len(names))
	for _, n := range names {
		sets = append(sets, *byName[n])
	}
	return sets
}

// setResult is what the report says of one set.
type setResult struct {
	name            string
	attacks, benign int
	refused         int            // samples refused
	families        map[string]int // samples refused by each category of rule
	rules           map[string]int // samples refused by each rule
	wrong           []string       // attacks let through, or benign samples refused
	texts           []string       // the samples' texts
	refusedText     map[string]bool
}

func measure(s scanSet) setResult {
	r := setResult{name: s.name, families: map[string]int{}, rules: map[string]int{}, refusedText: map[string]bool{}}
	for _, x := range s.samples {
		r.texts = append(r.texts, x.text)
		if x.attack {
			r.attacks++
		} else {
			r.benign++
		}
		fs := Scan(x.text)
		if len(fs) > 0 {
			r.refused++
			r.refusedText[x.text] = true
			seenCat, seenRule := map[Category]bool{}, map[string]bool{}
			for _, f := range fs {
				if !seenCat[f.Category] {
					seenCat[f.Category] = true
					r.families[string(f.Category)]++
				}
				if !seenRule[f.Rule] {
					seenRule[f.Rule] = true
					r.rules[f.Rule]++
				}
			}
		}
		switch {
		case x.attack && len(fs) == 0:
			r.wrong = append(r.wrong, fmt.Sprintf("missed [%s] %s", x.source, excerpt(x.text)))
		case !x.attack && len(fs) > 0:
			f := fs[0]
			r.wrong = append(r.wrong, fmt.Sprintf("refused [%s] %s %q in %s", x.source, f, excerpt(x.text[f.Start:f.End]), excerpt(x.text)))
		}
	}
	return r
}

// rate is the share of the set's samples refused.
func (r setResult) rate() float64 {
	return float64(r.refused) / float64(max(1, r.attacks+r.benign))
}

func (r setResult) line() string {
	kind := "attacks"
	n := r.attacks
	if r.benign > 0 && r.attacks == 0 {
		kind = "benign"
		n = r.benign
	}
	type kv struct {
		k string
		v int
	}
	var fam []kv
	for k, v := range r.families {
		fam = append(fam, kv{k, v})
	}
	slices.SortFunc(fam, func(a, b kv) int { return cmp.Or(b.v-a.v, strings.Compare(a.k, b.k)) })
	var parts []string
	for _, f := range fam {
		parts = append(parts, fmt.Sprintf("%s %d", f.k, f.v))
	}
	return fmt.Sprintf("%-28s %-7s %6d  refused %6d  %6.1f%%  %s", r.name, kind, n, r.refused, 100*r.rate(), strings.Join(parts, ", "))
}

// ruleLines lists the rules that refused samples of the set, most first.
func (r setResult) ruleLines() string {
	type kv struct {
		k string
		v int
	}
	var xs []kv
	for k, v := range r.rules {
		xs = append(xs, kv{k, v})
	}
	slices.SortFunc(xs, func(a, b kv) int { return cmp.Or(b.v-a.v, strings.Compare(a.k, b.k)) })
	var parts []string
	for _, x := range xs {
		parts = append(parts, fmt.Sprintf("%s %d", strings.TrimPrefix(strings.TrimPrefix(x.k, "prompt_injection."), "credential."), x.v))
	}
	return "    rules: " + strings.Join(parts, ", ")
}

// siblingLines splits each gitleaks "-false" set by its "-nearmiss" half:
// a false sample of one rule that is not a near miss is flagged by another
// of gitleaks' rules (a Cloudflare global key is the origin-CA rule's false
// sample), a live secret that a memory must refuse. The line gives the
// refusals among those apart, and the rate of the set without them.
func siblingLines(results map[string]setResult) []string {
	var names []string
	for n := range results {
		if strings.HasSuffix(n, "-false") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var out []string
	for _, n := range names {
		f := results[n]
		near, ok := results[strings.TrimSuffix(n, "-false")+"-nearmiss"]
		if !ok {
			continue
		}
		isNear := map[string]bool{}
		for _, x := range near.texts {
			isNear[x] = true
		}
		own, ownRefused, sibling, siblingRefused := 0, 0, 0, 0
		for _, x := range f.texts {
			switch {
			case isNear[x]:
				own++
				if f.refusedText[x] {
					ownRefused++
				}
			default:
				sibling++
				if f.refusedText[x] {
					siblingRefused++
				}
			}
		}
		out = append(out, fmt.Sprintf("%-28s benign  %6d  refused %6d  %6.1f%%  without the %d samples another gitleaks rule flags (live secrets; %d of them refused)",
			n+"-own", own, ownRefused, 100*float64(ownRefused)/float64(max(1, own)), sibling, siblingRefused))
	}
	return out
}

// TestScanReport measures Scan on every set and checks the goals. With -v it
// prints the table; the samples a set gets wrong are logged (all of them for
// a committed set, the first 40 for an external one).
func TestScanReport(t *testing.T) {
	sets := committedSets(t)
	external := 0
	if dir := os.Getenv(scanSetsEnv); dir != "" {
		ext := externalSets(t, dir)
		external = len(ext)
		sets = append(sets, ext...)
	}
	var table []string
	results := map[string]setResult{}
	for i, s := range sets {
		if len(s.samples) == 0 {
			t.Errorf("set %s is empty", s.name)
			continue
		}
		r := measure(s)
		results[s.name] = r
		committed := i < len(sets)-external
		goal, ok := setGoal(s.name)
		if !ok && committed {
			goal = scanGoal{minCaught: 1, maxRefused: 0.01}
			ok = true
		}
		var miss string
		switch {
		case ok && r.attacks > 0 && r.rate() < goal.minCaught:
			miss = fmt.Sprintf("%.1f%% of %d attacks refused, want at least %.0f%%", 100*r.rate(), r.attacks, 100*goal.minCaught)
		case ok && r.benign > 0 && r.rate() > goal.maxRefused:
			miss = fmt.Sprintf("%.2f%% of %d benign samples refused, want at most %.0f%%", 100*r.rate(), r.benign, 100*goal.maxRefused)
		}
		mark := ""
		if miss != "" {
			mark = "  ← below goal"
		}
		table = append(table, r.line()+mark, r.ruleLines())
		limit := len(r.wrong)
		if !committed {
			limit = min(limit, showWrong(t))
		}
		for _, w := range r.wrong[:limit] {
			t.Logf("%s: %s", s.name, w)
		}
		if miss != "" && committed {
			t.Errorf("%s: %s", s.name, miss)
		}
	}
	table = append(table, siblingLines(results)...)
	report := "scan report (set, kind, samples, refused, rate, refusals by rule family):\n" + strings.Join(table, "\n")
	t.Log(report)
	if testing.Verbose() {
		fmt.Println(report)
	}
}
