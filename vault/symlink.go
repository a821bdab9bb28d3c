package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/memories"
)

// Notes that are symbolic links. A person may link a note into cortex's
// folder. cortex reads such a note only when the link leads to a file inside
// the vault: a vault is synced and shared, and a link to ~/.ssh/id_ed25519
// must not put that file in an agent's context. A link that leads outside is
// not a note at all (the scan skips it, reading it fails as if it did not
// exist) and `cortex doctor` names it. A link a person made is never replaced
// by a file: every rewrite of a note that is a link is refused.

// ErrOutsideVault marks a note that is a symbolic link leading outside the
// vault. Errors that match it match fs.ErrNotExist too: for cortex there is
// no such note.
var ErrOutsideVault = errors.New("a symbolic link that leads outside the vault")

// OutsideError is a note that is a symbolic link leading outside the vault.
type OutsideError struct {
	Path   string // the note, as given
	Target string // where the link leads ("" when it leads nowhere)
}

func (e *OutsideError) Error() string {
	if e.Target == "" {
		return e.Path + ": a symbolic link that leads nowhere"
	}
	return fmt.Sprintf("%s: a symbolic link to %s, outside the vault: cortex does not read it", e.Path, e.Target)
}

// Unwrap makes the error match ErrOutsideVault and fs.ErrNotExist.
func (e *OutsideError) Unwrap() []error { return []error{ErrOutsideVault, fs.ErrNotExist} }

// ErrLink marks a refusal to write over a symbolic link: atomicfile's, for
// notes as for every file cortex writes.
var ErrLink = atomicfile.ErrLink

// LinkError is a write refused because the file is a symbolic link a person
// made. It matches ErrLink and memories.ErrRejected.
type LinkError struct {
	Path   string
	Target string
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link to %s: %v; edit the note it leads to, or replace the link with the note", e.Path, e.Target, ErrLink)
}

// Unwrap makes the error match ErrLink and memories.ErrRejected.
func (e *LinkError) Unwrap() []error { return []error{ErrLink, memories.ErrRejected} }

// refuseLink returns a *LinkError when path is a symbolic link, nil
// otherwise (a missing file included).
func refuseLink(path, shown string) error {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	target, _ := os.Readlink(path)
	return &LinkError{Path: shown, Target: target}
}

// inside reports whether the resolved path p is inside the vault: under its
// root or under cortex's folder (which may itself be a link to elsewhere),
// both resolved.
func (v *Vault) inside(p string) bool {
	for _, root := range []string{v.Root, v.Dir} {
		r, err := filepath.EvalSymlinks(root)
		if err != nil {
			if r, err = filepath.Abs(root); err != nil {
				continue
			}
		}
		if within(r, p) {
			return true
		}
	}
	return false
}

// within reports whether p is root or below it; both are clean, absolute.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// follow resolves the symbolic link at abs (shown as shown in errors) to the
// file it leads to, which must be inside the vault.
func (v *Vault) follow(abs, shown string) (string, error) {
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", &OutsideError{Path: shown}
		}
		return "", err
	}
	if !filepath.IsAbs(target) {
		if target, err = filepath.Abs(target); err != nil {
			return "", err
		}
	}
	if !v.inside(target) {
		return "", &OutsideError{Path: shown, Target: target}
	}
	return target, nil
}

// openNote opens the note at abs for reading. A note that is a symbolic link
// is followed only when it leads inside the vault; target is then the file
// it leads to.
func (v *Vault) openNote(abs, shown string) (f *os.File, target string, err error) {
	f, err = openNoFollow(abs)
	if !errors.Is(err, errIsLink) {
		return f, "", err
	}
	if target, err = v.follow(abs, shown); err != nil {
		return nil, "", err
	}
	// The target is resolved: opening it without following links makes sure
	// it was not swapped for a link meanwhile.
	if f, err = openNoFollow(target); errors.Is(err, errIsLink) {
		return nil, "", &OutsideError{Path: shown, Target: target}
	}
	return f, target, err
}

// errIsLink is openNoFollow's answer for a symbolic link.
var errIsLink = errors.New("is a symbolic link")
