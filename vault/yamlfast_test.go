package vault

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/cortexmem/cortex/memories"
)

// fastAndV3 is node as fastYAML and as yaml.v3 write it.
func fastAndV3(t testing.TB, node *yaml.Node) (fast []byte, ok bool, v3 string) {
	t.Helper()
	want, err := encodeYAMLv3(node)
	if err != nil {
		return nil, false, ""
	}
	fast, ok = fastYAML(node)
	return fast, ok, string(want)
}

func scalarNode(tag, value string, style yaml.Style) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value, Style: style}
}

func mappingOf(kv ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: kv}
}

func key(k string) *yaml.Node { return scalarNode("!!str", k, 0) }

// TestFastYAMLIsYAMLv3s checks that the frontmatter of the memories cortex
// writes takes the fast path, and that whatever it writes is yaml.v3's
// text byte for byte.
func TestFastYAMLIsYAMLv3s(t *testing.T) {
	created := time.Date(2026, 11, 28, 4, 2, 29, 0, time.UTC)
	mems := []*memories.Memory{
		{
			ID: "01m8g53708pa4en7wjkmagkfab", Title: "About Getting Started › More specialised facilities",
			Type: "note", Project: "general", Source: "import", Status: "active", Importance: 3,
			Created: created, Updated: created.Add(time.Hour),
			Tags:    []string{"kafka", "ops/alerts", "état"},
			Related: []string{"about-getting-started-basics-01m8g537zg9v", "它的-笔记"},
			Provenance: memories.Provenance{SourceTool: "import:markdown",
				SourcePath: "/notes/en/topic-33/note-00593.md#About Getting Started › More specialised facilities",
				SourceHash: "43b083ce053d34c47b202195"},
		},
		{ID: "01m8g537zgmjqk0r4yw9t3hx2v", Title: "构建时数据加载 › 配置 › 主题接口", Type: "decision", Project: "web-app", Status: "active",
			Importance: 5, Created: created, Updated: created},
		{ID: "01m8g537zgmjqk0r4yw9t3hx2w", Title: "Why: the cache's TTL #2", Type: "gotcha", Project: "p", Status: "active", Created: created, Updated: created},
	}
	for _, m := range mems {
		n, err := NewNote(m)
		if err != nil {
			t.Fatal(err)
		}
		fast, ok, want := fastAndV3(t, n.fm)
		if !ok {
			t.Errorf("%s: the frontmatter of a memory did not take the fast path:\n%s", m.Title, want)
			continue
		}
		if diff := cmp.Diff(want, string(fast)); diff != "" {
			t.Errorf("%s: fast frontmatter differs from yaml.v3's (-v3 +fast):\n%s", m.Title, diff)
		}
	}

	// Scalars at the edges of each rule, as values, keys and list items.
	values := []string{
		"plain", "two words", "a: b", "a:b", "a #b", "a#b", "#a", "-a", "- a", "-", "?a", "? a", ":a", ": a",
		"---", "--a", "...", "..a", "a:", "a -", "[a]", "a[b]", "{a", "a,b", "&a", "*a", "!a", "|a", ">a",
		"'a", "a'b", "\"a", "a\"b", "a\\b", "%a", "@a", "`a", " a", "a ", "a  b", "true", "True", "TRUE",
		"tRue", "false", "null", "Null", "NULL", "nul", "yes", "no", "on", "off", "y", "n", "~", "<<",
		"1", "0x1f", "1_000", "1.5", ".5", ".inf", "+1", "-1", "2026-11-28", "2026-11-28T04:02:29Z",
		"é", "état", "a›b", "中文", "a\u00a0b", "a\u2028b", "a\tb", "a\nb", "a\x7fb", "a\ufeffb", "😀",
		"a\u0085b", "\xff", "", "01m8g53708pa4en7wjkmagkfab", "01abc", "0x1g", "1:20", "1 2", "-a", "+x", "12é", "2026-11-28 later", "1e5", "0b2", "<% tp.file.title %>", "<", "<<", "<<x", "~x", ".x", ".5", ".5e3", ".NaN", ".nan", ".Nan", "._5", ".inf", ".Infinity", "+.inf", "-.Inf", "+.INF", "+.iNf", "-inf", "+Infinity", "-nan", "0b101", "-0b101", "0b7e8e18c24fcc5bffcb3cfb", "-0o7", "0o8", "0o17", "0b", "-0o", "43b083ce053d34c47b202195", "1_0", "0x_1f", "99999999999999999999", "1.5.6", "+", "-", "1-2", "12:30", strings.Repeat("long ", 40),
	}
	styles := []yaml.Style{0, yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle, yaml.LiteralStyle}
	tags := []string{"!!str", "", "!!int", "!!bool", "!!timestamp", "!!float"}
	fastCount := 0
	for _, v := range values {
		for _, style := range styles {
			for _, tag := range tags {
				for _, node := range shapesOf(scalarNode(tag, v, style)) {
					fast, ok, want := fastAndV3(t, node)
					if !ok {
						continue
					}
					fastCount++
					if string(fast) != want {
						t.Errorf("%q (tag %q, style %v): fast %q, yaml.v3 %q", v, tag, style, fast, want)
					}
				}
			}
		}
	}
	if fastCount < 500 {
		t.Errorf("only %d of the scalar cases took the fast path", fastCount)
	}
	for _, c := range []struct {
		value, tag string
	}{{"3", "!!int"}, {"-12", "!!int"}, {"true", "!!bool"}, {"2026-11-28T04:02:29Z", "!!timestamp"},
		{"2026-11-28T04:02:29+05:30", "!!timestamp"}} {
		if _, ok, _ := fastAndV3(t, mappingOf(key("k"), scalarNode(c.tag, c.value, 0))); !ok {
			t.Errorf("%s %s did not take the fast path", c.tag, c.value)
		}
	}
	for _, c := range []struct {
		value, tag string
	}{{"07", "!!int"}, {"2026-13-28T04:02:29Z", "!!timestamp"}, {"yes", "!!bool"}, {"1.5", "!!float"}} {
		if _, ok, _ := fastAndV3(t, mappingOf(key("k"), scalarNode(c.tag, c.value, 0))); ok {
			t.Errorf("%s %s took the fast path; it is left to yaml.v3", c.tag, c.value)
		}
	}
}

