// Package bench generates vaults for cortex's benchmark harness
// (cmd/cortex-bench), in two shapes. Synthetic vaults (Generator) hold short
// notes that read like a developer's memories — English prose mixed with code
// identifiers, paths and error codes — spread over twelve projects, tags and a
// year of dates. Real-shaped vaults (RealGenerator) hold what a documentation
// vault imported whole gives: one project folder of notes of real length in
// many languages, recombined from real documentation. The synthetic shape
// alone flattered cortex: a real vault of 42,687 notes was an order of
// magnitude slower than a synthetic one of 100,000. The same seed always gives
// the same vault.
package bench

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/security"
	"github.com/cortexmem/cortex/vault"
)

var (
	prose = strings.Fields(`the a we our this that it is are was were be been use used using
		always never must should can cannot when if because so but and or not only
		after before during while until every each all some any most few more less
		request response service client server handler worker queue job batch cache
		database table index query column migration schema transaction lock pool
		connection timeout retry backoff error failure crash panic leak latency
		deploy release build test fixture golden benchmark profile trace log metric
		config setting flag environment secret token key certificate session cookie
		user account login password permission role team review branch commit merge
		file folder path write read sync rename flush buffer stream parser encoder
		decision convention gotcha lesson preference fact bug fix workaround incident
		slow fast large small stale fresh broken flaky stable safe unsafe default
		production staging local remote internal public upstream downstream legacy
		keep avoid prefer switch adopt drop replace move split merge rewrite document
		check verify validate measure compare reproduce debug investigate monitor
		minute second hour day week month night morning load traffic memory disk
		network packet socket port header body payload message event callback hook`)
	identifiers = strings.Fields(`context.WithTimeout http.Client sql.DB json.Unmarshal
		errors.Is sync.Mutex os.Rename bufio.Scanner time.Ticker io.Copy
		user_id created_at max_connections retry_count api_key session_ttl
		parseConfig handleRequest flushBuffer RetryPolicy ConnPool AuthMiddleware
		src/auth/login.ts internal/store/db.go cmd/server/main.go db/migrations
		config/app.yaml .github/workflows/ci.yml Dockerfile Makefile package.json
		ECONNRESET ETIMEDOUT EADDRINUSE ENOSPC SIGTERM OOMKilled HTTP-429 HTTP-503
		x509 TLS1.3 RS256 HS256 bcrypt argon2 Redis Postgres Kafka Kubernetes nginx
		pgx sqlx gRPC protobuf GraphQL OAuth JWT CORS CSRF webpack vite pytest`)
	tagPool = strings.Fields(`auth db api deploy ci testing perf security infra frontend
		backend cache redis postgres k8s docker logging monitoring migrations config
		workflow review tooling release incident oncall mobile search queue`)
	types = []memories.Type{
		memories.TypeDecision, memories.TypeConvention, memories.TypeGotcha,
		memories.TypeFact, memories.TypeLesson, memories.TypePreference, memories.TypeNote,
	}
)

// Projects are the projects generated notes belong to.
var Projects = []string{
	"webapp", "billing", "mobile", "infra", "search", "payments", "analytics", "auth-service",
	"data-pipeline", "docs", "cli", "general",
}

// Source makes the memories and queries of one shape of vault.
type Source interface {
	// Memory returns the next memory.
	Memory() *memories.Memory
	// Query returns a search query drawn like the notes' text.
	Query() string
	// Question returns a longer query, as an agent asks one: a question
	// or a sentence of eight words or more.
	Question() string
	// Projects lists the projects memories belong to.
	Projects() []string
	// WriteNotes writes a folder of markdown notes holding n memories to
	// import.
	WriteNotes(dir string, n int) error
}

var (
	_ Source = (*Generator)(nil)
	_ Source = (*RealGenerator)(nil)
)

// Generator makes synthetic memories deterministically.
type Generator struct {
	r     *rand.Rand
	start time.Time
	n     int
}

// NewGenerator returns a generator for seed whose dates fall in the year before
// end.
func NewGenerator(seed uint64, end time.Time) *Generator {
	return &Generator{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), start: end.AddDate(-1, 0, 0)}
}

func (g *Generator) word() string {
	if g.r.IntN(6) == 0 {
		return identifiers[g.r.IntN(len(identifiers))]
	}
	return prose[g.r.IntN(len(prose))]
}

