package cortex

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRaceRunSkipsOnlySequentialCode: the Makefile's race run leaves out the
// packages whose import path matches one of RACE_SKIP's patterns, to keep CI
// short. That is sound only while their own code starts no goroutine: the
// race detector finds nothing in code that one goroutine runs, and what
// those packages call is raced in its own package. This fails when a
// skipped package gains a go statement (then narrow RACE_SKIP), or when a
// pattern names no package.
func TestRaceRunSkipsOnlySequentialCode(t *testing.T) {
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^RACE_SKIP = (.+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile sets no RACE_SKIP")
	}
	for _, pattern := range strings.Fields(string(m[1])) {
		// make reads $$ as $.
		re, err := regexp.Compile(strings.ReplaceAll(pattern, "$$", "$"))
		if err != nil {
			t.Fatalf("RACE_SKIP pattern %s: %v", pattern, err)
		}
		if n := goStatementsIn(t, re, pattern); n == 0 {
			t.Errorf("RACE_SKIP pattern %s names no package's code", pattern)
		}
	}
}

// goStatementsIn reports, as errors, each go statement in the code (not the
// tests) of the packages whose import path re matches, and returns how many
// files it read.
func goStatementsIn(t *testing.T, re *regexp.Regexp, pattern string) int {
	t.Helper()
	const module = "github.com/cortexmem/cortex"
	skipped := 0
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (p == "third_party" || strings.HasPrefix(d.Name(), ".")) && p != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		pkg := module
		if dir := filepath.ToSlash(filepath.Dir(p)); dir != "." {
			pkg += "/" + dir
		}
		if !re.MatchString(pkg) {
			return nil
		}
		skipped++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				t.Errorf("%s starts a goroutine but the race run skips it (RACE_SKIP %s)", fset.Position(g.Pos()), pattern)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return skipped
}
