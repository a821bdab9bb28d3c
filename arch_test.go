package cortex

// The arrows between cortex's packages, checked rather than only described.
// Each rule below is a promise a package's doc comment (or SPEC §1 and
// STYLE.md's habits) makes about what it imports; TestArrows runs
// `go list -deps` over the module and fails on any import that breaks one.
// A new package is free until a rule names it; a rule that names no package
// fails too, so renaming a package cannot switch its rule off unseen.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// module is the module path; rules name its packages relative to it.
const module = "github.com/cortexmem/cortex"

// rule is one promise about imports. Patterns name packages: "memories" is
// that package of the module, "adapters/*" its children, "cmd/..." it and
// everything below, "..." every package of the module; a pattern with a dot
// in its first element ("github.com/spf13/cobra/...") names packages outside
// the module. The standard library is always allowed.
type rule struct {
	name string
	// from are the packages the rule binds, except those in except.
	from, except []string
	// only, when not nil, lists everything besides the standard library
	// that the packages may import directly.
	only []string
	// never lists what the packages must not import directly.
	never []string
	// neverDeps lists what the packages must not depend on at all,
	// directly or through others.
	neverDeps []string
}

// transports are what the domain and the transcript half never reach:
// the commands, the MCP server and the frameworks under them.
var transports = []string{"cmd/...", "mcp", "github.com/spf13/cobra/...", "github.com/modelcontextprotocol/go-sdk/..."}

// decoders are the libraries that read tools' storage formats: the pure-Go
// SQLite driver and the zstd library. Only the transcript packages that
// wrap them import them.
var decoders = []string{"modernc.org/sqlite/...", "github.com/klauspost/compress/zstd"}

