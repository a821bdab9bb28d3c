package main

import "testing"

func TestCommandName(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"reindex", "--full"}, "reindex"},
		{[]string{"--vault", "/v", "reindex"}, "reindex"},
		{[]string{"--vault=/v", "--json", "mcp"}, "mcp"},
		{[]string{"--home", "h", "--config", "c", "import", "x"}, "import"},
		{[]string{"--json"}, ""},
		{[]string{"--", "reindex"}, ""},
		{nil, ""},
	} {
		if got := commandName(c.args); got != c.want {
			t.Errorf("commandName(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}

// Every command given room exists, so that a rename cannot drop it silently.
func TestHeapRoomNamesCommands(t *testing.T) {
	root := newRootCmd(&app{getenv: func(string) string { return "" }})
	for name := range heapRoom {
		found := false
		for _, c := range root.Commands() {
			if c.Name() == name {
				found = true
			}
		}
		if !found {
			t.Errorf("heapRoom names %q, which is no command", name)
		}
	}
}
