package pipeline

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// labelledTurn is one line of testdata/gate-turns.tsv.
type labelledTurn struct {
	decision bool
	source   string
	text     string
}

func loadLabelledTurns(t *testing.T) []labelledTurn {
	t.Helper()
	f, err := os.Open("testdata/gate-turns.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []labelledTurn
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 3 || (cols[0] != "decision" && cols[0] != "task") || cols[2] == "" {
			t.Fatalf("gate-turns.tsv:%d: want label (decision or task), source and text, tab-separated: %q", n, line)
		}
		out = append(out, labelledTurn{decision: cols[0] == "decision", source: cols[1], text: strings.ReplaceAll(cols[2], `\n`, "\n")})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGateOnLabelledTurns runs the default gate over a labelled set of what
// people type to coding agents — decisions about the project, and
// instructions for the task at hand — and holds its precision (how many
// turns it admits are decisions) and recall (how many decisions it admits)
// to floors. go test ./pipeline -run LabelledTurns -v lists every turn it
// gets wrong.
func TestGateOnLabelledTurns(t *testing.T) {
	const minPrecision, minRecall = 0.90, 1.0
	turns := loadLabelledTurns(t)
	if len(turns) < 60 {
		t.Fatalf("%d labelled turns, want at least 60", len(turns))
	}
	g := DefaultGate()
	var tp, fp, fn, tn int
	for _, lt := range turns {
		admits := g.Check(lt.text).Admits
		switch {
		case admits && lt.decision:
			tp++
		case admits:
			fp++
			t.Logf("admitted, not a decision (%s): %q", lt.source, lt.text)
		case lt.decision:
			fn++
			t.Logf("a decision not admitted (%s): %q", lt.source, lt.text)
		default:
			tn++
		}
	}
	precision := float64(tp) / float64(max(tp+fp, 1))
	recall := float64(tp) / float64(max(tp+fn, 1))
	t.Logf("%d turns (%d decisions): precision %.3f (%d/%d), recall %.3f (%d/%d)", len(turns), tp+fn, precision, tp, tp+fp, recall, tp, tp+fn)
	if precision < minPrecision || recall < minRecall {
		t.Errorf("precision %.3f, recall %.3f: want at least %.2f and %.2f", precision, recall, minPrecision, minRecall)
	}
}
