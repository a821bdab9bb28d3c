package store

import "github.com/cortexmem/cortex/config"

// Layout is the store's vault folder in the state folder (config.VaultState):
// where its index, inbox and receipts are. Commands that only write there
// (capture, the hooks) name the same folders through config.State.Vault
// without opening the store.
func (s *Store) Layout() config.VaultState { return s.vstate }
