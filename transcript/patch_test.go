package transcript

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParsePatch: each V4A operation is read with its path and its hunks
// as written, a move keeps both paths, an added file keeps only its "+"
// lines, and an operation without a path is left out.
func TestParsePatch(t *testing.T) {
	for _, tc := range []struct {
		name, patch string
		want        []PatchOp
	}{{
		name: "operations",
		patch: "*** Begin Patch\n" +
			"*** Add File: new.txt\n+one\n+two\n" +
			"*** Update File: a.go\n*** Move to: b.go\n@@\n-old\n+new\n keep\n" +
			"*** Delete File: gone.txt\n" +
			"*** Update File: \n-x\n" +
			"*** End Patch\n",
		want: []PatchOp{
			{Op: OpCreate, Path: "new.txt", Hunks: [][]string{{"+one", "+two"}}},
			{Op: OpMove, Path: "a.go", MovePath: "b.go", Hunks: [][]string{{"-old", "+new", " keep"}}},
			{Op: OpDelete, Path: "gone.txt"},
		},
	}, {
		// A first hunk without "@@", a hunk after "*** End of File", an
		// empty line in a hunk, and context lines that read like markers.
		name: "hunks",
		patch: "*** Begin Patch\n*** Update File: b.txt\n-gone\n+new\n context\n@@ second\n" +
			" *** End Patch\n *** Update File: c.txt\n-x\n\n+y\n*** End of File\n+z\n*** End Patch\n",
		want: []PatchOp{{Op: OpUpdate, Path: "b.txt", Hunks: [][]string{
			{"-gone", "+new", " context"}, {" *** End Patch", " *** Update File: c.txt", "-x", " ", "+y"}, {"+z"},
		}}},
	}, {
		name:  "an added file's empty line and a deleted file's lines",
		patch: "*** Begin Patch\n*** Add File: a.txt\n+one\n+\n\n*** Delete File: d.txt\n-x\n\n*** End Patch",
		want:  []PatchOp{{Op: OpCreate, Path: "a.txt", Hunks: [][]string{{"+one", "+"}}}, {Op: OpDelete, Path: "d.txt"}},
	}, {
		name:  "text around the patch",
		patch: "cat <<EOF | apply_patch\n*** Update File: before.txt\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n*** Add File: after\n+y\nEOF\n",
		want:  []PatchOp{{Op: OpCreate, Path: "a", Hunks: [][]string{{"+x"}}}},
	}, {
		name:  "no Begin Patch line",
		patch: "*** Update File: a\n@@\n-a\n+b\n",
		want:  []PatchOp{{Op: OpUpdate, Path: "a", Hunks: [][]string{{"-a", "+b"}}}},
	}, {
		name:  "a move to no file",
		patch: "*** Begin Patch\n*** Add File: \n+x\n*** Update File: a\n*** Move to: \n@@\n-a\n+b\n*** End Patch",
		want:  []PatchOp{{Op: OpUpdate, Path: "a", Hunks: [][]string{{"-a", "+b"}}}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ParsePatch(tc.patch)); diff != "" {
				t.Errorf("ParsePatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPatchEdits: Edit diffs an operation's sides again, WrittenEdit keeps
// its hunks as written; both name /dev/null for the side of an added or
// deleted file, and neither has a diff for a deletion.
func TestPatchEdits(t *testing.T) {
	ops := ParsePatch("*** Begin Patch\n*** Add File: new.txt\n+one\n+two\n" +
		"*** Update File: a.go\n*** Move to: b.go\n@@\n-old\n+new\n keep\n@@\n x\n-y\n" +
		"*** Delete File: gone.txt\n*** End Patch\n")
	tests := []struct {
		name string
		got  *FileEdit
		want *FileEdit
	}{
		{"added", ops[0].Edit(), &FileEdit{Path: "new.txt", Op: OpCreate, OK: true, From: FromInput, New: "one\ntwo\n", Added: 2,
			Unified: "--- /dev/null\n+++ new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"}},
		{"added as written", ops[0].WrittenEdit(), &FileEdit{Path: "new.txt", Op: OpCreate, From: FromInput, New: "one\ntwo\n", Added: 2,
			Unified: "--- /dev/null\n+++ new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"}},
		{"moved", ops[1].Edit(), &FileEdit{Path: "a.go", MovePath: "b.go", Op: OpMove, OK: true, From: FromInput, Fragment: true,
			Old: "old\nkeep\nx\ny\n", New: "new\nkeep\nx\n", Added: 1, Removed: 2,
			Unified: "--- a.go\n+++ b.go\n@@ -1,4 +1,3 @@\n-old\n+new\n keep\n x\n-y\n"}},
		{"moved as written", ops[1].WrittenEdit(), &FileEdit{Path: "a.go", MovePath: "b.go", Op: OpMove, From: FromInput, Fragment: true,
			Added: 1, Removed: 2,
			Unified: "--- a.go\n+++ b.go\n@@ -1,2 +1,2 @@\n-old\n+new\n keep\n@@ -1,2 +1,1 @@\n x\n-y\n"}},
		{"deleted", ops[2].Edit(), &FileEdit{Path: "gone.txt", Op: OpDelete, OK: true, From: FromInput}},
		{"deleted as written", ops[2].WrittenEdit(), &FileEdit{Path: "gone.txt", Op: OpDelete, From: FromInput}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
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

// FuzzParsePatch: on any text, ParsePatch never panics, every operation it
// returns names a file, and both edits of each have a diff that parses
// (or none) and counts that agree with it.
func FuzzParsePatch(f *testing.F) {
	for _, s := range []string{
		"*** Begin Patch\n*** Add File: a\n+x\n*** Update File: b\n*** Move to: c\n@@\n-a\n+b\n\n*** End of File\n*** Delete File: d\n*** End Patch\n",
		"*** Update File: a\r\n -x\r\n+y\r\n",
		"*** Begin Patch\n*** Update File: \"q\\nx\"\n@@\n@@\n+\n *** End Patch\n*** End Patch\n*** Begin Patch\n*** Add File: e\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, op := range ParsePatch(text) {
			if op.Path == "" {
				t.Fatalf("operation without a path: %+v", op)
			}
			for _, fe := range []*FileEdit{op.Edit(), op.WrittenEdit()} {
				if fe.Unified == "" {
					continue
				}
				if _, _, hs, err := ParseUnified(fe.Unified); err != nil {
					t.Fatalf("%q: diff %q does not parse: %v", text, fe.Unified, err)
				} else if a, r := CountChanges(hs); a != fe.Added || r != fe.Removed {
					t.Fatalf("%q: +%d -%d counted, +%d -%d in the diff", text, fe.Added, fe.Removed, a, r)
				}
			}
		}
	})
}
