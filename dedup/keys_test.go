package dedup

import (
	"slices"
	"strings"
	"testing"
)

// TestConflicts shows each key word keeping two near-identical memories
// distinct, and texts that differ only in wording that must not conflict.
func TestConflicts(t *testing.T) {
	tests := []struct {
		name       string
		newer, old string
		want       Conflict
	}{
		{"another number", "The staging pool holds 50 connections", "The staging pool holds 20 connections", ConflictNumber},
		{"a number in words", "Pull three layers at a time", "Pull 3 layers at a time", ""},
		{"a number and its unit", "The timeout is 5s", "The timeout is 5 seconds", ""},
		{"a version", "Use Go 1.23 for the CLI", "Use Go 1.22 for the CLI", ConflictNumber},
		{"another command", "Run `make lint` before pushing", "Run `make test` before pushing", ConflictIdentifier},
		{"another file", "The worker logs to /var/log/app/worker.log", "The worker logs to /var/log/app/api.log", ConflictIdentifier},
		{"the same file by another path", "The CLI reads ~/.docker/config.json", "The CLI reads $HOME/.docker/config.json", ""},
		{"another flag", "Install with `--prefer-offline` in CI", "Install with `--frozen-lockfile` in CI", ConflictIdentifier},
		{"another identifier", "Sign tokens with RS256", "Sign tokens with HS256", ConflictIdentifier},
		{"a command's words in another order", "Join with `docker swarm join`", "Join the node; see `docker swarm init`", ConflictIdentifier},
		{"a command named in prose", "`docker plugin enable` needs an installed plugin", "plugin enable › Description\nEnables a plugin, once installed.", ""},
		{"opposite words", "Enable the billing flag in staging", "Disable the billing flag in staging", ConflictOpposite},
		{"a prefixed opposite", "Unpublish the docs site", "Publish the docs site", ConflictOpposite},
		{"another prefix", "The container is disconnected from the network", "The container is connected to the network", ConflictOpposite},
		{"on and off after a verb", "Turn autolock off for the managers", "Turn autolock on for the managers", ConflictOpposite},
		{"on as a preposition", "Deploys happen on Tuesdays", "Deploys happen Tuesdays", ""},
		{"both words in both", "Enable or disable the plugin", "Disable or enable the plugin", ""},
		{"opposite titles", "context import\nMoves a context between machines, see the file.", "context export\nMoves a context between machines, see the file.", ConflictOpposite},
		{"a negation", "The API does not support cursor pagination", "The API supports cursor pagination", ConflictNegation},
		{"a negation taken away", "Docker supports relative paths for mount points", "Docker doesn't support relative paths for mount points", ConflictNegation},
		{"a negation said another way", "Tests start a real Postgres instead of mocking the database", "Tests start a real Postgres; there are no mocks of the database", ""},
		{"another platform", "Shortcuts on macOS: save with the S key", "Shortcuts on Windows: save with the S key", ConflictPlatform},
		{"another environment", "The staging pool holds connections per pod", "The production pool holds connections per pod", ConflictPlatform},
		{"a platform only one names", "On Linux the daemon uses the freezer cgroup", "The daemon uses the freezer cgroup", ""},
		{"another subject", "secret rm\nRemoves the specified secrets. This is a cluster management command.",
			"config rm\nRemoves the specified configs. This is a cluster management command.", ConflictSubject},
		{"another name", "Backups\nBackups of EU customers go to the bucket in Frankfurt", "Backups\nBackups of US customers go to the bucket in Virginia", ConflictSubject},
		{"a title that is the first line", "Stored note: service5 handles queue15, checked every night.\nStored note: service5 handles queue15, checked every night.",
			"Imported\nImported note: service5 handles queue15, checked every night.", ""},
		{"a heading word", "rm › Examples\nRemove the volumes of a container with rm -v; named volumes stay.",
			"Removing volumes\nRemove the volumes of a container with rm -v; named volumes stay. Removing is final.", ""},
		{"a link", "Use bleve for the index. [[S:turn1]] [see](https://example.com/a)", "Use bleve for the index.", ""},
		{"other pages linked, each way", "Commands\nSee [npm ping](/commands/npm-ping) and [npm help](/commands/npm-help).",
			"Commands\nSee [npm access](/commands/npm-access), and npm help for the rest.", ConflictSubject},
		{"the same page linked", "Commands\nSee the [npm ping](/commands/npm-ping) page.", "Commands\nThe page on [npm ping](ping.md) is worth a look: see it.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Compare(New(tt.newer), New(tt.old))
			if s.Conflict != tt.want {
				t.Errorf("conflict %q, want %q (%+v)", s.Conflict, tt.want, s)
			}
			if tt.want != "" && s.Score > conflictCap {
				t.Errorf("score %v above %v with a conflict", s.Score, conflictCap)
			}
		})
	}
}

