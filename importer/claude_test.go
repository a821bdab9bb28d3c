package importer

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

func TestParseInstructions(t *testing.T) {
	const body = "# CLAUDE.md\n\n## Commands\n\n- `make test` runs the unit tests\n"
	const noH1 = "## Review\n\nRun `make lint test` before asking for a review.\n"
	home := filepath.FromSlash("/home/dev")
	tests := []struct {
		name, path, in string
		wantKind       Kind
		wantProject    string
		wantTitle      string
	}{
		{"a project's CLAUDE.md", "/home/dev/src/myapp/CLAUDE.md", body, KindClaudeMD, "myapp", "CLAUDE.md › Commands"},
		{"a project's .claude/CLAUDE.md takes the folder above", "/home/dev/src/myapp/.claude/CLAUDE.md", noH1, KindClaudeMD, "myapp", "CLAUDE.md › Review"},
		{"CLAUDE.local.md", "/home/dev/src/myapp/CLAUDE.local.md", noH1, KindClaudeMD, "myapp", "CLAUDE.local.md › Review"},
		{"AGENTS.md", "/home/dev/src/service/AGENTS.md", noH1, KindAgentsMD, "service", "AGENTS.md › Review"},
		{"the user's own CLAUDE.md goes to general", "/home/dev/.claude/CLAUDE.md", noH1, KindClaudeMD, memories.DefaultProject, "CLAUDE.md › Review"},
		{"a folder name made a project name", "/home/dev/src/My App/CLAUDE.md", noH1, KindClaudeMD, "my-app", "CLAUDE.md › Review"},
		{"a folder name cortex cannot use", "/home/dev/src/app (old)/CLAUDE.md", noH1, KindClaudeMD, memories.DefaultProject, "CLAUDE.md › Review"},
		{"at the root", "/CLAUDE.md", noH1, KindClaudeMD, memories.DefaultProject, "CLAUDE.md › Review"},
		{
			"the frontmatter's project and title win", "/home/dev/src/myapp/CLAUDE.md",
			"---\nproject: billing\ntitle: Billing rules\n---\n" + noH1, KindClaudeMD, "billing", "Billing rules › Review",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.FromSlash(tt.path)
			items, skips := parseInstructions(path, []byte(tt.in), home)
			checkItems(t, tt.wantKind, items, skips)
			if len(items) != 1 || len(skips) != 0 {
				t.Fatalf("got %d items and skips %v, want one item", len(items), skips)
			}
			it := items[0]
			if it.Project != tt.wantProject || it.Title != tt.wantTitle || it.Type != memories.TypeConvention {
				t.Errorf("got project %q, title %q, type %q; want %q, %q, convention", it.Project, it.Title, it.Type, tt.wantProject, tt.wantTitle)
			}
		})
	}
}

func TestParseInstructionsSections(t *testing.T) {
	in := "# CLAUDE.md\n\nGuidance for agents in this repository.\n\n## Commands\n\n- `make dev` starts everything\n- `make test` runs the tests\n\n## Style\n\nOk\n"
	path := filepath.FromSlash("/src/myapp/CLAUDE.md")
	items, skips := parseInstructions(path, []byte(in), "")
	conv := func(title, source, content string) Item {
		return Item{Title: title, Source: path + source, Content: content, Project: "myapp", Type: memories.TypeConvention, Kind: KindClaudeMD}
	}
	want := []Item{
		conv("CLAUDE.md", "#CLAUDE.md", "Guidance for agents in this repository."),
		conv("CLAUDE.md › Commands", "#CLAUDE.md › Commands", "- `make dev` starts everything\n- `make test` runs the tests"),
	}
	if diff := cmp.Diff(want, items, ignoreLinks); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Skip{{path + "#CLAUDE.md › Style", tooShort(2)}}, skips); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
}