// shapesOf is the places a scalar takes in a frontmatter: a value, a key,
// a list item, a nested mapping's value and a list in it.
func shapesOf(s *yaml.Node) []*yaml.Node {
	list := func(items ...*yaml.Node) *yaml.Node {
		return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: items}
	}
	return []*yaml.Node{
		mappingOf(key("k"), s),
		mappingOf(s, scalarNode("!!str", "v", 0)),
		mappingOf(key("id"), key("x"), key("list"), list(key("a"), s)),
		mappingOf(key("provenance"), mappingOf(key("source_path"), s, key("more"), list(s))),
	}
}

// FuzzFastYAML builds frontmatters of two scalars in every place and
// compares the fast path's text with yaml.v3's whenever it is taken.
func FuzzFastYAML(f *testing.F) {
	f.Add("title", "About › More: facilities", uint8(0), uint8(0))
	f.Add("related", "[[a-b]]", uint8(1), uint8(1))
	f.Add("k", "2026-11-28T04:02:29Z", uint8(4), uint8(0))
	f.Add("n", "3", uint8(2), uint8(0))
	f.Add("it's", "a 'b' \"c\" \\d", uint8(0), uint8(2))
	f.Fuzz(func(t *testing.T, k, v string, tagSel, styleSel uint8) {
		tags := []string{"!!str", "", "!!int", "!!bool", "!!timestamp"}
		styles := []yaml.Style{0, yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle}
		tag, style := tags[int(tagSel)%len(tags)], styles[int(styleSel)%len(styles)]
		kn := scalarNode("!!str", k, 0)
		for _, node := range append(shapesOf(scalarNode(tag, v, style)), mappingOf(kn, scalarNode(tag, v, style))) {
			fast, ok, want := fastAndV3(t, node)
			if ok && string(fast) != want {
				t.Fatalf("key %q value %q (tag %q, style %v): fast %q, yaml.v3 %q", k, v, tag, style, fast, want)
			}
		}
	})
}

// TestReadsAsAllocatesNothingForAnID: an id or another digit-first text
// with a letter no number has is known to read as a string without the
// number parses, whose errors allocate (every note's id is one).
func TestReadsAsAllocatesNothingForAnID(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what is allocated")
	}
	for _, v := range []string{"01m8g53708pa4en7wjkmagkfab", "3 apples", "1:20"} {
		var got reads
		if n := testing.AllocsPerRun(100, func() { got = readsAs(v) }); n != 0 {
			t.Errorf("readsAs(%q) made %v allocations; want none", v, n)
		}
		if got != readsString {
			t.Errorf("readsAs(%q) = %v; want readsString", v, got)
		}
	}
}
