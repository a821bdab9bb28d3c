package dedup

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// pair is two texts and what their score must say about them.
type pair struct {
	name string
	a, b string
}

// The calibration: pairs a person would call duplicates, related, and unrelated.
// Run with -v to see every score.
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
		{"one extra sentence",
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
		{"long with a sentence more", longText(1, 10000), longText(1, 10000) + " Also: the cache is warmed on start."},
		{"long with a paragraph changed", longText(2, 10000), strings.Replace(longText(2, 10000), "Service", "Daemon", 3)},
		{"sentence of a long text", "Service api7 handles billing requests and writes invoices to bucket eu-west-17.", longText(3, 10000)},
	}
	relatedPairs = []pair{
		{"same pool, other facts", "Staging DB pool is 20", "Prod DB pool is 50, and migrations run on deploy"},
		{"jwt signing and keys", "Use RS256 for JWT signing in production", "JWT signing keys are rotated every 90 days; the old key stays valid for a week"},
		{"redis sessions", "Redis is the session store", "Redis session keys expire after 24 hours unless refreshed"},
		{"goose", "Run migrations with goose before deploying", "Goose migrations live in db/migrations and are numbered by timestamp"},
		{"rate limit", "The API rate limit is 100 requests per minute", "Rate limit errors from the API return HTTP 429 with a Retry-After header"},
		{"postgres tests", "Tests use testcontainers for Postgres", "Postgres 16 is required for the jsonb_path features the tests use"},
		{"react", "React components live in src/components", "React components must not fetch data; hooks in src/hooks do"},
		{"loki", "Logs are shipped to Loki via promtail", "Loki retention is 14 days; older logs are dropped"},
		{"pnpm", "Use pnpm in this repo, not npm", "pnpm workspaces: every package in packages/ is a workspace of the repo"},
		{"ci cache", "The CI pipeline caches Go modules", "The CI pipeline runs golangci-lint before the Go tests"},
		{"vault", "Secrets are stored in Vault under kv/prod", "Secrets in Vault are rotated monthly; writing to kv/prod needs an admin token"},
		{"bleve", "The Bleve index is rebuilt from the notes when it is corrupt", "The Bleve index lives under ~/.cortex/index and is only a cache of the notes"},
		{"deploy days", "Deploys happen on Tuesdays after the standup", "Tuesday deploys are frozen during the last week of the quarter"},
		{"logging", "Use zap for structured logging", "Structured logging fields: request_id, user_id, latency_ms"},
		{"chinese", "数据库连接池的大小是二十", "数据库迁移在部署时运行"},
		{"cyrillic", "Используйте Postgres для хранения сессий", "Для хранения кэша Postgres не подходит"},
		{"short against long", "Redis", "Redis caches sessions"},
		{"supersede candidate", "The API timeout is 30 seconds", "The API timeout was raised to 60 seconds after the outage"},
		// A changed fact is a candidate to supersede, not a duplicate; it is
		// close to 0.7 only because these sentences are so short.
		{"changed number", "Staging DB pool is 20", "Staging DB pool is 50"},
		{"changed version", "Use Node 18 for the build", "Use Node 20 for the build"},
		{"long note and a new fact", longText(6, 10000), "The billing service moved its invoices to a new bucket in eu-central last week"},
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
		{"a common word", "Run the tests before pushing to main", "Run the linter on save in the editor"},
		{"a shared tool", "Docker images are built with buildx for arm64 and amd64", "Never run docker compose down -v on the shared dev box"},
	}
)

// gaps are pairs the SPEC formula misjudges, kept here with the band they
// score in so that the consequence stays visible and a change to it is noticed.
var gaps = []struct {
	pair
	lo, hi float64
	why    string
}{
	// Natural paraphrases under 0.7: the words agree, but bigrams and trigrams
	// are of raw tokens, so a reordered clause, a change of tense or voice, or
	// "db" for "database" inside a short sentence loses most n-grams.
	{pair{"reordered clause", "Use RS256 for JWT signing in production", "In production, JWT signing uses RS256"}, 0.5, 0.7, "paraphrase"},
	{pair{"db in a short sentence", "Staging DB pool is 20", "Staging database pool is 20"}, 0.5, 0.7, "paraphrase"},
	{pair{"db and a tense", "The staging database password rotates every 30 days", "Staging DB password is rotated every 30 days"}, 0.5, 0.7, "paraphrase"},
	{pair{"decided and decision", "We decided to cache API responses in Redis for 10 minutes", "Decision: API responses are cached in Redis for 10 minutes"}, 0.5, 0.7, "paraphrase"},
	{pair{"passive", "The CI pipeline caches Go modules between runs", "Go modules are cached between runs of the CI pipeline"}, 0.5, 0.7, "paraphrase"},
	{pair{"other verb", "Put the config in config.yaml under the vault key", "Configuration goes in config.yaml under the vault key"}, 0.5, 0.7, "paraphrase"},
	{pair{"max and maximum", "Postgres connection pool max is 50", "The maximum PostgreSQL connection pool size is 50"}, 0.5, 0.7, "paraphrase"},
	// Notes on one topic that share only its name: one word of the shorter
	// note's five or six is under the related threshold.
	{pair{"redis only", "Redis is the session store", "Redis is also used for rate limiting with a sliding window"}, 0.1, 0.2, "topic word"},
	{pair{"jwt only", "Use RS256 for JWT signing in production", "JWT access tokens expire after 15 minutes; refresh tokens after 30 days"}, 0.1, 0.2, "topic word"},
	{pair{"react only", "The frontend is built with Vite and React", "React components live in src/components, one folder per component"}, 0.1, 0.2, "topic word"},
}

func TestCalibrationGaps(t *testing.T) {
	for _, g := range gaps {
		t.Run(g.why+"/"+g.name, func(t *testing.T) {
			s := Compare(New(g.a), New(g.b))
			t.Logf("%.3f (words %.2f, bigrams %.2f, trigrams %.2f)", s.Score, s.Words, s.Bigrams, s.Trigrams)
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
		{"unrelated", unrelatedPairs, "< 0.2", func(s float64) bool { return s < th.Related }},
	}
	for _, k := range kinds {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range k.pairs {
			t.Run(k.kind+"/"+p.name, func(t *testing.T) {
				fa, fb := New(p.a), New(p.b)
				s := Compare(fa, fb)
				t.Logf("%.3f (words %.2f, bigrams %.2f, trigrams %.2f)", s.Score, s.Words, s.Bigrams, s.Trigrams)
				lo, hi = min(lo, s.Score), max(hi, s.Score)
				if !k.in(s.Score) {
					t.Errorf("%s pair scored %.3f, want %s\n a: %.80q\n b: %.80q", k.kind, s.Score, k.band, p.a, p.b)
				}
				if got := Score(fb, fa); got != s.Score {
					t.Errorf("Score(b, a) = %v, Score(a, b) = %v", got, s.Score)
				}
			})
		}
		t.Logf("%s: %d pairs, scores from %.3f to %.3f", k.kind, len(k.pairs), lo, hi)
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
