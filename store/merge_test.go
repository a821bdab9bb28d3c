package store_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/store"
)

// TestMergeLeftovers: what a git merge or a sync tool leaves in a vault is
// listed by doctor with the fix, and nothing of it is lost, indexed twice or
// rewritten: a conflict copy is not indexed (its original keeps its id,
// however the names sort), a note holding markers in its text is indexed as
// it is, one holding them in its properties is skipped, a memory replaced on
// two machines shows as a fork.
func TestMergeLeftovers(t *testing.T) {
	e := newEnv(t, 0)
	note := func(id, title, extra, body string) string {
		return "---\nid: " + id + "\ntitle: " + title + "\n" + extra + "---\n" + body
	}
	const (
		orig  = "01jt0000000000000000000001"
		other = "01jt0000000000000000000002"
		old   = "01jt0000000000000000000003"
		byA   = "01jt0000000000000000000004"
		byB   = "01jt0000000000000000000005"
	)
	e.write("memories/p/orig.md", note(orig, "Original", "", "The deploy runs on fridays zebrafinch.\n"))
	files := map[string]string{
		// Syncthing's copy sorts after its original, Dropbox's and iCloud's
		// before it: in no case does the copy take the id.
		"memories/p/orig.sync-conflict-20260102-150405-ABCDEF7.md": note(orig, "Original", "", "The deploy runs on mondays quokkamoon.\n"),
		"memories/p/orig (conflicted copy 2026-01-02).md":          note(orig, "Original", "", "The deploy runs on sundays wombatsun.\n"),
		"memories/p/orig 2.md":                                     note(orig, "Original", "", "The deploy runs on tuesdays lemurstar.\n"),
		// Numbered by a person, not by iCloud: a note.
		"memories/p/chapter 2.md":                         note(other, "Chapter two", "", "The second chapter narwhalsky.\n"),
		"memories/p/body.md":                              note("01jt0000000000000000000006", "Body", "", "Intro.\n<<<<<<< HEAD\nmine ocelotrain\n=======\ntheirs\n>>>>>>> origin/main\n"),
		"memories/p/props.md":                             "---\nid: 01jt0000000000000000000007\n<<<<<<< HEAD\ntitle: one\n=======\ntitle: two\n>>>>>>> origin/main\n---\nProps text.\n",
		"memories/p/old.md":                               note(old, "Old", "status: superseded\nsuperseded_by: \"[[a|"+byA+"]]\"\n", "The old way.\n"),
		"memories/p/a.md":                                 note(byA, "Replacement A", "supersedes: \"[[old|"+old+"]]\"\n", "Way A.\n"),
		"memories/p/b.md":                                 note(byB, "Replacement B", "supersedes: \"[[old|"+old+"]]\"\n", "Way B.\n"),
		"_index.sync-conflict-20260102-150405-ABCDEF7.md": "# map\n",
		// The original was deleted on the other machine.
		"memories/p/gone.sync-conflict-20260102-150405-ABCDEF7.md": note("01jt0000000000000000000008", "Gone", "", "Kept only here.\n"),
	}
	for rel, text := range files {
		e.write(rel, text)
	}
	h, err := e.st.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !h.InStep() {
		t.Errorf("index not in step: %+v", h)
	}
	wantLeft := []store.Leftover{
		{Path: "_index.sync-conflict-20260102-150405-ABCDEF7.md", Kind: "copy", Tool: "Syncthing", Original: "_index.md",
			Fix: "delete it: the map of contents is made from the notes, and cortex rewrites it"},
		{Path: "memories/p/body.md", Kind: "markers", Lines: []int{6},
			Fix: "keep what each side wrote that matters and delete the marker lines (<<<<<<<, =======, >>>>>>>)"},
		{Path: "memories/p/gone.sync-conflict-20260102-150405-ABCDEF7.md", Kind: "copy", Tool: "Syncthing", Original: "memories/p/gone.md",
			Fix: "cortex/memories/p/gone.md is gone: rename the copy to it to keep it"},
		{Path: "memories/p/orig (conflicted copy 2026-01-02).md", Kind: "copy", Tool: "Dropbox", Original: "memories/p/orig.md",
			Fix: "move what only the copy holds into memories/p/orig.md, then delete the copy"},
		{Path: "memories/p/orig 2.md", Kind: "copy", Tool: "iCloud", Original: "memories/p/orig.md",
			Fix: "move what only the copy holds into memories/p/orig.md, then delete the copy"},
		{Path: "memories/p/orig.sync-conflict-20260102-150405-ABCDEF7.md", Kind: "copy", Tool: "Syncthing", Original: "memories/p/orig.md",
			Fix: "move what only the copy holds into memories/p/orig.md, then delete the copy"},
		{Path: "memories/p/props.md", Kind: "markers", Lines: []int{3}, Properties: true,
			Fix: "keep one side's properties and delete the marker lines (<<<<<<<, =======, >>>>>>>); the note is not indexed until then"},
	}
	for i := range wantLeft {
		wantLeft[i].Path = "cortex/" + wantLeft[i].Path
		if wantLeft[i].Original != "" {
			wantLeft[i].Original = "cortex/" + wantLeft[i].Original
		}
		wantLeft[i].Fix = strings.ReplaceAll(wantLeft[i].Fix, "memories/p/orig.md", "cortex/memories/p/orig.md")
	}
	if d := cmp.Diff(wantLeft, h.Leftovers); d != "" {
		t.Errorf("leftovers (-want +got):\n%s", d)
	}
	if len(h.Broken) != 0 || len(h.SharedIDs) != 0 {
		t.Errorf("broken %v, shared ids %v: want both empty (the leftovers say it all)", h.Broken, h.SharedIDs)
	}
	if len(h.Forks) != 1 {
		t.Fatalf("forks = %+v, want one", h.Forks)
	}
	f := h.Forks[0]
	f.Fix = ""
	wantFork := store.Fork{ID: old, Path: "cortex/memories/p/old.md", By: []string{byA, byB},
		Paths: []string{"cortex/memories/p/a.md", "cortex/memories/p/b.md"}, Kept: byA}
	if d := cmp.Diff(wantFork, f); d != "" {
		t.Errorf("fork (-want +got):\n%s", d)
	}

	// The original keeps its id and is the only one recalled; the text of a
	// note holding markers is searchable as it is.
	for q, want := range map[string][]string{
		"zebrafinch": {orig}, "quokkamoon": nil, "wombatsun": nil, "lemurstar": nil,
		"narwhalsky": {other}, "ocelotrain": {"01jt0000000000000000000006"},
	} {
		if got := e.recall(q); !slices.Equal(got, want) {
			t.Errorf("recall %s = %v, want %v", q, got, want)
		}
	}
	// Resolved by hand: the copies deleted, the markers removed.
	if err := os.Rename(e.abs("memories/p/gone.sync-conflict-20260102-150405-ABCDEF7.md"), e.abs("memories/p/gone.md")); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"memories/p/orig.sync-conflict-20260102-150405-ABCDEF7.md", "memories/p/orig (conflicted copy 2026-01-02).md", "memories/p/orig 2.md"} {
		e.remove(rel)
	}
	e.write("memories/p/body.md", note("01jt0000000000000000000006", "Body", "", "Intro.\nmine ocelotrain\n"))
	e.write("memories/p/props.md", note("01jt0000000000000000000007", "one", "", "Props text.\n"))
	e.remove("_index.sync-conflict-20260102-150405-ABCDEF7.md")
	e.remove("memories/p/b.md")
	if h, err = e.st.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(h.Leftovers) != 0 || len(h.Forks) != 0 || len(h.Broken) != 0 || !h.InStep() {
		t.Errorf("after the fixes: leftovers %+v, forks %+v, broken %v, in step %v", h.Leftovers, h.Forks, h.Broken, h.InStep())
	}
	if got := e.recall("kept only here"); !slices.Equal(got, []string{"01jt0000000000000000000008"}) {
		t.Errorf("the copy renamed to its original recalls as %v", got)
	}
}

func (e *env) remove(rel string) {
	e.t.Helper()
	if err := os.Remove(e.abs(rel)); err != nil {
		e.t.Fatal(err)
	}
}
