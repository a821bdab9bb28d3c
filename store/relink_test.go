package store_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// minedNote is a mined note as cortex writes it: source mined, and a
// source_hash of what it wrote.
func minedNote(t *testing.T, id, body string) string {
	t.Helper()
	head := "---\nid: " + id + "\ntitle: Decision on the target\ntype: decision\nproject: p\nsource: mined\n"
	n, err := vault.ParseNote([]byte(head + "---\n" + body))
	if err != nil {
		t.Fatal(err)
	}
	h := memories.MinedHash(n.Memory("memories/p/mined.md", time.Time{}))
	return head + "provenance:\n  source_hash: " + h + "\n---\n" + body
}

// A note renamed and moved behind cortex's back (a pull, a file manager): the
// next command points the links cortex owns at its new place — relation
// properties in any note, the body of a mined note cortex still owns — and
// leaves the rest alone: a person's prose, a note that does not parse, a
// mined note a person edited.
func TestMovedNoteIsRelinkedByTheNextCommand(t *testing.T) {
	e := newEnv(t, time.Hour)
	const target = "---\nid: 01aaaaaaaaaaaaaaaaaaaaaaaa\ntitle: Target\n---\nThe target of every link here.\n"
	const linker = "---\nid: 01bbbbbbbbbbbbbbbbbbbbbbbb\ntitle: Linker\nrelated:\n  - \"[[target-note]]\"\n  - \"[[cortex/memories/p/target-note|T]]\"\n  - \"[[elsewhere]]\"\nmine: kept as it is # a comment\n---\nIn prose: [[target-note]] and `[[target-note]]`.\n"
	const broken = "---\ntitle: [unclosed\nrelated: \"[[target-note]]\"\n---\nbody\n"
	const nolinks = "---\nid: 01dddddddddddddddddddddddd\ntitle: Unrelated\n---\nNothing links here to target-note.\n"
	mined := minedNote(t, "01cccccccccccccccccccccccc", "\nDecided: [[target-note|Target]] stays.\n\n```\n[[target-note]]\n```\n")
	edited := strings.Replace(minedNote(t, "01eeeeeeeeeeeeeeeeeeeeeeee", "\nDecided: [[target-note|Target]] stays.\n"), "stays.", "stays, I say.", 1)
	e.write("memories/p/target-note.md", target)
	e.write("memories/p/linker.md", linker)
	e.write("memories/p/broken.md", broken)
	e.write("memories/p/nolinks.md", nolinks)
	e.write("memories/p/mined.md", mined)
	e.write("memories/p/edited.md", edited)
	e.list()
	if err := os.MkdirAll(e.abs("memories/q"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(e.abs("memories/p/target-note.md"), e.abs("memories/q/renamed.md")); err != nil {
		t.Fatal(err)
	}
	e.list() // the next command
	wantMined := minedNote(t, "01cccccccccccccccccccccccc", "\nDecided: [[renamed|Target]] stays.\n\n```\n[[target-note]]\n```\n")
	for _, c := range []struct{ path, want string }{
		{"memories/p/linker.md", strings.NewReplacer(`"[[target-note]]"`, `"[[renamed]]"`,
			"[[cortex/memories/p/target-note|T]]", "[[cortex/memories/q/renamed|T]]").Replace(linker)},
		{"memories/p/broken.md", broken},
		{"memories/p/nolinks.md", nolinks},
		{"memories/p/mined.md", wantMined},
		{"memories/p/edited.md", edited},
		{"memories/q/renamed.md", target},
	} {
		if diff := cmp.Diff(c.want, e.read(c.path)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.path, diff)
		}
	}
	m, err := e.st.Vault().Load("memories/p/mined.md")
	if err != nil {
		t.Fatal(err)
	}
	if memories.EditedByPerson(m) {
		t.Errorf("the relinked mined note reads as edited by a person; source_hash %s", m.Provenance.SourceHash)
	}
	e.checkInStep()
	if got := strings.Join(e.warnings, "\n"); !strings.Contains(got, "pointed 3 links in 2 notes at notes that moved") {
		t.Errorf("warnings = %q, want the links pointed again", got)
	}
	// Done once: a command after that changes nothing.
	e.warnings = nil
	e.list()
	if len(e.warnings) > 0 {
		t.Errorf("a second command warned %q", e.warnings)
	}
}

// A note without an id that moves is known by its bytes; one that only
// changes folder keeps the links by name, which still lead to it.
func TestMovedNoteWithoutID(t *testing.T) {
	e := newEnv(t, time.Hour)
	const target = "A hand-made note with no properties at all.\n"
	const linker = "---\nid: 01bbbbbbbbbbbbbbbbbbbbbbbb\nrelated:\n  - \"[[plain]]\"\n  - \"[[cortex/memories/p/plain]]\"\n---\nbody\n"
	e.write("memories/p/plain.md", target)
	e.write("memories/p/linker.md", linker)
	e.list()
	if err := os.MkdirAll(e.abs("memories/q"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(e.abs("memories/p/plain.md"), e.abs("memories/q/plain.md")); err != nil {
		t.Fatal(err)
	}
	e.list()
	want := strings.Replace(linker, "cortex/memories/p/plain", "cortex/memories/q/plain", 1)
	if diff := cmp.Diff(want, e.read("memories/p/linker.md")); diff != "" {
		t.Errorf("linker (-want +got):\n%s", diff)
	}
	e.checkInStep()
}
