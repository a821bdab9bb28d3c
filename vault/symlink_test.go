package vault

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// linkVault is a vault with a secret outside it and, in cortex's folder,
// notes that are links: to the secret, to a note elsewhere in the vault, to a
// note in cortex's folder, to nothing, and through another link out.
func linkVault(t *testing.T) (v *Vault, secret string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	home := t.TempDir()
	secret = filepath.Join(home, "ssh", "id_ed25519")
	writeAt(t, secret, "PRIVATE KEY MATERIAL\n", t0)
	v, err := New(filepath.Join(home, "vault"), "cortex")
	if err != nil {
		t.Fatal(err)
	}
	writeAt(t, filepath.Join(v.Root, "other", "note.md"), "---\nid: 01hv00000000000000000000aa\n---\nA note elsewhere in the vault.\n", t0)
	writeAt(t, v.Abs("memories/p/plain.md"), "A plain note.\n", t0)
	writeAt(t, filepath.Join(v.Root, "other", "out.md"), "", t0)
	if err := os.Remove(filepath.Join(v.Root, "other", "out.md")); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"memories/p/secret.md":  secret,
		"memories/p/inside.md":  filepath.Join("..", "..", "..", "other", "note.md"),
		"memories/p/sibling.md": "plain.md",
		"memories/p/nowhere.md": filepath.Join(home, "missing.md"),
		"memories/p/twice.md":   filepath.Join(v.Root, "other", "out.md"),
	}
	// other/out.md is itself a link out of the vault.
	if err := os.Symlink(secret, filepath.Join(v.Root, "other", "out.md")); err != nil {
		t.Fatal(err)
	}
	for rel, target := range links {
		if err := os.Symlink(target, v.Abs(rel)); err != nil {
			t.Fatal(err)
		}
	}
	return v, secret
}

// TestScanLinkedNotes: a note that is a symbolic link is a note only when it
// leads to a file inside the vault (issue: recall returned the text of a file
// outside the vault that a note linked to).
func TestScanLinkedNotes(t *testing.T) {
	v, _ := linkVault(t)
	res, err := v.Scan(NoKnown{}, ScanOptions{StatNotes: true})
	if err != nil {
		t.Fatal(err)
	}
	got := summarize(res).Changed
	want := []string{"memories/p/inside.md", "memories/p/plain.md", "memories/p/sibling.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notes found (-want +got):\n%s", diff)
	}
	// The package's Scan, given only cortex's folder, keeps to it.
	res, err = Scan(v.Dir, NoKnown{}, ScanOptions{StatNotes: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"memories/p/plain.md", "memories/p/sibling.md"}, summarize(res).Changed); diff != "" {
		t.Errorf("notes found under cortex's folder alone (-want +got):\n%s", diff)
	}
}

// TestReadLinkedNotes: reading a note that is a link leads inside the vault
// or fails as if there were no such note, never showing the file outside.
func TestReadLinkedNotes(t *testing.T) {
	v, secret := linkVault(t)
	tests := []struct {
		rel         string
		wantSymlink string
		wantOutside string // the target an *OutsideError names
	}{
		{rel: "memories/p/plain.md"},
		{rel: "memories/p/inside.md", wantSymlink: filepath.Join(v.Root, "other", "note.md")},
		{rel: "memories/p/sibling.md", wantSymlink: v.Abs("memories/p/plain.md")},
		{rel: "memories/p/secret.md", wantOutside: secret},
		{rel: "memories/p/twice.md", wantOutside: secret},
		{rel: "memories/p/nowhere.md", wantOutside: ""},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			data, st, err := v.ReadRaw(tt.rel)
			var oe *OutsideError
			if errors.As(err, &oe) {
				if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, ErrOutsideVault) {
					t.Errorf("%v matches neither fs.ErrNotExist nor ErrOutsideVault", err)
				}
				if tt.wantSymlink != "" || oe.Target != tt.wantOutside {
					t.Errorf("refused with %v, want target %q", err, tt.wantOutside)
				}
				if len(data) > 0 {
					t.Errorf("read %q through a link out of the vault", data)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantOutside != "" || tt.rel == "memories/p/nowhere.md" {
				t.Fatalf("read %q, want a refusal", data)
			}
			if st.Symlink != tt.wantSymlink {
				t.Errorf("Symlink = %q, want %q", st.Symlink, tt.wantSymlink)
			}
			m, err := v.Load(tt.rel)
			if err != nil {
				t.Fatal(err)
			}
			if m.Symlink != tt.wantSymlink {
				t.Errorf("memory's Symlink = %q, want %q", m.Symlink, tt.wantSymlink)
			}
		})
	}
}

// TestRewriteLinkedNote: a rewrite never replaces a link a person made with a
// file (issue: a later command did), and says why.
func TestRewriteLinkedNote(t *testing.T) {
	v, _ := linkVault(t)
	rel := "memories/p/inside.md"
	n, _, err := v.Read(rel)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Apply(&memories.Memory{Status: memories.StatusSuperseded}, "status"); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(v.Root, "other", "note.md"))
	changed, err := v.Rewrite(rel, n)
	if !errors.Is(err, ErrLink) || !errors.Is(err, memories.ErrRejected) || changed {
		t.Fatalf("Rewrite = %v, %v; want a refusal matching ErrLink and ErrRejected", changed, err)
	}
	fi, err := os.Lstat(v.Abs(rel))
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link is gone: %v, %v", fi, err)
	}
	if after, _ := os.ReadFile(filepath.Join(v.Root, "other", "note.md")); string(after) != string(before) {
		t.Errorf("the note the link leads to changed:\n%s", after)
	}
	for _, durable := range []bool{true, false} {
		err := writeFile(v.Abs(rel), v.VaultPath(rel), []byte("x"), durable)
		var le *LinkError
		if !errors.Is(err, ErrLink) || !errors.Is(err, memories.ErrRejected) || !errors.As(err, &le) || le.Path != v.VaultPath(rel) {
			t.Errorf("writeFile (durable %v) over a link: %v, want a *LinkError naming %s", durable, err, v.VaultPath(rel))
		}
		if fi, err := os.Lstat(v.Abs(rel)); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("writeFile (durable %v) replaced the link", durable)
		}
	}
	if got := dirNames(t, v.Abs("memories/p")); len(got) != 6 {
		t.Errorf("folder holds %q: a temporary file was left", got)
	}
}
