package store

import (
	"fmt"
	"path/filepath"
)

// Layout names what the state folder holds for one vault: the one place that
// says where the inbox, the receipts and the index of a vault live, so that
// the commands that only write there (capture, the hooks) find the same
// folders as the store without opening it.
//
//	<state>/vaults/<key>/index/             the index generations
//	<state>/vaults/<key>/inbox/pending/     captured events waiting for normalize
//	<state>/vaults/<key>/inbox/processed/   events normalize consumed
//	<state>/vaults/<key>/inbox/failed/      events normalize could not use
//	<state>/vaults/<key>/receipts/          what each session-start hook injected, and why
//	<state>/hooks.log                       what every hook run did, errors included
type Layout struct {
	// State is the state folder; Dir the vault's own folder in it.
	State, Dir string
}

// LayoutOf is the layout of the vault whose cortex folder is cortexDir, in
// the state folder state. The cortex folder need not exist yet.
func LayoutOf(state, cortexDir string) (Layout, error) {
	source, err := canonical(cortexDir)
	if err != nil {
		return Layout{}, fmt.Errorf("vault folder %s: %w", cortexDir, err)
	}
	return Layout{State: state, Dir: filepath.Join(state, vaultsDir, vaultKey(source))}, nil
}

// Index is the folder of the vault's index generations.
func (l Layout) Index() string { return filepath.Join(l.Dir, indexDir) }

// Inbox is the vault's capture inbox (pending/, processed/, failed/).
func (l Layout) Inbox() string { return filepath.Join(l.Dir, "inbox") }

// Receipts is the folder of session-start receipts.
func (l Layout) Receipts() string { return filepath.Join(l.Dir, "receipts") }

// HookLog is the hooks' log, one for the whole state folder: a hook can fail
// before it knows which vault it serves (a broken config, a missing vault).
func HookLog(state string) string { return filepath.Join(state, "hooks.log") }

// Layout is the store's layout in the state folder.
func (s *Store) Layout() Layout { return Layout{State: s.state, Dir: s.vstate} }