var rules = []rule{
	{name: "only index imports Bleve (index/doc.go)", from: []string{"..."}, except: []string{"index"},
		never: []string{"github.com/blevesearch/..."}},
	{name: "memories is the domain: no I/O packages of its own, no store, no index (memories/doc.go)", from: []string{"memories"},
		only: []string{"dedup", "security", "github.com/oklog/ulid/v2", "github.com/sahilm/fuzzy", "golang.org/x/sync/errgroup"}},
	{name: "dedup is pure functions of text (dedup/doc.go)", from: []string{"dedup"}, only: []string{}},
	{name: "security is a table of rules over text (security/doc.go)", from: []string{"security"}, only: []string{}},
	{name: "transcript is the thin waist: the event model and its machinery, nothing of cortex (transcript/doc.go)",
		from: []string{"transcript/..."}, except: []string{"transcript/transcripttest", "transcript/otlp"}, only: append([]string{"transcript/..."}, decoders...)},
	// The issue asks for the official OTLP protobuf definitions as a library:
	// decoding an export request is all transcript/otlp adds to the waist.
	{name: "transcript/otlp decodes OTLP with the official definitions and nothing of cortex (transcript/otlp/otlp.go)",
		from: []string{"transcript/otlp"}, only: []string{"transcript/...", "go.opentelemetry.io/proto/otlp/...", "google.golang.org/protobuf/..."}},
	// Some tools keep their history in a SQLite database (Cursor, Zed,
	// OpenCode) or compress it (Zed's zstd threads): reading them needs a
	// driver or a decoder no adapter should carry on its own. Each library
	// is wrapped once in a transcript package named for what it provides,
	// which sets its limits (copy-on-read, bounded output) for every
	// adapter; adapters import those packages, never the libraries.
	{name: "only transcript/sqlitedb and transcript/zstd import the SQLite driver and the zstd library (transcript/sqlitedb/doc.go, transcript/zstd/zstd.go)",
		from: []string{"..."}, except: []string{"transcript/sqlitedb/...", "transcript/zstd"}, never: decoders},
	// The readers under transcript (JSON lines, whole JSON documents,
	// SEARCH/REPLACE blocks) are written once for every adapter that reads
	// such files, so that no adapter needs another's code.
	{name: "an adapter imports only transcript, the readers under it and the transcript packages wrapping a driver or decoder, never another adapter nor the registry (adapters/adapters.go)",
		from: []string{"adapters/*"}, only: []string{"transcript", "transcript/rawjson", "transcript/ndjson", "transcript/jsondoc", "transcript/searchreplace", "transcript/sqlitedb", "transcript/zstd"}},
	{name: "the registry holds the adapters (adapters/adapters.go)", from: []string{"adapters"}, only: []string{"adapters/*", "transcript"}},
	{name: "the domain, the pipeline and the adapters never reach a transport (STYLE.md habit 7)",
		from: []string{"memories", "dedup", "security", "transcript/...", "pipeline", "adapters/...", "transcripts"}, neverDeps: transports},
	{name: "briefing reads through its own ports: memories alone (briefing/doc.go)", from: []string{"briefing"},
		only: []string{"memories"}},
	{name: "reflection rolls up the event stream and the vault, no transport (reflection/reflect.go)", from: []string{"reflection"},
		only: []string{"memories", "transcript", "scribe", "pipeline"}},
	{name: "watch knows folders, locks and jobs, not what the jobs do (watch/watch.go)", from: []string{"watch"},
		only: []string{"filelock", "atomicfile", "github.com/fsnotify/fsnotify"}},
	{name: "view shows the services' results and imports nothing else of cortex (view/doc.go)", from: []string{"view"},
		only: []string{"memories", "briefing", "reflection"}},
	{name: "nothing imports a command (STYLE.md habit 5)", from: []string{"..."}, never: []string{"cmd/..."}},
	{name: "config owns paths and settings and knows none of their users (config/config.go)", from: []string{"config"},
		only: []string{"memories", "pipeline", "go.yaml.in/yaml/v3"}},
	{name: "atomicfile is a leaf (atomicfile/atomicfile.go)", from: []string{"atomicfile"}, only: []string{"golang.org/x/sys/..."}},
	{name: "filelock takes only memories.ErrBusy from cortex (filelock/filelock.go)", from: []string{"filelock"},
		only: []string{"atomicfile", "memories", "github.com/gofrs/flock", "golang.org/x/sys/..."}},
	{name: "the evaluation and the benchmark open cortex through wiring, as the CLI does (wiring/wiring.go)",
		from: []string{"eval", "cmd/cortex-bench"}, never: []string{"store", "vault", "access", "importer", "index"}},
	{name: "only the composition root and the commands know wiring (wiring/wiring.go)", from: []string{"..."},
		except: []string{"wiring", "cmd/...", "eval"}, neverDeps: []string{"wiring"}},
}

// pkg is a package as go list reports it.
type pkg struct {
	ImportPath string
	Standard   bool
	Imports    []string
	Deps       []string
	Dir        string
	GoFiles    []string
}

// graph is the packages go list reports, by import path.
type graph map[string]*pkg

// violation is one import that breaks a rule.
type violation struct {
	Rule, From, To string
	Via            string // for a dependency, the direct import that leads to it
}

func (v violation) String() string {
	if v.Via != "" {
		return fmt.Sprintf("%s → %s (through %s): %s", v.From, v.To, v.Via, v.Rule)
	}
	return fmt.Sprintf("%s → %s: %s", v.From, v.To, v.Rule)
}

// matches reports whether the import path p is named by pattern.
func matches(pattern, p string) bool {
	full := pattern
	if first, _, _ := strings.Cut(pattern, "/"); !strings.Contains(first, ".") && pattern != "..." {
		full = module + "/" + pattern
	}
	switch {
	case pattern == "...":
		return p == module || strings.HasPrefix(p, module+"/")
	case strings.HasSuffix(full, "/..."):
		base := strings.TrimSuffix(full, "/...")
		return p == base || strings.HasPrefix(p, base+"/")
	case strings.HasSuffix(full, "/*"):
		base := strings.TrimSuffix(full, "*")
		return strings.HasPrefix(p, base) && !strings.Contains(p[len(base):], "/")
	}
	return p == full
}

