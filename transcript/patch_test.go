package transcript

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParsePatch: each V4A operation is read with its path, a move keeps
// both paths, an added file keeps only its "+" lines, and an operation
// without a path is left out.
func TestParsePatch(t *testing.T) {
	patch := "*** Begin Patch\n" +
		"*** Add File: new.txt\n+one\n+two\n" +
		"*** Update File: a.go\n*** Move to: b.go\n@@\n-old\n+new\n keep\n" +
		"*** Delete File: gone.txt\n" +
		"*** Update File: \n-x\n" +
		"*** End Patch\n"
	got := ParsePatch(patch)
	want := []PatchOp{
		{Op: OpCreate, Path: "new.txt", Lines: []string{"+one", "+two"}},
		{Op: OpMove, Path: "a.go", MovePath: "b.go", Lines: []string{"-old", "+new", " keep"}},
		{Op: OpDelete, Path: "gone.txt"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("ParsePatch (-want +got):\n%s", diff)
	}
	add := got[0].Edit()
	if add.New != "one\ntwo\n" || add.Old != "" || add.Added != 2 || add.Fragment {
		t.Errorf("added file: %+v", add)
	}
	mv := got[1].Edit()
	if mv.Old != "old\nkeep\n" || mv.New != "new\nkeep\n" || !mv.Fragment || mv.MovePath != "b.go" {
		t.Errorf("moved file: %+v", mv)
	}
	if del := got[2].Edit(); del.Op != OpDelete || del.Unified != "" && del.Removed != 0 {
		t.Errorf("deleted file: %+v", del)
	}
}

// TestFragmentDiff: texts that both end mid-line are compared as whole
// lines, so a line added after them is one added line.
func TestFragmentDiff(t *testing.T) {
	added, removed := CountChanges(FragmentDiff("a", "a\n\nb"))
	if added != 2 || removed != 0 {
		t.Errorf("a → a\\n\\nb: +%d -%d, want +2 -0", added, removed)
	}
}
