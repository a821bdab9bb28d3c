package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"path/filepath"
)

// State is the layout of the state folder: every file cortex keeps outside
// the vault is named here and nowhere else. The packages that keep files there
// take a State (or the paths it gives) in their options; none of them names a
// file of the state folder itself.
//
//	<home>/config.yaml                      the config file (unless --config or CORTEX_CONFIG says otherwise)
//	<home>/events.jsonl                     the audit log: every vault's changes; each line names its vault
//	<home>/access.log                       the access log (package access), shared: keyed by memory id
//	<home>/access.idx                       its cache of counts
//	<home>/access.lock                      its lock
//	<home>/mcp-token                        the MCP HTTP transport's bearer token
//	<home>/hooks.log                        what every hook run did, errors included
//	<home>/vaults/<name>-<hash>/            one folder per vault (Vault)
//	    index/                              the index generations and CURRENT (package index)
//	    write.lock                          serialises the vault's writers
//	    index.lock                          shared by readers of the index, exclusive while it changes
//	    index.lock.intent                   held by a writer waiting for index.lock, which readers let in first
//	    inbox/pending/                      captured events waiting to be normalised
//	    inbox/processed/                    events normalised
//	    inbox/failed/                       events that could not be, each with its error
//	    inbox/normalize.lock                makes one normaliser the inbox's only consumer
//	    receipts/                           what each session-start hook injected, and why
//	<home>/transcripts/scribe.lock          serialises transcript runs
//	<home>/transcripts/offsets-<hash>.json  how far each transcript was read, per vault
//	<home>/transcripts/index/               the transcript search index, one per machine
//	<home>/otlp/<service>/<session>.jsonl   what the OTLP receiver received (cortex scribe otlp)
//	<home>/index/, write.lock, index.lock   the one index of versions before vaults had their own;
//	                                        removed once no process of such a version uses it
//
// A vault's folder is named after the canonical path of its cortex folder
// (symbolic links resolved): its folder name, for a person looking, and a
// hash of the path, which tells vaults apart. The hooks' log is one for the
// whole state folder because a hook can fail before it knows which vault it
// serves (a broken config, a missing vault). Everything in the state folder
// is a cache or a log: deleting it loses no memory.
type State struct {
	// Home is the state folder (absolute).
	Home string
}

// State is the layout of the settings' state folder.
func (s *Settings) State() State { return State{Home: s.Home} }

// Names in the state folder.
const (
	vaultsDir      = "vaults"
	indexDir       = "index"
	writeLock      = "write.lock"
	indexLock      = "index.lock"
	transcriptsDir = "transcripts"
)

// ConfigFile is the default config file.
func (st State) ConfigFile() string { return filepath.Join(st.Home, configName) }

// EventsFile is the audit log, shared by every vault.
func (st State) EventsFile() string { return filepath.Join(st.Home, "events.jsonl") }

// AccessLog is the access log.
func (st State) AccessLog() string { return filepath.Join(st.Home, "access.log") }

// AccessIndex is the access log's cache of counts.
func (st State) AccessIndex() string { return filepath.Join(st.Home, "access.idx") }

// AccessLock is the access log's lock.
func (st State) AccessLock() string { return filepath.Join(st.Home, "access.lock") }

// MCPToken is the MCP HTTP transport's bearer token.
func (st State) MCPToken() string { return filepath.Join(st.Home, "mcp-token") }

// HookLog is the hooks' log.
func (st State) HookLog() string { return filepath.Join(st.Home, "hooks.log") }

// TranscriptLock serialises transcript runs.
func (st State) TranscriptLock() string {
	return filepath.Join(st.Home, transcriptsDir, "scribe.lock")
}

