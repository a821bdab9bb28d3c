package dedup

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// pair is a new text and an old one, and what the score of the new one
// against the old one must say.
type pair struct {
	name       string
	newer, old string
}

// The calibration: pairs a person would call duplicates (all the new text says
// is in the old one), related, and unrelated. Run with -v to see every score.
var (
	duplicatePairs = []pair{
		{"reordered clause", "Always use RS256 for JWT signing in production.", "In production, always use RS256 for JWT signing"},
		{"db and database", "The staging database password is rotated every 30 days by the ops team", "The staging DB password is rotated every 30 days by the ops team."},
		{"reworded gotcha",
			"Gotcha: the Bleve index must be closed before the process exits, otherwise the lock file stays behind.",
			"The Bleve index must be closed before the process exits — otherwise the lock file stays behind!"},
		{"reordered sentences",
			"Run migrations with goose. Never edit an applied migration; add a new one instead.",
			"Never edit an applied migration; add a new one instead. Run migrations with goose."},
		{"note prefix", "Note: the API rate limit is 100 requests per minute per token.", "The API rate limit is 100 requests per minute per token."},
		{"one sentence of two",
			"Redis is used as the session store; sessions expire after 24 hours.",
			"Redis is used as the session store; sessions expire after 24 hours. We chose it over Memcached for persistence."},
		{"config and configuration", "The config lives in ~/.cortex/config.yaml; the vault key sets the vault folder.", "Configuration lives in ~/.cortex/config.yaml, and the vault key sets the vault folder"},
		{"auth and authentication", "Auth tokens are cached in memory for 5 minutes", "Authentication tokens are cached in memory for 5 minutes."},
		{"env and environment", "Never commit .env files; env vars hold the secrets", "Never commit .env files: environment variables hold the secrets."},
		{"repo and repository", "The repo uses conventional commits for every PR", "This repository uses conventional commits for every PR."},
		{"k8s and kubernetes", "Deploy to k8s with helm, never with kubectl apply", "Deploy to Kubernetes with Helm - never with kubectl apply."},
		{"tense", "Decision: cache API responses in Redis for 10 minutes", "We decided to cache API responses in Redis for 10 minutes"},
		{"list and sentence", "- tests run with `go test ./...`\n- lint with staticcheck", "Tests run with go test ./... and lint with staticcheck."},
		{"shouting", "USE PNPM, NOT NPM, IN THIS REPO!", "use pnpm not npm in this repo"},
		{"passive", "The CI pipeline caches Go modules and the build cache between runs", "Between runs, the CI pipeline caches Go modules and the build cache."},
		{"markdown heading", "## Logging\nUse zap for structured logging in every service.", "Use zap for structured logging in every service"},
		{"accents", "Le cache de la base de données expire après une heure.", "Note : le cache de la base de données expire après une heure"},
		{"chinese", "数据库连接池的大小是二十。", "注意：数据库连接池的大小是二十"},
		{"japanese", "本番環境ではデータベースのバックアップを毎日取る。", "注意：本番環境ではデータベースのバックアップを毎日取ります"},
		{"cyrillic reordered", "Используйте Postgres для хранения сессий. Кэш живёт в Redis.", "Кэш живёт в Redis. Используйте Postgres для хранения сессий."},
		{"emoji", "🚀 Deploys go out on Tuesdays only", "Deploys go out on Tuesdays only 🚀🚀"},
		{"one word", "Redis", "redis!"},
		{"two words", "Use Redis", "use redis."},
		{"short in long", "Use Redis", "Use Redis for the session store and the rate limiter"},
		{"one word said in a sentence", "Redis", "Redis caches sessions"},
		{"long with a sentence more", longText(1, 10000), longText(1, 10000) + " Also: the cache is warmed on start."},
		{"long with a paragraph changed", longText(2, 10000), strings.Replace(longText(2, 10000), "Service", "Daemon", 3)},
		{"sentence of a long text", "Service api7 handles billing requests and writes invoices to bucket eu-west-17.", longText(3, 10000)},
		{"implied", "Secrets are stored in Vault under kv/prod", "Secrets in Vault are rotated monthly; writing to kv/prod needs an admin token"},
		// The paraphrases the SPEC formula scored under 0.7 (its bigrams and
		// trigrams broke on every reordered clause):
		{"reordered clause, short", "Use RS256 for JWT signing in production", "In production, JWT signing uses RS256"},
		{"db in a short sentence", "Staging DB pool is 20", "Staging database pool is 20"},
		{"db and a tense", "The staging database password rotates every 30 days", "Staging DB password is rotated every 30 days"},
		{"decided and decision", "We decided to cache API responses in Redis for 10 minutes", "Decision: API responses are cached in Redis for 10 minutes"},
		{"passive, short", "The CI pipeline caches Go modules between runs", "Go modules are cached between runs of the CI pipeline"},
		{"other verb", "Put the config in config.yaml under the vault key", "Configuration goes in config.yaml under the vault key"},
		{"max and maximum", "Postgres connection pool max is 50", "The maximum PostgreSQL connection pool size is 50"},
	}
	// Related: the new text says something the old one does not, on its topic.
	relatedPairs = []pair{
		{"same pool, other facts", "Staging DB pool is 20", "Prod DB pool is 50, and migrations run on deploy"},
		{"jwt signing and keys", "Use RS256 for JWT signing in production", "JWT signing keys are rotated every 90 days; the old key stays valid for a week"},
		{"redis sessions", "Redis is the session store", "Redis session keys expire after 24 hours unless refreshed"},
		{"goose", "Run migrations with goose before deploying", "Goose migrations live in db/migrations and are numbered by timestamp"},
		{"rate limit", "The API rate limit is 100 requests per minute", "Rate limit errors from the API return HTTP 429 with a Retry-After header"},
		{"postgres tests", "Postgres 16 is required for the jsonb_path features the tests use", "Tests use testcontainers for Postgres"},
		{"react", "React components live in src/components", "React components must not fetch data; hooks in src/hooks do"},
		{"loki", "Logs are shipped to Loki via promtail", "Loki retention is 14 days; older logs are dropped"},
		{"pnpm", "Use pnpm in this repo, not npm", "pnpm workspaces: every package in packages/ is a workspace of the repo"},
		{"ci cache", "The CI pipeline caches Go modules", "The CI pipeline runs golangci-lint before the Go tests"},
		{"vault", "Secrets in Vault are rotated monthly; writing to kv/prod needs an admin token", "Secrets are stored in Vault under kv/prod"},
		{"bleve", "The Bleve index is rebuilt from the notes when it is corrupt", "The Bleve index lives under ~/.cortex/index and is only a cache of the notes"},
		{"deploy days", "Deploys happen on Tuesdays after the standup", "Tuesday deploys are frozen during the last week of the quarter"},
		{"logging", "Use zap for structured logging", "Structured logging fields: request_id, user_id, latency_ms"},
		{"chinese", "数据库连接池的大小是二十", "数据库迁移在部署时运行"},
		{"cyrillic", "Используйте Postgres для хранения сессий", "Для хранения кэша Postgres не подходит"},
		{"long against one word", "Redis caches sessions", "Redis"},
		{"long against short", "Use Redis for the session store and the rate limiter", "Use Redis"},
		{"supersede candidate", "The API timeout is 30 seconds", "The API timeout was raised to 60 seconds after the outage"},
		// A changed fact is a candidate to supersede, never a duplicate: a
		// number the old text lacks caps the score at 0.5.
		{"changed number", "Staging DB pool is 20", "Staging DB pool is 50"},
		{"changed version", "Use Node 18 for the build", "Use Node 20 for the build"},
		{"opposite", "Enable the billing_v2 flag in staging", "Disable the billing_v2 flag in staging"},
		{"new fact", "The billing service moved its invoices to a new bucket in eu-central last week", longText(6, 10000)},
		// A list of links to other pages says "npm", "see", "bug" and
		// "help", as a long page of the same manual does; the pages it
		// names (the links' texts) are not that page's subject, nor its
		// link the list's.
		{"a list of links", "npm-doctor › See Also\n* [npm bugs](/commands/npm-bugs)\n* [npm help](/commands/npm-help)\n* [npm ping](/commands/npm-ping)",
			"npm-deprecate › Description\nThis command marks a published version of a package as deprecated in the npm registry, so that everyone " +
				"who installs it sees a warning. It works on [version ranges](https://semver.npmjs.com/) as well as single versions: use it " +
				"for a version with a critical bug. You must own the package; see the owner help topic."},
		{"a sentence more", "Redis is used as the session store; sessions expire after 24 hours. We chose it for persistence and its Lua scripting.",
			"Redis is used as the session store; sessions expire after 24 hours."},
	}
	unrelatedPairs = []pair{
		{"jwt and coffee", "Use RS256 for JWT signing in production", "The office coffee machine is descaled on Fridays"},
		{"pool and react", "Staging DB pool is 20", "React components live in src/components, one folder per component"},
		{"redis and lint", "Redis is the session store", "CI runs golangci-lint before the tests"},
		{"goose and fonts", "Run migrations with goose before deploying", "The design system uses Inter for body text and JetBrains Mono for code"},
		{"rate limit and timezone", "The API rate limit is 100 requests per minute", "All timestamps are stored in UTC and shown in the user's time zone"},
		{"postgres and icons", "Tests use testcontainers for Postgres", "Icons come from the Lucide set; never inline SVGs by hand"},
		{"logging and pricing", "Use zap for structured logging", "The Pro plan costs 20 dollars a month, billed yearly"},
		{"bleve and oncall", "The Bleve index is rebuilt from the notes when it is corrupt", "On-call rotates weekly; handover is Monday at 10:00"},
		{"vault and css", "Secrets are stored in Vault under kv/prod", "Tailwind classes are sorted by the prettier plugin"},
		{"deploys and unicode", "Deploys happen on Tuesdays", "Normalise user names to NFC before comparing them"},
		{"k8s and docs", "Deploy to k8s with helm", "Architecture decision records live in docs/adr"},
		{"english and chinese", "Use RS256 for JWT signing in production", "数据库连接池的大小是二十"},
		{"chinese topics", "数据库连接池的大小是二十", "前端使用React构建"},
		{"cyrillic topics", "Используйте Postgres для хранения сессий", "Дизайн использует шрифт Inter"},
		{"accents and english", "Le cache de la base de données expire après une heure", "Use pnpm in this repo, not npm"},
		{"emoji only and text", "🚀🔥", "Deploys go out on Tuesdays"},
		{"long and short", longText(4, 10000), "The office coffee machine is descaled on Fridays"},
		{"two long texts", longText(5, 10000), proseText(10000)},
		{"one word each", "Redis", "Kafka"},
		{"a common verb", "Use RS256 for JWT signing in production", "Use pnpm in this repo, not npm"},
		{"a shared tool", "Docker images are built with buildx for arm64 and amd64", "Never run docker compose down -v on the shared dev box"},
	}
)