// TestOppositesTable: a word has one opposite; forms of a word share their
// pair ("enable" and "enabled"); the two words of a pair are not one word to
// the stemmer.
func TestOppositesTable(t *testing.T) {
	roots := map[uint64]uint64{}
	for _, pair := range opposites {
		var sides [2]wordInfo
		for side, w := range pair {
			h, _ := word([]byte(w), hashString(w), nil)
			info, ok := wordInfos().get(h)
			if !ok || !info.isPolar {
				t.Fatalf("%q is not in the table", w)
			}
			if r, seen := roots[h]; seen && r != info.polar.root {
				t.Errorf("%q is in two pairs", w)
			}
			roots[h] = info.polar.root
			sides[side] = info
		}
		if sides[0].polar.root != sides[1].polar.root || sides[0].polar.side == sides[1].polar.side {
			t.Errorf("%q and %q are not two sides of one pair: %+v", pair[0], pair[1], sides)
		}
	}
}

func TestPrefixPolar(t *testing.T) {
	for _, tt := range []struct {
		stem string
		rest string // "" for none
	}{
		{"unpublish", "publish"}, {"unpin", "pin"}, {"disconnect", "connect"}, {"deactivat", "activat"},
		{"invalid", "valid"}, {"nonempty", "empty"}, {"input", ""}, {"index", ""}, {"un", ""}, {"unité", ""},
	} {
		p, ok := prefixPolar([]byte(tt.stem))
		if ok != (tt.rest != "") || ok && p.root != hashString(tt.rest) {
			t.Errorf("prefixPolar(%q) = %+v, %v; want the rest %q", tt.stem, p, ok, tt.rest)
		}
	}
}

// TestLinkNames: the words of a markdown link's text are names, less stop
// words; an image's text, a wiki link, a target and a bracket left open
// are not.
func TestLinkNames(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"no links at all", nil},
		{"* [npm ping](/commands/npm-ping) and [the Help page](help.md)", []string{"npm", "ping", "help", "page"}},
		{"![a diagram of the flow](img/flow.png)", nil},
		{"[![Build Status](badge.svg)](https://ci.example.com)", nil},
		{"[[wiki note]] and [[S:turn1]]", nil},
		{"an open [bracket\nthen](target)", nil},
		{"[`docker plugin install`](plugin_install.md)", []string{"docker", "plugin", "install"}},
		{"[数据库](db.md)", []string{"数", "据", "库"}},
		{"[alpha](b)[gamma](d) [epsilon] (f) [zeta]h](i)", []string{"alpha", "gamma"}},
		// One opening bracket and many closings after it: one link.
		{"[x" + strings.Repeat("](y", 300000), []string{"x"}},
	}
	for _, tt := range tests {
		var want []uint64
		for _, w := range tt.want {
			h, _ := word([]byte(w), hashString(w), nil)
			want = append(want, h)
		}
		if got := appendLinkNames(nil, tt.text, nil); !slices.Equal(got, want) {
			t.Errorf("appendLinkNames(%q) = %v, want the words of %q: %v", tt.text, got, tt.want, want)
		}
	}
}