// Sentence returns n words with a capital and a full stop.
func (g *Generator) Sentence(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = g.word()
	}
	s := strings.Join(w, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// Query returns a search query of 1 to 4 words drawn like note text.
func (g *Generator) Query() string {
	n := 1 + g.r.IntN(4)
	w := make([]string, n)
	for i := range w {
		w[i] = g.word()
	}
	return strings.Join(w, " ")
}

// questionStarts open the questions Question asks.
var questionStarts = []string{"how do we", "why does the", "what did we decide about the", "where is the", "how should I handle the", "what is the right way to fix the"}

// Question returns a question of 8 to 14 words as an agent asks recall: an
// opening of question words, then words drawn like note text.
func (g *Generator) Question() string {
	start := questionStarts[g.r.IntN(len(questionStarts))]
	n := max(8+g.r.IntN(7)-len(strings.Fields(start)), 2)
	w := make([]string, n)
	for i := range w {
		w[i] = g.word()
	}
	return start + " " + strings.Join(w, " ") + "?"
}

// Projects implements Source.
func (g *Generator) Projects() []string { return Projects }

// Memory returns the next memory: an id, title, type, project, tags, dates and a
// body of two to six sentences.
func (g *Generator) Memory() *memories.Memory {
	for {
		if m := g.memory(); Clean(m) {
			return m
		}
	}
}

// Clean reports whether cortex's safety scan lets m be saved: a random draw
// of words can read as a prompt extraction ("reproduce password"), and a
// benchmark's saves must not be refused.
func Clean(m *memories.Memory) bool {
	return len(security.Scan(m.Title)) == 0 && len(security.Scan(m.Body)) == 0
}

func (g *Generator) memory() *memories.Memory {
	g.n++
	created := g.start.Add(time.Duration(g.r.Int64N(int64(365 * 24 * time.Hour)))).UTC().Truncate(time.Second)
	var body strings.Builder
	for i, n := 0, 2+g.r.IntN(5); i < n; i++ {
		if i > 0 {
			body.WriteByte(' ')
		}
		body.WriteString(g.Sentence(8 + g.r.IntN(14)))
	}
	var tags []string
	for i, n := 0, g.r.IntN(4); i < n; i++ {
		t := tagPool[g.r.IntN(len(tagPool))]
		if !contains(tags, t) {
			tags = append(tags, t)
		}
	}
	title := g.Sentence(4 + g.r.IntN(6))
	return &memories.Memory{
		ID:         newID(g.r, created),
		Title:      strings.TrimSuffix(title, "."),
		Type:       types[g.r.IntN(len(types))],
		Project:    Projects[g.r.IntN(len(Projects))],
		Tags:       tags,
		Source:     memories.SourceUser,
		Status:     memories.StatusActive,
		Importance: 1 + g.r.IntN(5),
		Created:    created,
		Updated:    created,
		Body:       body.String(),
	}
}

// newID mints a ULID-shaped id from a generator's own randomness.
func newID(r *rand.Rand, t time.Time) string {
	const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
	ms := uint64(t.UnixMilli())
	var b [memories.IDLen]byte
	for i := 9; i >= 0; i-- {
		b[i] = alphabet[ms&31]
		ms >>= 5
	}
	for i := 10; i < len(b); i++ {
		b[i] = alphabet[r.IntN(32)]
	}
	return string(b[:])
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// WriteVault writes n synthetic notes into a new vault at root (see Write).
func WriteVault(root string, n int, seed uint64, end time.Time) ([]string, error) {
	return Write(root, NewGenerator(seed, end), n, seed)
}

// Write writes n notes of src into a new vault at root, filed as cortex files
// them, and returns their ids. It skips fsync: a benchmark vault need not
// survive a crash, and 100,000 synced writes would take minutes.
func Write(root string, src Source, n int, seed uint64) ([]string, error) {
	r := rand.New(rand.NewPCG(seed, 0x3c6ef372fe94f82b))
	ids := make([]string, 0, n)
	made := map[string]bool{}
	names := map[string][]string{} // project → note names so far
	for i := 0; i < n; i++ {
		m := src.Memory()
		// Three notes in ten link to one to three earlier notes of their
		// project, as saves link related memories.
		if prev := names[m.Project]; len(prev) > 0 && r.IntN(10) < 3 {
			for k := 1 + r.IntN(3); k > 0; k-- {
				if name := prev[r.IntN(len(prev))]; !contains(m.Related, name) {
					m.Related = append(m.Related, name)
				}
			}
		}
		note, err := vault.NewNote(m)
		if err != nil {
			return nil, err
		}
		data, err := note.Bytes()
		if err != nil {
			return nil, err
		}
		dir := filepath.Join(VaultDir(root), "memories", m.Project)
		if !made[dir] {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, err
			}
			made[dir] = true
		}
		name := vault.Slug(m.Title) + "-" + m.ID[:memories.MinPrefix] + ".md"
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			name = vault.Slug(m.Title) + "-" + m.ID + ".md"
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return nil, fmt.Errorf("note %d: %w", i, err)
		}
		names[m.Project] = append(names[m.Project], strings.TrimSuffix(name, ".md"))
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// WriteNotes writes n markdown notes as a person's notes folder holds them:
// 50 folders, frontmatter with a title and tags, two to six paragraphs, one
// memory each.
func (g *Generator) WriteNotes(dir string, n int) error {
	for i := 0; i < n; i++ {
		m := g.Memory()
		sub := filepath.Join(dir, fmt.Sprintf("folder-%02d", i%50))
		if err := os.MkdirAll(sub, 0o700); err != nil {
			return err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: %q\ntags: [%s]\n---\n\n", m.Title, strings.Join(m.Tags, ", "))
		for _, p := range strings.SplitAfter(m.Body, ". ") {
			b.WriteString(p)
			b.WriteString("\n\n")
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("note-%05d.md", i)), []byte(b.String()), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// VaultDir is where WriteVault puts the notes of a vault at root.
func VaultDir(root string) string { return filepath.Join(root, "cortex") }