// TranscriptOffsets is the file of transcript read offsets of runs into the
// cortex folder cortexDir, as configured (vault and folder joined, symbolic
// links not resolved), so that runs into another vault read everything again.
// An empty cortexDir names the offsets of runs that name no vault.
func (st State) TranscriptOffsets(cortexDir string) string {
	name := "offsets.json"
	if cortexDir != "" {
		sum := sha256.Sum256([]byte(cortexDir))
		name = "offsets-" + hex.EncodeToString(sum[:6]) + ".json"
	}
	return filepath.Join(st.Home, transcriptsDir, name)
}

// OTLP is the folder where the OTLP receiver keeps the log records it
// receives, one file a service and session; the otlp adapter reads them
// there (adapters/otlp mirrors the name).
func (st State) OTLP() string { return filepath.Join(st.Home, "otlp") }

// TranscriptIndexDir is the folder of the transcript search index: one for
// the machine, since transcripts belong to no vault.
func (st State) TranscriptIndexDir() string {
	return filepath.Join(st.Home, transcriptsDir, indexDir)
}

// LegacyIndex is the index folder and locks of versions that kept one index
// for every vault.
func (st State) LegacyIndex() (dir, writeLockFile, indexLockFile string) {
	return filepath.Join(st.Home, indexDir), filepath.Join(st.Home, writeLock), filepath.Join(st.Home, indexLock)
}

// Vault is the folder of the vault whose cortex folder is cortexDir (which
// need not exist yet).
func (st State) Vault(cortexDir string) (VaultState, error) {
	source, err := canonical(cortexDir)
	if err != nil {
		return VaultState{}, err
	}
	return VaultState{Dir: filepath.Join(st.Home, vaultsDir, vaultKey(source)), Source: source}, nil
}

// VaultState is one vault's folder in the state folder.
type VaultState struct {
	// Dir is the folder; Source the canonical path of the cortex folder it
	// belongs to, which its index records.
	Dir, Source string
}

// IndexDir is the folder of the vault's index generations.
func (v VaultState) IndexDir() string { return filepath.Join(v.Dir, indexDir) }

// WriteLock serialises the vault's writers.
func (v VaultState) WriteLock() string { return filepath.Join(v.Dir, writeLock) }

// IndexLock guards the vault's index: shared by readers, exclusive while it
// changes.
func (v VaultState) IndexLock() string { return filepath.Join(v.Dir, indexLock) }

// Inbox is the vault's capture inbox.
func (v VaultState) Inbox() InboxDirs {
	dir := filepath.Join(v.Dir, "inbox")
	return InboxDirs{Dir: dir, Pending: filepath.Join(dir, "pending"),
		Processed: filepath.Join(dir, "processed"), Failed: filepath.Join(dir, "failed"),
		Lock: filepath.Join(dir, "normalize.lock")}
}

// InboxDirs are the folders of a capture inbox: events wait in Pending, and
// move to Processed once normalised or to Failed when they cannot be. Lock
// makes the one normaliser the only consumer.
type InboxDirs struct {
	Dir, Pending, Processed, Failed, Lock string
}

// Receipts is the folder of the vault's session-start receipts.
func (v VaultState) Receipts() string { return filepath.Join(v.Dir, "receipts") }

// canonical is the absolute path of p with symbolic links resolved, for as
// much of it as exists (a cortex folder not yet created is named as it will
// be), so that two spellings of one folder share one state.
func canonical(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs, nil
	}
	rp, err := canonical(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(rp, filepath.Base(abs)), nil
}

// vaultKey names a vault's folder in the state folder: the vault's folder
// name, for a person looking, and a hash of the cortex folder's canonical
// path, which tells vaults apart.
func vaultKey(source string) string {
	name := []byte(filepath.Base(filepath.Dir(source)))
	for i, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			name[i] = '_'
		}
	}
	if len(name) > 32 {
		name = name[:32]
	}
	if len(name) == 0 || name[0] == '.' {
		name = append([]byte("vault"), name...)
	}
	sum := sha256.Sum256([]byte(source))
	return string(name) + "-" + hex.EncodeToString(sum[:8])
}