// gaps are pairs the score misjudges, kept with the band they score in so that
// the consequence stays visible and a change to it is noticed.
var gaps = []struct {
	pair
	lo, hi float64
	why    string
}{
	// A short note whose one distinctive word is neither a number, a code
	// token nor a name, its other words all in the old note: three words of
	// four are covered.
	{pair{"testcontainers", "Tests use testcontainers for Postgres", "Postgres 16 is required for the jsonb_path features the tests use"}, 0.7, 0.8, "a plain distinctive word"},
	// A fact added in words the old note has.
	{pair{"a sentence more in known words", "Redis is used as the session store; sessions expire after 24 hours. We chose it over Memcached for persistence.",
		"Redis is used as the session store; sessions expire after 24 hours."}, 0.7, 0.75, "a new fact in known words"},
	// Notes that share one common word of a few: a quarter of a four-word
	// note is enough to link them.
	{pair{"a common word", "Run the tests before pushing to main", "Run the linter on save in the editor"}, 0.2, 0.3, "a common word"},
	// Notes on one topic that share only its name, and a key word the other
	// lacks: under the related threshold.
	{pair{"jwt only", "Use RS256 for JWT signing in production", "JWT access tokens expire after 15 minutes; refresh tokens after 30 days"}, 0.1, 0.21, "topic word"},
}

