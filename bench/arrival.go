package bench

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cortexmem/cortex/vault"
)

// Arrival is what Arrive did to a vault, as a git pull (or a sync) from
// another machine would: notes changed, added and removed at once.
type Arrival struct {
	// Changed and Added are the ids of the notes rewritten and written, each
	// holding its own word from Words (by id), found in no other note.
	Changed, Added []string
	Words          map[string]string
	// Removed are the ids of the notes deleted.
	Removed []string
}

// Arrive changes a vault WriteVault made as a pull brings another machine's
// work: it rewrites changed notes (a paragraph added to each), writes added
// new ones and deletes removed ones, picked at random with seed. Each file is
// written as git writes the work tree — a new file put in place of the old
// one — so a note's folder changes time even when its name stays.
func Arrive(root string, changed, added, removed int, seed uint64, end time.Time) (*Arrival, error) {
	var paths []string
	dir := filepath.Join(VaultDir(root), "memories")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.HasPrefix(d.Name(), ".") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if changed+removed > len(paths) {
		return nil, fmt.Errorf("arrive: %d notes to change and %d to remove, the vault has %d", changed, removed, len(paths))
	}
	slices.Sort(paths)
	r := rand.New(rand.NewPCG(seed, 7))
	r.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
	a := &Arrival{Words: map[string]string{}}
	word := func(i int) string { return fmt.Sprintf("arrivedq%05d", i) }
	for i, p := range paths[:changed] {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		n, err := vault.ParseNote(data)
		if err != nil {
			return nil, fmt.Errorf("arrive: %s: %w", p, err)
		}
		id := n.ID()
		n.SetBody(strings.TrimRight(string(n.Body), "\n") + "\n\nChanged on the other machine: " + word(i) + ".\n")
		out, err := n.Bytes()
		if err != nil {
			return nil, err
		}
		if err := replace(p, out); err != nil {
			return nil, err
		}
		a.Changed = append(a.Changed, id)
		a.Words[id] = word(i)
	}
	for _, p := range paths[changed : changed+removed] {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		n, err := vault.ParseNote(data)
		if err != nil {
			return nil, fmt.Errorf("arrive: %s: %w", p, err)
		}
		if err := os.Remove(p); err != nil {
			return nil, err
		}
		a.Removed = append(a.Removed, n.ID())
	}
	g := NewGenerator(seed+1, end)
	for i := 0; i < added; i++ {
		m := g.Memory()
		w := word(changed + i)
		m.Body += "\n\nWritten on the other machine: " + w + ".\n"
		n, err := vault.NewNote(m)
		if err != nil {
			return nil, err
		}
		data, err := n.Bytes()
		if err != nil {
			return nil, err
		}
		d := filepath.Join(dir, m.Project)
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
		name := vault.Slug(m.Title) + "-" + m.ID + ".md"
		if err := replace(filepath.Join(d, name), data); err != nil {
			return nil, err
		}
		a.Added = append(a.Added, m.ID)
		a.Words[m.ID] = w
	}
	return a, nil
}

// replace puts data at p as a new file, as git's checkout does.
func replace(p string, data []byte) error {
	tmp := filepath.Join(filepath.Dir(p), ".arrive-"+filepath.Base(p))
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}
