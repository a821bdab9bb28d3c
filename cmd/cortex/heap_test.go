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

func TestHugePagesFromEnvironment(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, true},
		{map[string]string{"CORTEX_HUGEPAGES": "on"}, true},
		{map[string]string{"CORTEX_HUGEPAGES": "off"}, false},
		{map[string]string{"CORTEX_HUGEPAGES": " OFF "}, false},
		{map[string]string{"GODEBUG": "gctrace=1,disablethp=1"}, false},
		{map[string]string{"GODEBUG": "disablethp=0"}, true},
	} {
		if got := hugePages(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("hugePages(%v) = %v, want %v", c.env, got, c.want)
		}
	}
}
