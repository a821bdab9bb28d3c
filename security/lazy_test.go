package security

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
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

// TestNothingBuiltAtStartUp checks that no package-level variable of the
// package is built by running code when a process starts: every command
// links this package and pays for its initialisation, and most never scan.
// A variable whose initialiser calls a function (sync.OnceValue, alt,
// words, a constructor) or holds a map literal runs at start-up; constants,
// slices and arrays of constants, and composite literals whose functions
// capture nothing (lazyRE, lazy) are laid out by the linker.
func TestNothingBuiltAtStartUp(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fs := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fs, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					if what := builtAtStartUp(v); what != "" {
						t.Errorf("%s: a package-level variable is built at start-up (%s)", fs.Position(v.Pos()), what)
					}
				}
			}
		}
	}
}

// builtAtStartUp returns what in the initialiser e runs when the process
// starts, or "". Function literals are not entered: their bodies run when
// called. A call of a function literal whose result is an array of bytes
// (unleetByte) is allowed: it fills a table in place, without allocating.
func builtAtStartUp(e ast.Expr) string {
	var what string
	ast.Inspect(e, func(n ast.Node) bool {
		if what != "" {
			return false
		}
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if lit, ok := x.Fun.(*ast.FuncLit); ok && len(x.Args) == 0 {
				if r := lit.Type.Results; r != nil && len(r.List) == 1 {
					if at, ok := r.List[0].Type.(*ast.ArrayType); ok && at.Len != nil && types(at.Elt) == "byte" {
						return false
					}
				}
			}
			what = "a call"
		case *ast.CompositeLit:
			if _, ok := x.Type.(*ast.MapType); ok {
				what = "a map"
			}
		}
		return true
	})
	return what
}

func types(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// TestLazyBuildsOnce checks that a lazy value and a lazy expression are
// built on first use, once.
func TestLazyBuildsOnce(t *testing.T) {
	n := 0
	l := &lazy[int]{build: func() int { n++; return 42 }}
	if n != 0 {
		t.Fatal("built before use")
	}
	if a, b := l.get(), l.get(); a != 42 || b != 42 || n != 1 {
		t.Fatalf("get = %d, %d after %d builds, want 42, 42 after 1", a, b, n)
	}
	built := 0
	re := &lazyRE{build: func() string { built++; return words(`a b`) }}
	if !re.get().MatchString("a \u200b b") || !re.get().MatchString("a b") || built != 1 {
		t.Fatalf("lazyRE built %d times or did not match", built)
	}
	if (&lazyRE{pattern: `^x+$`}).get().MatchString("xy") {
		t.Fatal("a constant pattern matched what it should not")
	}
}

// TestToolsOf holds the switch in toolsOf to the lists it was written from.
func TestToolsOf(t *testing.T) {
	want := map[string]toolSet{"tee": toolTee}
	for _, g := range []struct {
		names []string
		t     toolSet
	}{
		{[]string{"curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "nslookup", "dig", "http", "https", "xh", "invoke-webrequest", "invoke-restmethod", "iwr", "irm", "scp", "rsync", "sftp", "ftp"}, toolNet},
		{[]string{"nc", "ncat", "netcat", "socat", "telnet", "nslookup", "dig"}, toolRawNet},
		{[]string{"cat", "less", "more", "head", "tail", "base64", "xxd", "od", "hexdump", "strings", "type", "get-content", "gc", "bat", "nl", "tac", "openssl"}, toolPrinter},
		{[]string{"scp", "rsync", "sftp"}, toolCopy},
		{[]string{"tar", "zip", "7z", "gzip", "cpio"}, toolArchiver},
	} {
		for _, n := range g.names {
			want[n] |= g.t
		}
	}
	for n, ts := range want {
		if got := toolsOf(n); got != ts {
			t.Errorf("toolsOf(%q) = %b, want %b", n, got, ts)
		}
	}
	for _, n := range []string{"", "ls", "curlx", "git", "echo"} {
		if got := toolsOf(n); got != 0 {
			t.Errorf("toolsOf(%q) = %b, want none", n, got)
		}
	}
}

// TestStartConditions checks that every form with a start condition (at)
// reports its finding where the expression starts: at is tested on the
// window's start before the expression runs, which is the same test only
// when the finding cannot start elsewhere (no capturing group, not
// matched from the end of the trigger).
func TestStartConditions(t *testing.T) {
	var rules []*rule
	for _, group := range [][]*rule{unicodeRules(), injectionRules(), exfiltrationRules(), credentialRules(), configCredentialRules()} {
		rules = append(rules, group...)
	}
	n := 0
	for _, r := range buildTable(rules).rows {
		if r.form.at == nil {
			continue
		}
		n++
		if r.form.afterTrigger {
			t.Errorf("%s %q: a start condition on a form matched from the end of its trigger", r.rule.id, r.form.triggers)
		}
		if k := regexp.MustCompile(r.form.re.pattern).NumSubexp(); k > 0 {
			t.Errorf("%s %q: a start condition on a form with %d capturing groups", r.rule.id, r.form.triggers, k)
		}
	}
	if n == 0 {
		t.Fatal("no form has a start condition")
	}
}

// TestKeywordSet holds keywordSet.in to a search per keyword, over the
// forms' own lists and windows cut from the corpus at every offset.
func TestKeywordSet(t *testing.T) {
	var rules []*rule
	for _, group := range [][]*rule{unicodeRules(), injectionRules(), exfiltrationRules(), credentialRules(), configCredentialRules()} {
		rules = append(rules, group...)
	}
	var lists [][]string
	for _, r := range buildTable(rules).rows {
		for _, l := range [][]string{r.form.need, r.form.need2} {
			if len(l) > 0 {
				lists = append(lists, l)
			}
		}
	}
	lists = append(lists, []string{"a"}, []string{"ab", "a", "b"}, []string{"zz", "z"})
	if newKeywordSet(nil) != nil {
		t.Error("a set of no keywords is not nil")
	}
	text := foldString(strings.Join(readCorpus(t, "malicious.txt")[:40], "\n"))
	for _, l := range lists {
		k := newKeywordSet(l)
		for i := 0; i < len(text); i += 7 {
			w := text[i:min(len(text), i+90)]
			if got, want := k.in(w), containsAny(w, l); got != want {
				t.Fatalf("in(%q) over %q = %v, want %v", w, l, got, want)
			}
		}
	}
}