func matchesAny(patterns []string, p string) bool {
	return slices.ContainsFunc(patterns, func(pat string) bool { return matches(pat, p) })
}

// standard reports whether p is in the standard library: what go list says,
// else (a package the graph does not hold) a first element with no dot.
func (g graph) standard(p string) bool {
	if q, ok := g[p]; ok {
		return q.Standard
	}
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

// via is the direct import of from that leads to dep.
func (g graph) via(from *pkg, dep string) string {
	for _, imp := range from.Imports {
		if imp == dep {
			return ""
		}
		if q, ok := g[imp]; ok && slices.Contains(q.Deps, dep) {
			return imp
		}
	}
	return "?"
}

// check applies rules to the module's packages in g and returns the
// violations, sorted, and the rules that bind no package.
func check(g graph, rules []rule) (vs []violation, idle []string) {
	paths := make([]string, 0, len(g))
	for p := range g {
		if matches("...", p) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, r := range rules {
		bound := false
		for _, p := range paths {
			if !matchesAny(r.from, p) || matchesAny(r.except, p) {
				continue
			}
			bound = true
			q := g[p]
			for _, imp := range q.Imports {
				switch {
				case matchesAny(r.never, imp):
					vs = append(vs, violation{Rule: r.name, From: p, To: imp})
				case r.only != nil && !g.standard(imp) && !matchesAny(r.only, imp):
					vs = append(vs, violation{Rule: r.name, From: p, To: imp})
				}
			}
			for _, dep := range q.Deps {
				if matchesAny(r.neverDeps, dep) {
					vs = append(vs, violation{Rule: r.name, From: p, To: dep, Via: g.via(q, dep)})
				}
			}
		}
		if !bound {
			idle = append(idle, r.name)
		}
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].String() < vs[j].String() })
	return vs, idle
}