func TestIsClaudeMemory(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"/h/.claude/projects/-h-src-app/memory/MEMORY.md", true},
		{"/h/.claude/projects/-h-src-app/memory/user_role.md", true},
		{"/h/.claude/projects/-h-src-app/memory/Notes.MD", true},
		{"/h/.claude/projects/-h-src-app/memory/notes.txt", false},
		{"/h/.claude/projects/-h-src-app/memory/old/x.md", false},
		{"/h/.claude/projects/-h-src-app/x.md", false},
		{"/h/claude/projects/-h-src-app/memory/x.md", false},
		{"/h/.claude/things/-h-src-app/memory/x.md", false},
		{"/h/notes/memory/x.md", false},
	}
	for _, tt := range tests {
		if got := isClaudeMemory(filepath.FromSlash(tt.path)); got != tt.want {
			t.Errorf("isClaudeMemory(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// fakeDirs is an exists that knows the given folders and their parents.
func fakeDirs(dirs ...string) func(string) bool {
	known := map[string]bool{}
	for _, d := range dirs {
		for d = filepath.FromSlash(d); ; d = filepath.Dir(d) {
			known[d] = true
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	return func(dir string) bool { return known[dir] }
}

func TestDecodeProjectPath(t *testing.T) {
	tests := []struct {
		name, encoded string
		exists        func(string) bool
		want          string
	}{
		{"a name with a dash", "-home-dev-src-my-app", fakeDirs("/home/dev/src/my-app"), "my-app"},
		{"nothing exists: the last part", "-home-dev-src-my-app", fakeDirs(), "app"},
		{"no exists: the last part", "-home-dev-src-my-app", nil, "app"},
		{"only the parents exist", "-home-dev-src-my-app", fakeDirs("/home/dev/src"), "app"},
		{"a shorter name that leads nowhere", "-home-dev-src-my-app", fakeDirs("/home/dev/src/my", "/home/dev/src/my-app"), "my-app"},
		{"a shorter name that leads somewhere", "-home-dev-src-my-app", fakeDirs("/home/dev/src/my/app", "/home/dev/src/my-app"), "app"},
		{"a folder with a dash above", "-home-dev-side-projects-cortex", fakeDirs("/home/dev/side-projects/cortex"), "cortex"},
		{"an underscore", "-home-dev-src-my-app", fakeDirs("/home/dev/src/my_app"), "my_app"},
		{"a dot", "-home-dev-src-my-app-io", fakeDirs("/home/dev/src/my.app.io"), "my.app.io"},
		{"a hidden folder", "-home-dev--dotfiles-my-tool", fakeDirs("/home/dev/.dotfiles/my-tool"), "my-tool"},
		{"the project is the hidden folder", "-home-dev--config", fakeDirs("/home/dev/.config"), ".config"},
		{"macOS", "-Users-ada-Code-web-site", fakeDirs("/Users/ada/Code/web-site"), "web-site"},
		{"empty", "", fakeDirs("/home"), ""},
		{"dashes only", "---", fakeDirs("/home"), ""},
		{"one part", "-home", fakeDirs("/home"), "home"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decodeProjectPath(tt.encoded, tt.exists); got != tt.want {
				t.Errorf("decodeProjectPath(%q) = %q, want %q", tt.encoded, got, tt.want)
			}
		})
	}
}

func TestAutoMemoryProject(t *testing.T) {
	exists := fakeDirs("/home/dev/src/my-app", "/home/dev/.config")
	tests := []struct{ encoded, want string }{
		{"-home-dev-src-my-app", "my-app"},
		{"-home-dev-src-Other-App", "app"},
		{"-home-dev--config", memories.DefaultProject}, // ".config" cannot be a project
		{"-", memories.DefaultProject},
	}
	for _, tt := range tests {
		path := filepath.Join(string(filepath.Separator), "h", ".claude", "projects", tt.encoded, "memory", "MEMORY.md")
		if got := autoMemoryProject(path, exists); got != tt.want {
			t.Errorf("autoMemoryProject(%s) = %q, want %q", path, got, tt.want)
		}
	}
}

func TestParseClaudeMemory(t *testing.T) {
	dir := filepath.FromSlash("/home/dev/.claude/projects/-home-dev-src-my-app/memory")
	exists := fakeDirs("/home/dev/src/my-app")
	const fact = "Integration tests must hit a real Postgres, not mocks."
	topic := func(typ string) string {
		return "---\nname: Testing with a real database\ndescription: no mocks for the data layer\ntype: " + typ + "\n---\n" + fact + "\n"
	}
	mem := func(file, title, source, content string, typ memories.Type) Item {
		return Item{Title: title, Source: filepath.Join(dir, file) + source, Content: content, Project: "my-app", Type: typ, Kind: KindClaudeMemory}
	}
	const name = "Testing with a real database"
	tests := []struct {
		name, file, in string
		wantItems      []Item
		wantSkips      []Skip
	}{
		{"user", "user_role.md", topic("user"), []Item{mem("user_role.md", name, "", fact, memories.TypePreference)}, nil},
		{"feedback", "f.md", topic("feedback"), []Item{mem("f.md", name, "", fact, memories.TypeConvention)}, nil},
		{"project", "f.md", topic("project"), []Item{mem("f.md", name, "", fact, memories.TypeFact)}, nil},
		{"reference", "f.md", topic(" Reference "), []Item{mem("f.md", name, "", fact, memories.TypeFact)}, nil},
		{"a cortex type", "f.md", topic("gotcha"), []Item{mem("f.md", name, "", fact, memories.TypeGotcha)}, nil},
		{"an unknown type", "f.md", topic("mood"), []Item{mem("f.md", name, "", fact, "")}, nil},
		{"no frontmatter: the file name is the title", "db_tests.md", fact, []Item{mem("db_tests.md", "db_tests", "", fact, "")}, nil},
		{
			"sections of a topic file are titled under its name", "f.md",
			"---\nname: Testing\ntype: feedback\n---\n## Why\n\n" + fact + "\n",
			[]Item{mem("f.md", "Testing › Why", "#Testing › Why", fact, memories.TypeConvention)}, nil,
		},
		{
			"MEMORY.md: the index lines are dropped, the others kept", "MEMORY.md",
			"# Memory index\n\n- [User role](user_role.md) — backend developer\n* [Testing](./feedback_testing.md)\n" +
				"  - [Deep](deep.md) — indented\n- [Docs](https://example.com/docs.md) — a link elsewhere stays\n" +
				"- [Sub](topics/sub.md) — in a subfolder, stays\n\n" + fact + "\n",
			[]Item{mem("MEMORY.md", "Memory index", "#Memory index",
				"- [Docs](https://example.com/docs.md) — a link elsewhere stays\n- [Sub](topics/sub.md) — in a subfolder, stays\n\n"+fact, "")},
			nil,
		},
		{
			"MEMORY.md with CRLF line ends", "MEMORY.md",
			"# Memory index\r\n\r\n- [User role](user_role.md) — backend developer\r\n" + fact + "\r\n",
			[]Item{mem("MEMORY.md", "Memory index", "#Memory index", fact, "")}, nil,
		},
		{
			"MEMORY.md with only index lines", "MEMORY.md",
			"# Memory index\n\n- [User role](user_role.md) — backend developer\n- [Testing](feedback_testing.md)\n",
			nil, []Skip{{filepath.Join(dir, "MEMORY.md"), "only links to the topic files, which are read on their own"}},
		},
		{
			"MEMORY.md with only headings", "MEMORY.md", "# Memory index\n## User\n",
			nil, []Skip{{filepath.Join(dir, "MEMORY.md"), "only headings, no text under them"}},
		},
		{
			"a topic file's index-like lines are kept", "links.md",
			"- [User role](user_role.md) — who the user is and what they work on\n",
			[]Item{mem("links.md", "links", "", "- [User role](user_role.md) — who the user is and what they work on", "")}, nil,
		},
		{
			"broken frontmatter", "f.md", "---\nname: [Testing\n---\n" + fact,
			nil, []Skip{{filepath.Join(dir, "f.md"), "the frontmatter does not parse: line 2: did not find expected ',' or ']'"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, skips := parseClaudeMemory(filepath.Join(dir, tt.file), []byte(tt.in), exists)
			if diff := cmp.Diff(tt.wantItems, items, ignoreLinks); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSkips, skips); diff != "" {
				t.Errorf("skips (-want +got):\n%s", diff)
			}
			checkItems(t, KindClaudeMemory, items, skips)
		})
	}
}

func FuzzParseClaudeMemory(f *testing.F) {
	seedTree(f, "claude", ".md")
	for _, s := range []string{
		"", "- [a](a.md)\n", "- [a](a.md)", "---\nname: \"\\t\"\ntype: user\n---\nlong enough to be a memory of its own\n",
		"# Memory\n* [x](./x.md) hook\nreal fact line that stays in the memory\n",
	} {
		f.Add([]byte(s))
	}
	exists := fakeDirs("/home/dev/src/my-app")
	dir := filepath.FromSlash("/home/dev/.claude/projects/-home-dev-src-my-app/memory")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"MEMORY.md", "topic.md"} {
			parse := func(_ string, data []byte) ([]Item, []Skip) {
				return parseClaudeMemory(filepath.Join(dir, name), data, exists)
			}
			checkParser(t, KindClaudeMemory, parse, data)
			items, _ := parse("", data)
			for _, it := range items {
				if it.Project != "my-app" {
					t.Errorf("project %q, want my-app", it.Project)
				}
				if name == "MEMORY.md" && indexLink().MatchString(it.Content) {
					t.Errorf("MEMORY.md item %q keeps an index line: %q", it.Title, it.Content)
				}
				if !strings.HasPrefix(it.Source, filepath.Join(dir, name)) {
					t.Errorf("source %q", it.Source)
				}
			}
		}
		instructions := func(_ string, data []byte) ([]Item, []Skip) {
			return parseInstructions(filepath.FromSlash("/home/dev/src/my-app/CLAUDE.md"), data, "/home/dev")
		}
		checkParser(t, KindClaudeMD, instructions, data)
	})
}