func TestCalibrationGaps(t *testing.T) {
	for _, g := range gaps {
		t.Run(g.why+"/"+g.name, func(t *testing.T) {
			s := Compare(New(g.newer), New(g.old))
			t.Logf("%.3f (words %.2f, conflict %q)", s.Score, s.Words, s.Conflict)
			if s.Score < g.lo || s.Score >= g.hi {
				t.Errorf("scored %.3f, want [%g, %g): the calibration changed; move the pair or update the band", s.Score, g.lo, g.hi)
			}
		})
	}
}

func TestCalibration(t *testing.T) {
	th := DefaultThresholds()
	kinds := []struct {
		kind  string
		pairs []pair
		band  string
		in    func(float64) bool
	}{
		{"duplicate", duplicatePairs, ">= 0.7", func(s float64) bool { return s >= th.Duplicate }},
		{"related", relatedPairs, "in (0.2, 0.7)", func(s float64) bool { return s > th.Related && s < th.Duplicate }},
		{"unrelated", unrelatedPairs, "<= 0.2, both ways", func(s float64) bool { return s <= th.Related }},
	}
	for _, k := range kinds {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range k.pairs {
			t.Run(k.kind+"/"+p.name, func(t *testing.T) {
				s := Compare(New(p.newer), New(p.old))
				t.Logf("%.3f (words %.2f, conflict %q)", s.Score, s.Words, s.Conflict)
				lo, hi = min(lo, s.Score), max(hi, s.Score)
				if !k.in(s.Score) {
					t.Errorf("%s pair scored %.3f, want %s\n new: %.80q\n old: %.80q", k.kind, s.Score, k.band, p.newer, p.old)
				}
				if k.kind == "unrelated" {
					if back := Score(New(p.old), New(p.newer)); !k.in(back) {
						t.Errorf("the other way, %s pair scored %.3f, want %s", k.kind, back, k.band)
					}
				}
			})
		}
		t.Logf("%s: %d pairs, scores from %.3f to %.3f", k.kind, len(k.pairs), lo, hi)
	}
}