// load runs go list -deps over the module.
func load(t *testing.T) graph {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the packages: %v", err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(goBin, "list", "-deps", "-json=ImportPath,Standard,Imports,Deps,Dir,GoFiles", "./...")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	g := graph{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		g[p.ImportPath] = &p
	}
	if _, ok := g[module+"/memories"]; !ok {
		t.Fatalf("go list reported no %s/memories: run the test from the module's root", module)
	}
	// go test caches a result by the files the test itself reads, and go
	// list reads the sources in another process: read them here too, so
	// that a changed import runs the test again.
	for p, q := range g {
		if !matches("...", p) {
			continue
		}
		if _, err := os.ReadDir(q.Dir); err != nil {
			t.Fatal(err)
		}
		for _, f := range q.GoFiles {
			if _, err := os.ReadFile(filepath.Join(q.Dir, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return g
}

// TestArrows: every package imports only what its doc promises.
func TestArrows(t *testing.T) {
	vs, idle := check(load(t), rules)
	for _, v := range vs {
		t.Errorf("forbidden import: %s", v)
	}
	for _, name := range idle {
		t.Errorf("the rule %q names no package (renamed?)", name)
	}
}

// synthetic is a small module that keeps every rule, as go list would
// report it.
func synthetic() graph {
	g := graph{}
	add := func(path string, std bool, imports ...string) {
		g[path] = &pkg{ImportPath: path, Standard: std, Imports: imports}
	}
	m := func(p string) string { return module + "/" + p }
	for _, std := range []string{"fmt", "os", "strings", "context", "testing"} {
		add(std, true)
	}
	add("github.com/blevesearch/bleve/v2", false, "fmt")
	add("github.com/spf13/cobra", false, "fmt")
	add("github.com/modelcontextprotocol/go-sdk/mcp", false, "context")
	add("github.com/oklog/ulid/v2", false)
	add("github.com/gofrs/flock", false, "os")
	add("go.yaml.in/yaml/v3", false)
	add(m("dedup"), false, "strings")
	add(m("security"), false, "strings")
	add(m("memories"), false, "context", m("dedup"), m("security"), "github.com/oklog/ulid/v2")
	add(m("transcript/rawjson"), false, "strings")
	add(m("transcript"), false, "fmt", m("transcript/rawjson"))
	add(m("transcript/transcripttest"), false, "testing", m("transcript"))
	add("go.opentelemetry.io/proto/otlp/logs/v1", false)
	add(m("transcript/otlp"), false, m("transcript"), "go.opentelemetry.io/proto/otlp/logs/v1")
	add("modernc.org/sqlite", false, "context")
	add("github.com/klauspost/compress/zstd", false)
	add(m("transcript/sqlitedb"), false, m("transcript/rawjson"), "modernc.org/sqlite")
	add(m("transcript/sqlitedb/sqlitedbtest"), false, "testing", m("transcript/zstd"), "modernc.org/sqlite")
	add(m("transcript/zstd"), false, "github.com/klauspost/compress/zstd")
	add(m("adapters/zed"), false, m("transcript"), m("transcript/sqlitedb"), m("transcript/zstd"))
	add(m("adapters/claudecode"), false, m("transcript"), m("transcript/rawjson"))
	add(m("adapters/codex"), false, m("transcript"))
	add(m("adapters"), false, m("adapters/claudecode"), m("adapters/codex"), m("transcript"))
	add(m("pipeline"), false, m("transcript"), m("security"))
	add(m("config"), false, m("memories"), m("pipeline"), "go.yaml.in/yaml/v3")
	add(m("atomicfile"), false, "os")
	add(m("filelock"), false, m("atomicfile"), m("memories"), "github.com/gofrs/flock")
	add(m("vault"), false, m("memories"), m("atomicfile"))
	add(m("index"), false, m("memories"), "github.com/blevesearch/bleve/v2")
	add(m("store"), false, m("index"), m("vault"), m("config"), m("filelock"))
	add(m("access"), false, m("config"), m("filelock"))
	add(m("importer"), false, m("memories"))
	add("github.com/fsnotify/fsnotify", false, "os")
	add(m("briefing"), false, "context", m("memories"))
	add(m("reflection"), false, m("memories"), m("transcript"), m("pipeline"))
	add(m("normalize"), false, m("memories"))
	add(m("watch"), false, m("filelock"), "github.com/fsnotify/fsnotify")
	add(m("view"), false, m("memories"), m("briefing"), m("reflection"))
	add(m("wiring"), false, m("store"), m("access"), m("importer"), m("config"), m("briefing"), m("reflection"))
	add(m("eval"), false, m("wiring"), m("memories"))
	add(m("mcp"), false, m("memories"), "github.com/modelcontextprotocol/go-sdk/mcp")
	add(m("cmd/cortex"), false, m("wiring"), m("mcp"), m("store"), "github.com/spf13/cobra")
	add(m("cmd/cortex-bench"), false, m("wiring"), m("mcp"), m("config"))
	g.computeDeps()
	return g
}

// computeDeps fills every package's Deps from the imports, as go list does.
func (g graph) computeDeps() {
	var deps func(p string, seen map[string]bool)
	deps = func(p string, seen map[string]bool) {
		for _, imp := range g[p].Imports {
			if !seen[imp] {
				seen[imp] = true
				deps(imp, seen)
			}
		}
	}
	for p, q := range g {
		seen := map[string]bool{}
		deps(p, seen)
		q.Deps = q.Deps[:0]
		for d := range seen {
			q.Deps = append(q.Deps, d)
		}
		sort.Strings(q.Deps)
	}
}

// TestArrowsCatchViolations is the test of the test: a module that keeps
// every rule passes, and each deliberate violation added to it is reported,
// as exactly that violation.
func TestArrowsCatchViolations(t *testing.T) {
	m := func(p string) string { return module + "/" + p }
	if vs, idle := check(synthetic(), rules); len(vs) != 0 || len(idle) != 0 {
		t.Fatalf("the synthetic module breaks rules: %v, idle rules %q", vs, idle)
	}
	tests := []struct {
		name     string
		from, to string // the import added
		want     []string
	}{
		{"memories imports Bleve", m("memories"), "github.com/blevesearch/bleve/v2", []string{
			m("memories") + " → github.com/blevesearch/bleve/v2: memories is the domain: no I/O packages of its own, no store, no index (memories/doc.go)",
			m("memories") + " → github.com/blevesearch/bleve/v2: only index imports Bleve (index/doc.go)",
		}},
		{"store imports Bleve itself", m("store"), "github.com/blevesearch/bleve/v2", []string{
			m("store") + " → github.com/blevesearch/bleve/v2: only index imports Bleve (index/doc.go)",
		}},
		{"an adapter imports another", m("adapters/codex"), m("adapters/claudecode"), []string{
			m("adapters/codex") + " → " + m("adapters/claudecode") + ": an adapter imports only transcript, the readers under it and the transcript packages wrapping a driver or decoder, never another adapter nor the registry (adapters/adapters.go)",
		}},
		{"an adapter imports the SQLite driver itself", m("adapters/zed"), "modernc.org/sqlite", []string{
			m("adapters/zed") + " → modernc.org/sqlite: an adapter imports only transcript, the readers under it and the transcript packages wrapping a driver or decoder, never another adapter nor the registry (adapters/adapters.go)",
			m("adapters/zed") + " → modernc.org/sqlite: only transcript/sqlitedb and transcript/zstd import the SQLite driver and the zstd library (transcript/sqlitedb/doc.go, transcript/zstd/zstd.go)",
		}},
		{"the event model imports the zstd library", m("transcript"), "github.com/klauspost/compress/zstd", []string{
			m("transcript") + " → github.com/klauspost/compress/zstd: only transcript/sqlitedb and transcript/zstd import the SQLite driver and the zstd library (transcript/sqlitedb/doc.go, transcript/zstd/zstd.go)",
		}},
		{"the SQLite reader imports cortex", m("transcript/sqlitedb"), m("memories"), []string{
			m("transcript/sqlitedb") + " → " + m("memories") + ": transcript is the thin waist: the event model and its machinery, nothing of cortex (transcript/doc.go)",
		}},
		{"transcript imports cortex", m("transcript"), m("memories"), []string{
			m("transcript") + " → " + m("memories") + ": transcript is the thin waist: the event model and its machinery, nothing of cortex (transcript/doc.go)",
		}},
		{"the OTLP decoder imports cortex", m("transcript/otlp"), m("memories"), []string{
			m("transcript/otlp") + " → " + m("memories") + ": transcript/otlp decodes OTLP with the official definitions and nothing of cortex (transcript/otlp/otlp.go)",
		}},
		{"pipeline reaches the MCP server through security", m("security"), m("mcp"), []string{
			m("memories") + " → " + m("mcp") + " (through " + m("security") + "): the domain, the pipeline and the adapters never reach a transport (STYLE.md habit 7)",
			m("memories") + " → github.com/modelcontextprotocol/go-sdk/mcp (through " + m("security") + "): the domain, the pipeline and the adapters never reach a transport (STYLE.md habit 7)",
			m("pipeline") + " → " + m("mcp") + " (through " + m("security") + "): the domain, the pipeline and the adapters never reach a transport (STYLE.md habit 7)",
			m("pipeline") + " → github.com/modelcontextprotocol/go-sdk/mcp (through " + m("security") + "): the domain, the pipeline and the adapters never reach a transport (STYLE.md habit 7)",
			m("security") + " → " + m("mcp") + ": security is a table of rules over text (security/doc.go)",
			m("security") + " → " + m("mcp") + ": the domain, the pipeline and the adapters never reach a transport (STYLE.md habit 7)",
			m("security") + " → github.com/modelcontextprotocol/go-sdk/mcp (through " + m("mcp") + "): the domain, the pipeline and the adapters never reach a transport (STYLE.md habit 7)",
		}},
		{"a package imports a command", m("importer"), m("cmd/cortex"), []string{
			m("importer") + " → " + m("cmd/cortex") + ": nothing imports a command (STYLE.md habit 5)",
			m("importer") + " → " + m("wiring") + " (through " + m("cmd/cortex") + "): only the composition root and the commands know wiring (wiring/wiring.go)",
		}},
		{"config imports its user", m("config"), m("store"), []string{
			m("config") + " → " + m("store") + ": config owns paths and settings and knows none of their users (config/config.go)",
		}},
		{"the benchmark opens the store itself", m("cmd/cortex-bench"), m("store"), []string{
			m("cmd/cortex-bench") + " → " + m("store") + ": the evaluation and the benchmark open cortex through wiring, as the CLI does (wiring/wiring.go)",
		}},
		{"briefing opens the store itself", m("briefing"), m("store"), []string{
			m("briefing") + " → " + m("store") + ": briefing reads through its own ports: memories alone (briefing/doc.go)",
		}},
		{"the watcher runs normalize itself", m("watch"), m("normalize"), []string{
			m("watch") + " → " + m("normalize") + ": watch knows folders, locks and jobs, not what the jobs do (watch/watch.go)",
		}},
		{"atomicfile imports the vault", m("atomicfile"), m("vault"), []string{
			m("atomicfile") + " → " + m("vault") + ": atomicfile is a leaf (atomicfile/atomicfile.go)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := synthetic()
			g[tt.from].Imports = append(g[tt.from].Imports, tt.to)
			g.computeDeps()
			vs, _ := check(g, rules)
			got := make([]string, len(vs))
			for i, v := range vs {
				got[i] = v.String()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRuleIdle: a rule that names no package is reported.
func TestRuleIdle(t *testing.T) {
	g := synthetic()
	delete(g, module+"/atomicfile")
	_, idle := check(g, rules)
	if diff := cmp.Diff([]string{"atomicfile is a leaf (atomicfile/atomicfile.go)"}, idle); diff != "" {
		t.Errorf("idle rules (-want +got):\n%s", diff)
	}
}

// TestPatterns pins what a pattern names.
func TestPatterns(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"memories", module + "/memories", true},
		{"memories", module + "/memories/memoriestest", false},
		{"adapters/*", module + "/adapters/codex", true},
		{"adapters/*", module + "/adapters", false},
		{"adapters/*", module + "/adapters/codex/internal", false},
		{"cmd/...", module + "/cmd", true},
		{"cmd/...", module + "/cmd/cortex-bench", true},
		{"cmd/...", module + "/cmdx", false},
		{"...", module, true},
		{"...", module + "/vault", true},
		{"...", "github.com/blevesearch/bleve/v2", false},
		{"github.com/blevesearch/...", "github.com/blevesearch/bleve/v2/search/query", true},
		{"github.com/blevesearch/...", "github.com/blevesearchx/y", false},
		{"go.yaml.in/yaml/v3", "go.yaml.in/yaml/v3", true},
	}
	for _, tt := range tests {
		if got := matches(tt.pattern, tt.path); got != tt.want {
			t.Errorf("matches(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// TestReadmeLayout: the README's Layout list names every package of the
// module, so that a new package is described where a reader looks for it.
func TestReadmeLayout(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "Layout, one package per job")
	end := strings.Index(text, "`third_party/bleve` is Bleve")
	if start < 0 || end < start {
		t.Fatal("README.md has no Layout list (from \"Layout, one package per job\" to \"`third_party/bleve` is Bleve\")")
	}
	layout := text[start:end]
	var missing []string
	for p := range load(t) {
		if p == module || !matches("...", p) {
			continue
		}
		rel := strings.TrimPrefix(p, module+"/")
		if !strings.Contains(layout, "`"+rel+"`") {
			missing = append(missing, rel)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("README.md's Layout list does not name these packages: %s", strings.Join(missing, ", "))
	}
}
