package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/memories"
)

// keepReceipts is how many receipts are kept; older ones are removed (see
// prunesReceipts).
const keepReceipts = 200

// maxLeftOut bounds the memories a receipt lists as left out.
const maxLeftOut = 20

// Receipt says what a hook injected into an agent's context and why: one
// JSON file per injection in the vault's receipts folder, so that a person
// can always see what their agent was told.
type Receipt struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Client  Client    `json:"client"`
	Event   Event     `json:"event"`
	Session string    `json:"session,omitempty"`
	// Source is why the session started (startup, resume, clear, compact).
	Source  string  `json:"source,omitempty"`
	Cwd     string  `json:"cwd,omitempty"`
	Project Project `json:"project"`
	// Output says how the text was handed to the client.
	Output string `json:"output"`
	Budget struct {
		Tokens int `json:"tokens"`
		Chars  int `json:"chars"`
		Items  int `json:"items"`
	} `json:"budget"`
	Used struct {
		Tokens int `json:"tokens"`
		Chars  int `json:"chars"`
		Items  int `json:"items"`
	} `json:"used"`
	// Considered counts the memories looked at.
	Considered int        `json:"considered"`
	Injected   []Injected `json:"injected"`
	LeftOut    []LeftOut  `json:"left_out,omitempty"`
	// Text is exactly what was injected.
	Text string `json:"text"`
}

// WriteReceipt writes r into dir as <id>.json (private to the person) and
// removes the oldest receipts beyond the last 200. It returns the file's
// path.
func WriteReceipt(dir string, r *Receipt) (string, error) {
	if len(r.LeftOut) > maxLeftOut {
		r.LeftOut = r.LeftOut[:maxLeftOut]
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", fmt.Errorf("receipt: %w", err)
	}
	if err := atomicfile.MkdirAll(dir); err != nil {
		return "", fmt.Errorf("receipts %s: %w", dir, err)
	}
	path := filepath.Join(dir, r.ID+".json")
	// A receipt is the person's record of what their agent was told: it is
	// written whole before the text is handed over (a receipt that cannot be
	// written stops the injection). It is not flushed to disk: a hook must
	// answer fast, and a power loss also loses the session it describes.
	if err := atomicfile.WriteDerived(path, append(data, '\n')); err != nil {
		return "", fmt.Errorf("receipt: %w", err)
	}
	if prunesReceipts(r.ID) {
		pruneReceipts(dir)
	}
	return path, nil
}

// prunesReceipts says whether writing the receipt id also prunes the folder:
// about one write in 16, told by the id's last character (random in the ids
// cortex makes). Listing the folder at every injection cost a tenth of a
// millisecond of each session-start, to remove one old receipt; pruning
// every few injections removes as many in all, so a few more than
// keepReceipts may be there between two prunings.
func prunesReceipts(id string) bool {
	if id == "" {
		return true
	}
	// Crockford's base32 digit of the last character: 0 and G (16) are the
	// two of 32 whose low four bits are zero.
	switch id[len(id)-1] {
	case '0', 'g', 'G':
		return true
	}
	return false
}

// receiptNames lists the receipts of dir, oldest first (ids sort by time).
func receiptNames(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if n := e.Name(); !strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".json") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}

// pruneReceipts removes the oldest receipts beyond keepReceipts. It is
// housekeeping: failures are left for the next time.
func pruneReceipts(dir string) {
	names, err := receiptNames(dir)
	if err != nil || len(names) <= keepReceipts {
		return
	}
	for _, n := range names[:len(names)-keepReceipts] {
		_ = os.Remove(filepath.Join(dir, n))
	}
}

// LatestReceipt reads the newest receipt of dir, and its path; nil when
// there is none.
func LatestReceipt(dir string) (*Receipt, string, error) {
	names, err := receiptNames(dir)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(names) == 0 {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, names[len(names)-1])
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	var r Receipt
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, "", fmt.Errorf("receipt %s: %w", path, err)
	}
	return &r, path, nil
}

// Summary sums a receipt up for status.
func (r *Receipt) Summary(path string) *memories.BriefingReceipt {
	return &memories.BriefingReceipt{Time: r.Time, Client: string(r.Client), Project: r.Project.Name, Items: r.Used.Items,
		Tokens: r.Used.Tokens, Budget: r.Budget.Tokens, Path: path}
}