// TestScoreIsAsymmetric: how much of the new memory the old one says. A
// short summary is covered by the long section it summarises; the long
// section is not covered by the summary. The SPEC formula divided by the
// smaller set both ways, so the long section "duplicated" the summary.
func TestScoreIsAsymmetric(t *testing.T) {
	long := "Removes all unused local volumes. Unused local volumes are those which are not referenced by any containers. " +
		"By default, it only removes anonymous volumes; use --all to remove named volumes too. It asks for confirmation first."
	short := "Unused local volumes are removed, only anonymous ones by default."
	th := DefaultThresholds()
	if s := Score(New(short), New(long)); s < th.Duplicate {
		t.Errorf("summary against the section = %.3f, want a duplicate (>= %g)", s, th.Duplicate)
	}
	if s := Score(New(long), New(short)); s >= th.Duplicate || s <= th.Related {
		t.Errorf("section against the summary = %.3f, want related (%g, %g)", s, th.Related, th.Duplicate)
	}
}

// longText is about size bytes of note-like sentences whose names and numbers
// depend on seed, so that two seeds share words but few facts.
func longText(seed, size int) string {
	services := []string{"api", "worker", "gateway", "billing", "search", "auth", "mailer", "scheduler"}
	verbs := []string{"handles", "retries", "batches", "validates", "forwards", "caches"}
	things := []string{"billing requests", "webhooks", "invoices", "login events", "search queries", "emails"}
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		x := seed*7919 + i*104729
		fmt.Fprintf(&b, "Service %s%d %s %s and writes %s to bucket eu-west-%d. ",
			services[x%len(services)], (x/7)%97, verbs[(x/3)%len(verbs)], things[(x/5)%len(things)],
			things[(x/11)%len(things)], (x/13)%89)
		if i%6 == 5 {
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// proseText is about size bytes of prose on a topic far from longText's.
func proseText(size int) string {
	sentences := []string{
		"The quarterly planning meeting moved to the large room on the third floor.",
		"Lunch orders close at eleven, and the vegetarian option changes every Thursday.",
		"The design review found that the onboarding screens use three different shades of blue.",
		"Marketing wants the launch announcement translated into Spanish, German and Japanese.",
		"The office plants are watered on Mondays by whoever arrives first.",
		"Holiday requests need two weeks of notice and a named cover person.",
		"The new hires start with a week of pairing before taking tickets alone.",
	}
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		b.WriteString(sentences[i%len(sentences)])
		b.WriteString(" ")
	}
	return b.String()
}

// TestRelated: related links are ranked by Related, not by Score. A long note
// that holds many of a short note's common words, scattered, covers more of
// it than the note on its topic does; Related, which counts the shared words
// on both sides, ranks the note on its topic first.
func TestRelated(t *testing.T) {
	newer := New("JWT signing keys for production rotate every 90 days; the RS256 public key is published at /.well-known/jwks.json.")
	onTopic := New("Use RS256 for JWT signing in production because HS256 shares the signing secret with every service that verifies tokens.")
	soup := New("Keys flag session day trace production worker retry latency public queue JWT cache days rotate deploy token bucket " +
		"handler metric index parser release every build publish lint branch merge schema query replica shard router proxy")
	if s1, s2 := Score(newer, soup), Score(newer, onTopic); s1 <= s2 {
		t.Fatalf("the soup of words covers %.3f of the new note, the note on its topic %.3f: the test shows nothing", s1, s2)
	}
	if r1, r2 := Related(newer, onTopic), Related(newer, soup); r1 <= r2 {
		t.Errorf("Related: %.3f to the note on its topic, %.3f to the soup of words; want the topic first", r1, r2)
	}
	th := DefaultThresholds()
	if r := Related(newer, onTopic); r <= th.Related {
		t.Errorf("Related to the note on its topic = %.3f, want above %g", r, th.Related)
	}
	for _, p := range relatedPairs {
		a, b := New(p.newer), New(p.old)
		if x, y := Related(a, b), Related(b, a); x != y {
			t.Errorf("%s: Related(a, b) = %v, Related(b, a) = %v", p.name, x, y)
		}
		if got := Compare(a, b).Related; got != Related(a, b) {
			t.Errorf("%s: Compare's Related %v, Related %v", p.name, got, Related(a, b))
		}
	}
}

// TestOverlapIsCompareOnTheWords: Overlap of a text against another's word
// set gives Compare's Words and Related to the bit, both ways, on every
// labelled pair and on empty texts: a caller that keeps word sets decides
// as one that fingerprints whole.
func TestOverlapIsCompareOnTheWords(t *testing.T) {
	var texts [][2]string
	for _, name := range fixtureFiles {
		for _, p := range loadPairs(t, name) {
			texts = append(texts, [2]string{p.New.text(), p.Old.text()})
		}
	}
	texts = append(texts, [2]string{"", "something to say"}, [2]string{"the and of", "the"})
	for _, tx := range texts {
		for _, pair := range [][2]string{tx, {tx[1], tx[0]}} {
			a, b := New(pair[0]), New(pair[1])
			c := Compare(a, b)
			w, r := Overlap(a, b.Words())
			if w != c.Words || r != c.Related {
				t.Errorf("%.40q against %.40q: Overlap %v, %v; Compare %v, %v", pair[0], pair[1], w, r, c.Words, c.Related)
			}
		}
	}
}
