package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStateLayout pins the state folder's layout: a state folder written by
// an earlier cortex must be found where it is, so the names here are the ones
// cortex has always used (a changed name is a lost index, access log or
// token).
func TestStateLayout(t *testing.T) {
	home := filepath.FromSlash("/home/ada/.cortex")
	st := State{Home: home}
	vs, err := st.Vault(filepath.FromSlash("/cortex-state-test/My Vault/cortex"))
	if err != nil {
		t.Fatal(err)
	}
	legacyDir, legacyWrite, legacyIndex := st.LegacyIndex()
	in := vs.Inbox()
	got := map[string]string{
		"ConfigFile":              st.ConfigFile(),
		"EventsFile":              st.EventsFile(),
		"AccessLog":               st.AccessLog(),
		"AccessIndex":             st.AccessIndex(),
		"AccessLock":              st.AccessLock(),
		"MCPToken":                st.MCPToken(),
		"HookLog":                 st.HookLog(),
		"TranscriptLock":          st.TranscriptLock(),
		"TranscriptOffsets(\"\")": st.TranscriptOffsets(""),
		"TranscriptOffsets(v)":    st.TranscriptOffsets(filepath.FromSlash("/v/cortex")),
		"TranscriptIndexDir":      st.TranscriptIndexDir(),
		"OTLP":                    st.OTLP(),
		"LegacyIndex dir":         legacyDir,
		"LegacyIndex write lock":  legacyWrite,
		"LegacyIndex index lock":  legacyIndex,
		"Vault":                   vs.Dir,
		"Vault IndexDir":          vs.IndexDir(),
		"Vault WriteLock":         vs.WriteLock(),
		"Vault IndexLock":         vs.IndexLock(),
		"Vault Inbox":             in.Dir,
		"Vault Inbox pending":     in.Pending,
		"Vault Inbox processed":   in.Processed,
		"Vault Inbox failed":      in.Failed,
		"Vault Inbox lock":        in.Lock,
		"Vault Receipts":          vs.Receipts(),
	}
	for k, p := range got {
		rel, err := filepath.Rel(home, p)
		if err != nil {
			t.Fatalf("%s: %s is not in the state folder", k, p)
		}
		got[k] = filepath.ToSlash(rel)
	}
	const vault = "vaults/My_Vault-eedb1fd8fe85ba41"
	want := map[string]string{
		"ConfigFile":              "config.yaml",
		"EventsFile":              "events.jsonl",
		"AccessLog":               "access.log",
		"AccessIndex":             "access.idx",
		"AccessLock":              "access.lock",
		"MCPToken":                "mcp-token",
		"HookLog":                 "hooks.log",
		"TranscriptLock":          "transcripts/scribe.lock",
		"TranscriptOffsets(\"\")": "transcripts/offsets.json",
		"TranscriptOffsets(v)":    "transcripts/offsets-36bd43d0ba1e.json",
		"TranscriptIndexDir":      "transcripts/index",
		"OTLP":                    "otlp",
		"LegacyIndex dir":         "index",
		"LegacyIndex write lock":  "write.lock",
		"LegacyIndex index lock":  "index.lock",
		"Vault":                   vault,
		"Vault IndexDir":          vault + "/index",
		"Vault WriteLock":         vault + "/write.lock",
		"Vault IndexLock":         vault + "/index.lock",
		"Vault Inbox":             vault + "/inbox",
		"Vault Inbox pending":     vault + "/inbox/pending",
		"Vault Inbox processed":   vault + "/inbox/processed",
		"Vault Inbox failed":      vault + "/inbox/failed",
		"Vault Inbox lock":        vault + "/inbox/normalize.lock",
		"Vault Receipts":          vault + "/receipts",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("layout (-want +got):\n%s", diff)
	}
	if vs.Source != filepath.FromSlash("/cortex-state-test/My Vault/cortex") {
		t.Errorf("Source = %q, want the cortex folder as given (nothing of it exists)", vs.Source)
	}
}

// TestStateVaultNames: a vault's folder is named for people (its folder name,
// made safe) and told apart by the canonical path of its cortex folder.
func TestStateVaultNames(t *testing.T) {
	st := State{Home: t.TempDir()}
	dir := t.TempDir()
	real := filepath.Join(dir, "My Vault")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	name := func(cortexDir string) string {
		t.Helper()
		vs, err := st.Vault(cortexDir)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Base(vs.Dir)
	}
	a := name(filepath.Join(real, "cortex"))
	if b := name(filepath.Join(dir, ".", "My Vault", "sub", "..", "cortex")); b != a {
		t.Errorf("two spellings of one folder: %s and %s", a, b)
	}
	if c := name(filepath.Join(dir, "other", "My Vault", "cortex")); c == a {
		t.Errorf("two vaults share the folder %s", a)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err == nil {
		if l := name(filepath.Join(link, "cortex")); l != a {
			t.Errorf("a vault reached through a symbolic link: %s, want %s", l, a)
		}
	}
	tests := []struct{ dir, wantPrefix string }{
		{"/cortex-state-test/.hidden/cortex", "vault.hidden-897aa16cc2bb3c48"},
		{"/cortex-state-test/Ünïcode & more/cortex", "__n__code___more-"},
		{"/cortex-state-test/a-very-long-vault-name-that-goes-on-and-on/cortex", "a-very-long-vault-name-that-goes-"},
	}
	for _, tt := range tests {
		if got := name(filepath.FromSlash(tt.dir)); len(got) < len(tt.wantPrefix) || got[:len(tt.wantPrefix)] != tt.wantPrefix {
			t.Errorf("vault folder of %s = %q, want it to start with %q", tt.dir, got, tt.wantPrefix)
		}
	}
}
