package setup

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTOMLBlockRoundTrip(t *testing.T) {
	block := tomlBlock(bin, "\n")
	tests := []struct {
		name, src, want string
	}{
		{"empty", "", block},
		{"final newline", "model = \"x\"\n", "model = \"x\"\n\n" + block},
		{"no final newline", "model = \"x\"", "model = \"x\"\n\n" + strings.TrimSuffix(block, "\n")},
		{"blank line at the end", "model = \"x\"\n\n", "model = \"x\"\n\n\n" + block},
		{"a table last", "[features]\nweb_search = true\n", "[features]\nweb_search = true\n\n" + block},
		{"CRLF", "model = \"x\"\r\n[a]\r\nb = 1\r\n", "model = \"x\"\r\n[a]\r\nb = 1\r\n\r\n" + tomlBlock(bin, "\r\n")},
		{"comment last, no newline", "a = 1\n# bye", "a = 1\n# bye\n\n" + strings.TrimSuffix(block, "\n")},
		{"other servers", "[mcp_servers.gh]\ncommand = \"gh\"\n", "[mcp_servers.gh]\ncommand = \"gh\"\n\n" + block},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, actions, _, err := patchTOML("config.toml", []byte(tt.src), true, bin, false)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Fatalf("install (-want +got):\n%s", diff)
			}
			if len(actions) != 1 {
				t.Errorf("actions %v", actions)
			}
			again, _, actions, _, err := patchTOML("config.toml", got, true, bin, false)
			if err != nil || string(again) != string(got) || len(actions) != 0 {
				t.Errorf("a second install changed the file (%v, %v)", actions, err)
			}
			moved, _, _, _, err := patchTOML("config.toml", got, true, newBin, false)
			if err != nil || !strings.Contains(string(moved), `command = "/opt/cortex 2/bin/cortex"`) || strings.Contains(string(moved), bin) {
				t.Fatalf("moving the binary gave %q (%v)", moved, err)
			}
			back, remove, _, _, err := patchTOML("config.toml", moved, true, bin, true)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.src, string(back)); diff != "" {
				t.Errorf("uninstall (-want +got):\n%s", diff)
			}
			if remove != (tt.src == "") {
				t.Errorf("remove = %v", remove)
			}
		})
	}
}

func TestTOMLBlockNotLast(t *testing.T) {
	// A person added a table after cortex's block: uninstall takes the block
	// out and keeps the table.
	src := "a = 1\n\n" + tomlBlock(bin, "\n") + "\n[later]\nx = 2\n"
	got, _, _, _, err := patchTOML("config.toml", []byte(src), true, bin, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a = 1\n\n[later]\nx = 2\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTOMLRefusals(t *testing.T) {
	tests := []struct {
		name, src string
		conflict  bool
	}{
		{"inline mcp_servers", "mcp_servers = { gh = { command = \"gh\" } }\n", false},
		{"mcp_servers is a list", "mcp_servers = [1]\n", false},
		{"another cortex", "[mcp_servers.cortex]\nurl = \"https://x\"\n", true},
		{"dotted key", "mcp_servers.cortex.command = \"node\"\n", true},
		{"end marker alone", "a = 1\n# <<< cortex setup codex\n", false},
		{"two blocks", tomlBlock(bin, "\n") + tomlBlock(bin, "\n"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, _, _, err := patchTOML("config.toml", []byte(tt.src), true, bin, false)
			if err == nil {
				t.Fatal("accepted")
			}
			if got := errors.Is(err, ErrConflict); got != tt.conflict {
				t.Errorf("conflict = %v (%v)", got, err)
			}
			if !strings.Contains(err.Error(), "config.toml") {
				t.Errorf("the error does not name the file: %v", err)
			}
		})
	}
}

func TestTOMLHandWritten(t *testing.T) {
	// A server entry a person wrote that runs cortex mcp is left alone, by
	// setup and by uninstall, with a note.
	src := "[mcp_servers.cortex]\ncommand = \"cortex\"\nargs = [\"mcp\"]\n"
	for _, uninstall := range []bool{false, true} {
		got, _, actions, notes, err := patchTOML("config.toml", []byte(src), true, bin, uninstall)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != src || len(actions) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "line 1") {
			t.Errorf("uninstall=%v: changed (%v) or notes %v", uninstall, actions, notes)
		}
	}
}

func TestTOMLQuote(t *testing.T) {
	src := "x = " + tomlQuote("C:\\Program Files\\cortex \"v2\"\t.exe") + "\n"
	m, err := readTOML("q.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if m["x"] != "C:\\Program Files\\cortex \"v2\"\t.exe" {
		t.Errorf("read back %q", m["x"])
	}
}
