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
// packages whose import path contains RACE_SKIP, to keep CI short. That is
// sound only while their own code starts no goroutine: the race detector
// finds nothing in code that one goroutine runs, and what those packages
// call is raced in its own package. This fails when a skipped package gains
// a go statement (then narrow RACE_SKIP), or when RACE_SKIP names nothing.
func TestRaceRunSkipsOnlySequentialCode(t *testing.T) {
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^RACE_SKIP = (\S+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile sets no RACE_SKIP")
	}
	skip := string(m[1])
	skipped := 0
	err = filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (p == "third_party" || strings.HasPrefix(d.Name(), ".")) && p != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		if !strings.Contains("/"+filepath.ToSlash(filepath.Dir(p))+"/", skip) {
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
				t.Errorf("%s starts a goroutine but the race run skips it (RACE_SKIP %s)", fset.Position(g.Pos()), skip)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if skipped == 0 {
		t.Errorf("RACE_SKIP %s names no package's code", skip)
	}
}
