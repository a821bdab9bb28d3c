package vault

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/cortexmem/cortex/memories"
)

// noteView is everything a reader takes from a parsed note.
type noteView struct {
	Memory   *memories.Memory
	ID       string
	Has      bool
	Keys     []string
	KeyLines map[string]int
	Text     string
	Body     string
	Values   map[string][]string
	Lists    map[string]bool
	// Tree is the frontmatter's nodes, their YAML tags aside (the fast
	// path does not resolve them).
	Tree *treeNode
}

// treeNode is a YAML node as a reader sees it: where it is, its kind, style
// and text.
type treeNode struct {
	Kind         yaml.Kind
	Style        yaml.Style
	Value        string
	Line, Column int
	Content      []*treeNode
}

func treeOf(n *yaml.Node) *treeNode {
	if n == nil {
		return nil
	}
	t := &treeNode{Kind: n.Kind, Style: n.Style, Value: n.Value, Line: n.Line, Column: n.Column}
	for _, c := range n.Content {
		t.Content = append(t.Content, treeOf(c))
	}
	return t
}

func viewOf(n *Note) noteView {
	v := noteView{
		Memory: n.Memory("proj/note.md", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
		ID:     n.ID(), Has: n.HasFrontmatter(), Keys: n.Keys(), KeyLines: n.keyLines,
		Text: string(n.text), Body: string(n.Body), Values: map[string][]string{}, Lists: map[string]bool{},
		Tree: treeOf(n.fm),
	}
	for _, k := range v.Keys {
		v.Values[k] = append([]string{n.String(k)}, n.Strings(k)...)
		v.Lists[k] = n.IsList(k)
	}
	return v
}

// writtenNotes are notes as cortex writes them, of memories with every kind
// of property, and a few written by hand in the same shape.
func writtenNotes(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	titles := []string{"Review leak so release path must HTTP-503", "Use pgx: not lib/pq", "C# and F# #tags", "Quoted 'single' and \"double\"",
		"true", "null", "~", "3", "2026-08-11", "- starts with a dash", "[bracket]", "ends with colon:", "été à Paris", "tab\there", "x #comment"}
	for i, title := range titles {
		m := &memories.Memory{
			ID: fmt.Sprintf("01kzsdkgd868ctz7gbcc7r6%03d", i), Title: title, Type: memories.TypeFact, Project: "search",
			Tags: []string{"cache", "db"}[:i%3%2+1], Source: memories.SourceUser, Status: memories.StatusActive, Importance: 1 + i%5,
			Created: time.Date(2026, 8, 11, 22, 3, i, 0, time.UTC), Updated: time.Date(2026, 8, 12, 1, 0, i, 0, time.UTC),
			Body: "Token RetryPolicy keep ConnPool.\n\nA second paragraph: with a colon.\n",
		}
		if i%4 == 1 {
			m.Area, m.Aliases, m.Related = "backend", []string{"another name"}, []string{"01kzsdkgd868ctz7gbcc7r6000"}
			m.Provenance = memories.Provenance{SourceSession: "s-1", SourceTool: "claude-code", EventIDs: []string{"e1", "e2"}, SourceHash: "abc123"}
		}
		if i%5 == 2 {
			m.Supersedes, m.SupersedeReason = "01kzsdkgd868ctz7gbcc7r6001", "newer"
		}
		n, err := NewNote(m)
		if err != nil {
			t.Fatal(err)
		}
		data, err := n.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	for _, s := range []string{
		"---\nid: a1\ntitle: Plain\n---\nbody\n",
		"---\nid: a1\ntags:\n  - one\n  - two\nstatus: active\n---\n",
		"---\nid: a1\ntags:\nstatus: active\n---\nbody",
		"---\nid: a1\nid: a2\n---\nbody",
		"---\nid: a1\n\ntitle: gap\n---\nbody",
		"---\nid: a1 # comment\n---\n",
		"---\nid: a1\n  ---\n---\n",
		"---\nid: a1\r\n---\r\nbody",
		"---\nid:a1\n---\n",
		"---\nid: a1\ntitle: Null\n---\n",
		"---\nid: a1\ntags:\n- one\n---\n",
		"---\n---\nbody",
		"---\nid: a1\n---",
		"---\nid: a1\n<<<<<<< ours\n---\n",
		"---\nid: a1\ntitle: a: b\n---\n",
		"---\nid: a1\ntitle: ok:fine\n---\n",
		"---\nID: a1\n---\n",
		"---\nid: 0x10\nimportance: 007\ncreated: 2026-01-02\n---\n",
		"---\nid: a1\nrelated:\n  - \"[[note-one-01kzsdkg]]\"\n  - \"[[two|alias: #x]]\"\n---\nbody\n",
		"---\nid: a1\ntitle: \"Use pgx: not lib/pq\"\nrelated:\n  - \"\"\n---\n",
		"---\nid: a1\ntitle: \"a \\\" b\"\n---\n",
		"---\nid: a1\ntitle: \"a\\tb\"\n---\n",
		"---\nid: a1\ntitle: \" spaced \"\n---\n",
		"---\nid: a1\ntitle: \"x\" y\n---\n",
		"---\nid: \"a1\"\nimportance: \"3\"\n---\n",
		"---\nid: a1\nrelated:\n  - \"[[x-y]]\"\n  - \"[[z]]\"\ntitle: \"a: b # c\"\n---\n",
		"---\nid: \"null\"\ntitle: \"~\"\naliases:\n  - \"- dash\"\n  - \" padded \"\n---\n",
		"---\nid: a1\ntitle: \"a\\\"b\"\n---\n",
		"---\nid: a1\ntitle: \"a\\\\b\"\n---\n",
		"---\nid: a1\ntitle: \"a\\nb\"\n---\n",
		"---\nid: a1\ntitle: \"\"\n---\n",
		"---\nid: a1\ntitle: \"x\" \n---\n",
		"---\nid: a1\ntitle: \"x\" # c\n---\n",
		"---\nid: a1\ntitle: \"été\"\n---\n",
		"---\nid: a1\ntitle: \"a\tb\"\n---\n",
		"---\nid: a1\ntitle: \"open\n---\n",
		"---\nid: a1\ntitle: 'single'\n---\n",
		"---\nid: a1\ntitle: ar › سجل القرارات\n---\nbody\n",
		"---\nid: a1\ntitle: Расширения Markdown\nrelated:\n  - \"[[расширения-01m7141k]]\"\n---\n",
		"---\nid: a1\ntitle: 日本語のタイトル 🙂\n---\n",
		"---\nid: a1\ntitle: \"été: à Paris\"\n---\n",
		"---\nid: a1\ntitle: a\u2028b\n---\n",
		"---\nid: a1\ntitle: a\u2029b\n---\n",
		"---\nid: a1\ntitle: a\u0085b\n---\n",
		"---\nid: a1\ntitle: \"a\u0085b\"\n---\n",
		"---\nid: a1\ntitle: \ufeffa\n---\n",
		"---\nid: a1\ntitle: a\u0080b\n---\n",
		"---\nid: a1\ntitle: a\xffb\n---\n",
		"---\nid: a1\ntitle: a\u00a0\n---\n",
		"---\nid: a1\ntitle: \u00a0a\n---\n",
		"---\nid: a1\ntitle: \u3000a\n---\n",
		"---\nid: a1\nprovenance:\n  source_path: docs/en/Advanced/About Advanced.md\n  source_hash: 7d94fc1e7e155608\n---\nbody\n",
		"---\nid: a1\nprovenance:\n  event_ids:\n    - e1\n    - e2\n  source_session: s-1\n---\n",
		"---\nid: a1\nprovenance:\n  event_ids:\n  source_session: s-1\n---\n",
		"---\nid: a1\nprovenance:\n  event_ids:\n---\n",
		"---\nid: a1\nprovenance:\n  source_hash: a\n  source_hash: b\n---\n",
		"---\nid: a1\nprovenance:\n  source_hash: a\n  - b\n---\n",
		"---\nid: a1\ntags:\n  - a\n  source_hash: b\n---\n",
		"---\nid: a1\nprovenance:\n  inner:\n    deeper: x\n---\n",
		"---\nid: a1\nprovenance:\n   source_hash: a\n---\n",
		"---\nid: a1\nprovenance:\n  Source: a\n---\n",
		"---\nid: a1\ntags:\n    - a\n---\n",
		"---\nid: a1\n  source_hash: a\n---\n",
		"---\nprovenance:\n  source_path: x\n---\n",
		"---\ntitle: \"Account can keep\"\ntags: [incident]\n---\n\nbody\n",
		"---\ntitle: \"x\"\ntags: []\n---\nbody\n",
		"---\nid: a1\ntags: [deploy, infra, ci-cd, été, 日本語, C++, a/b, 3, true]\naliases: [other name]\n---\n",
		"---\nid: a1\nprovenance:\n  event_ids: [e1, e2]\n---\n",
		"---\nid: a1\ntags: [a,b]\n---\n",
		"---\nid: a1\ntags: [a,  b]\n---\n",
		"---\nid: a1\ntags: [a, b,]\n---\n",
		"---\nid: a1\ntags: [a, , b]\n---\n",
		"---\nid: a1\ntags: [ a]\n---\n",
		"---\nid: a1\ntags: [a ]\n---\n",
		"---\nid: a1\ntags: [a: b]\n---\n",
		"---\nid: a1\ntags: [a:b]\n---\n",
		"---\nid: a1\ntags: [a #b]\n---\n",
		"---\nid: a1\ntags: [C#]\n---\n",
		"---\nid: a1\ntags: [a, [b]]\n---\n",
		"---\nid: a1\ntags: [{a: b}]\n---\n",
		"---\nid: a1\ntags: [\"a\", 'b']\n---\n",
		"---\nid: a1\ntags: [null, Null, ~]\n---\n",
		"---\nid: a1\ntags: [a]]\n---\n",
		"---\nid: a1\ntags: [a] # c\n---\n",
		"---\nid: a1\ntags: [a]b\n---\n",
		"---\nid: a1\ntags: [a\n---\n",
		"---\nid: a1\ntags: [a,\n  b]\n---\n",
		"---\nid: a1\ntags: [-a, ?b]\n---\n",
		"---\nid: a1\ntags: [0?]\n---\n",
		"---\nid: a1\ntags: [a?b, a!b, a%b, a*b, a&b, a@b, a=b, a~b, a`b]\n---\n",
		"---\nid: a1\ntags: [a\u2028b]\n---\n",
		"---\nid: a1\ntags: [a\tb]\n---\n",
		"---\nid: a1\ntags: [a  b, c d]\n---\n",
		"---\nid: a1\ntags: []]\n---\n",
		"---\nid: a1\ntags: [\u00a0a, b\u00a0]\n---\n",
	} {
		out = append(out, []byte(s))
	}
	return out
}

// TestParseWritten compares ParseWritten with ParseNote on every note of the
// fixtures and on written notes: the same errors and the same readings. The
// notes cortex writes of a usual memory take the fast path.
func TestParseWritten(t *testing.T) {
	var inputs [][]byte
	for _, root := range []string{"testdata", filepath.Join("..", "fixtures")} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			data, err := os.ReadFile(p)
			inputs = append(inputs, data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(inputs) < 100 {
		t.Fatalf("setup: %d fixture notes", len(inputs))
	}
	written := writtenNotes(t)
	fast := 0
	for _, data := range append(inputs, written...) {
		want, werr := ParseNote(data)
		got, gerr := ParseWritten(data)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Errorf("%q: error %v, want %v", data, gerr, werr)
			continue
		}
		if werr != nil {
			continue
		}
		if diff := cmp.Diff(viewOf(want), viewOf(got)); diff != "" {
			t.Errorf("%q (-ParseNote +ParseWritten):\n%s", data, diff)
		}
		if _, ok := parseWritten(data); ok {
			fast++
		}
	}
	// The first written note is a usual memory, as a save writes it; the
	// second one links to others, as cortex writes related links; the
	// third was imported (its provenance nested, its title in another
	// language and script), and the fourth saved from an agent's session.
	for _, data := range [][]byte{written[0], []byte("---\nid: a1\nrelated:\n  - \"[[note-one-01kzsdkg]]\"\n  - \"[[two|alias: #x]]\"\n---\nbody\n"),
		[]byte("---\nid: 01ksqdg0wrdv1sgdadmt6jmba8\ntitle: ar › سجل القرارات\ntype: note\nproject: handbook\nsource: import\nstatus: active\nimportance: 3\n" +
			"created: 2026-05-28T13:48:31Z\nupdated: 2026-05-28T13:48:31Z\nrelated:\n  - \"[[расширения-markdown-01m7141k]]\"\n" +
			"provenance:\n  source_path: docs/ar/ar.txt\n  source_hash: 02bb205464969fb8\n---\n\nقررنا استخدام المنفذ 8080\n"),
		[]byte("---\nid: a1\ntitle: Use pgx\nprovenance:\n  event_ids:\n    - e1\n    - e2\n  source_session: s-1\n  source_tool: claude-code\n---\nbody\n"),
		// Notes written by hand, their tags on one line.
		[]byte("---\ntitle: \"Account can keep and used packet panic when ENOSPC\"\ntags: [infra, monitoring, deploy]\n---\n\nbody\n"),
		[]byte("---\ntitle: \"Account\"\ntags: []\n---\n\nbody\n"),
		[]byte("---\ntitle: été\ntags: [été, 日本語, a]\n---\n\nbody\n")} {
		if _, ok := parseWritten(data); !ok {
			t.Errorf("a usual written note is not read by the fast path:\n%s", data)
		}
	}
	if fast < 10 {
		t.Errorf("%d notes took the fast path, want the written ones' most", fast)
	}
}

func FuzzParseWritten(f *testing.F) {
	for _, data := range writtenNotes(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := parseWritten(data)
		if !ok {
			return
		}
		want, err := ParseNote(data)
		if err != nil {
			t.Fatalf("%q: ParseNote: %v, but the fast path read it", data, err)
		}
		if diff := cmp.Diff(viewOf(want), viewOf(got)); diff != "" {
			t.Errorf("%q (-ParseNote +ParseWritten):\n%s", data, diff)
		}
	})
}

// TestLoadSplitsWrittenNotes: Load reads a usual memory as cortex writes it
// without the YAML decoder, and gives the memory Read's note gives, also for
// notes in another shape.
func TestLoadSplitsWrittenNotes(t *testing.T) {
	v, err := New(t.TempDir(), "cortex")
	if err != nil {
		t.Fatal(err)
	}
	for i, data := range writtenNotes(t)[:3] {
		rel := fmt.Sprintf("memories/search/note-%d.md", i)
		if err := os.MkdirAll(filepath.Dir(v.Abs(rel)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(v.Abs(rel), data, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := v.Load(rel)
		if err != nil {
			t.Fatal(err)
		}
		n, st, err := v.Read(rel)
		if err != nil {
			t.Fatal(err)
		}
		want := n.Memory(rel, time.Unix(0, st.MTime))
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: Load (-Read +Load):\n%s", rel, d)
		}
		if i > 0 {
			continue // not in the plain shape: parsed as Read parses it
		}
		// The YAML decoder takes about 190 allocations for a usual memory;
		// splitting it about 85.
		read := testing.AllocsPerRun(20, func() { _, _, _ = v.Read(rel) })
		load := testing.AllocsPerRun(20, func() { _, _ = v.Load(rel) })
		t.Logf("%s: Read %.0f allocations, Load %.0f", rel, read, load)
		if load > read/2 {
			t.Errorf("%s: Load made %.0f allocations, Read %.0f: want at most half", rel, load, read)
		}
	}
}

// TestParseWrittenReadsLinks: a note cortex writes with links to other
// notes (its related list, "[[note]]" in double quotes) is read by the fast
// path, as the same note without links is.
func TestParseWrittenReadsLinks(t *testing.T) {
	m := &memories.Memory{
		ID: "01kzsdkgd868ctz7gbcc7r6abc", Title: "Linked note", Type: memories.TypeFact, Project: "search",
		Tags: []string{"cache"}, Source: memories.SourceUser, Status: memories.StatusActive, Importance: 3,
		Created: time.Date(2026, 8, 11, 22, 3, 0, 0, time.UTC), Updated: time.Date(2026, 8, 12, 1, 0, 0, 0, time.UTC),
		Related: []string{"pytest-must-error-token-failure-01m70vsf", "vite-server-switch-01kw27jh"},
		Body:    "Body.\n",
	}
	n, err := NewNote(m)
	if err != nil {
		t.Fatal(err)
	}
	data, err := n.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\"[[") {
		t.Fatalf("setup: the note has no quoted link:\n%s", data)
	}
	got, ok := parseWritten(data)
	if !ok {
		t.Fatalf("a written note with links is not read by the fast path:\n%s", data)
	}
	want, err := ParseNote(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(viewOf(want), viewOf(got)); diff != "" {
		t.Errorf("(-ParseNote +ParseWritten):\n%s", diff)
	}
}
