package security

import (
	"encoding/base64"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The credential vectors. Every secret is built at run time from a
// deterministic generator and from split prefixes ("gh" + "p_"), so this file
// holds no literal a secret scanner would flag (TestCredentialSourceIsClean
// checks that with cortex's own rules), and none is a real secret.
//
// A positive marks the span its rule must report with « and »; the markers are
// removed before scanning. A negative has no markers: its rule must not fire.
// Either may name other rules that fire on the same text (also), and then must
// say why (why): any other finding fails the test, so overlaps are documented
// here rather than discovered later.

type credVector struct {
	name string
	text string
	also []string // other rules (IDs without "credential.") that fire
	why  string   // why they do
}

type credCase struct {
	rule     string // ID without "credential."
	pos, neg []credVector
}

// Alphabets of the fake secrets.
const (
	credUpper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	credLower  = "abcdefghijklmnopqrstuvwxyz"
	credDigits = "0123456789"
	credAlnum  = credUpper + credLower + credDigits
	credHex    = "0123456789abcdef"
	credB64    = credAlnum + "+/"
	credB64URL = credAlnum + "-_"
	credBase32 = credUpper + "234567"
	credBech32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
)

// credFakes hands out deterministic random-looking strings: the k-th string
// of a round is always the same, so every run tests the same vectors, and
// TestCredentialRulesOtherSecrets draws other ones by changing the round.
type credFakes struct{ round, k uint64 }

func (g *credFakes) of(alphabet string, n int) string {
	g.k++
	x := credMix(credMix(g.round) ^ g.k) // each string its own stream
	b := make([]byte, n)
	for i := range b {
		x += 0x9e3779b97f4a7c15 // splitmix64
		b[i] = alphabet[credMix(x)%uint64(len(alphabet))]
	}
	return string(b)
}

func credMix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// password is a human-chosen password: letters, a sign, digits.
func (g *credFakes) password() string {
	return g.of(credAlnum, 9) + g.of("!#%*", 1) + g.of(credDigits, 3)
}

func (g *credFakes) uuid() string {
	return g.of(credHex, 8) + "-" + g.of(credHex, 4) + "-4" + g.of(credHex, 3) + "-a" + g.of(credHex, 3) + "-" + g.of(credHex, 12)
}

func credB64URLOf(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// credPEM builds a PEM block; the armor is split so that this file holds none.
func credPEM(kind, body string) string {
	dash := strings.Repeat("-", 5)
	return dash + "BEGIN " + kind + " KEY" + dash + "\n" + body + dash + "END " + kind + " KEY" + dash
}

// credPEMBegin and credPEMEnd are the lines around a block of the given
// label ("RSA PRIVATE KEY").
func credPEMBegin(label string) string {
	return strings.Repeat("-", 5) + "BEGIN " + label + strings.Repeat("-", 5)
}
func credPEMEnd(label string) string {
	return strings.Repeat("-", 5) + "END " + label + strings.Repeat("-", 5)
}

// credPEMBlock is a block of any label (PGP's ends in BLOCK).
func credPEMBlock(label, body string) string {
	return credPEMBegin(label) + "\n" + body + credPEMEnd(label)
}

// credOpenSSHStart is the base64 that every unencrypted OpenSSH ed25519 key
// starts with: the magic, the cipher and KDF names ("none"), one key, and the
// key type.
var credOpenSSHStart = base64.StdEncoding.EncodeToString([]byte("openssh-key-v1\x00" +
	"\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01" +
	"\x00\x00\x00\x33\x00\x00\x00\x0bssh-ed25519"))

// pemBody is base64 key material in 64-character lines.
func (g *credFakes) pemBody(lines int) string {
	var b strings.Builder
	for range lines {
		b.WriteString(g.of(credB64, 64))
		b.WriteByte('\n')
	}
	b.WriteString(g.of(credB64, 20) + "==\n")
	return b.String()
}

// credentialCases is the table of vectors, with secrets drawn from round.
func credentialCases(round uint64) []credCase {
	g := &credFakes{round: round}
	of := g.of
	// Vectors added later draw from a stream of their own, so that the
	// secrets of the earlier ones stay what they were.
	g2 := &credFakes{round: round, k: 1 << 40}
	of2 := g2.of
	g3 := &credFakes{round: round, k: 2 << 40}
	of3 := g3.of
	g4 := &credFakes{round: round, k: 3 << 40}
	of4 := g4.of
	g5 := &credFakes{round: round, k: 4 << 40}
	of5 := g5.of
	guid := func() string {
		return of5(credHex, 8) + "-" + of5(credHex, 4) + "-" + of5(credHex, 4) + "-" + of5(credHex, 4) + "-" + of5(credHex, 12)
	}

	// Prefixes, split so that no literal in this file looks like a key.
	var (
		skAnt  = "sk-" + "ant-"
		ghp    = "gh" + "p_"
		gho    = "gh" + "o_"
		ghu    = "gh" + "u_"
		ghs    = "gh" + "s_"
		ghr    = "gh" + "r_"
		ghFine = "github_" + "pat_"
		akia   = "AK" + "IA"
		asia   = "AS" + "IA"
		xoxb   = "xo" + "xb-"
		xoxp   = "xo" + "xp-"
		xoxe   = "xo" + "xe"
		xapp   = "xa" + "pp-"
		aiza   = "AI" + "za"
		gocspx = "GOC" + "SPX-"
		ya29   = "ya" + "29."
		skLive = "sk_" + "live_"
		skTest = "sk_" + "test_"
		rkTest = "rk_" + "test_"
		whsec  = "wh" + "sec_"
		sg     = "S" + "G."
		npm    = "np" + "m_"
		pypi   = "py" + "pi-" + "AgEIcHlwaS5vcmc"
		hf     = "h" + "f_"
		lin    = "lin_" + "api_"
		dop    = "do" + "p_v1_"
		shpat  = "shp" + "at_"
		shpss  = "shp" + "ss_"
		hvs    = "hv" + "s."
		hvb    = "hv" + "b."
		dapi   = "da" + "pi"
		glsa   = "gl" + "sa_"
		glc    = "gl" + "c_"
		gsk    = "gs" + "k_"
		glpat  = "gl" + "pat-"
		pmak   = "PM" + "AK-"
		ageKey = "AGE-" + "SECRET-KEY-1"
		hrku   = "HR" + "KU-AA"
		atatt  = "ATA" + "TT3"
		eaaa   = "EA" + "AA"
		sq0csp = "sq0" + "csp-"
		dpPT   = "dp." + "pt."
		dpSA   = "dp." + "sa."
		sk     = "S" + "K"
		ac     = "A" + "C"
	)

	ghpKey := ghp + of(credAlnum, 36)
	jwtHeader := credB64URLOf(`{"alg":"HS256","typ":"JWT"}`)
	jwt := jwtHeader + "." + credB64URLOf(`{"sub":"u_`+of(credDigits, 6)+`","iat":1717171717,"exp":1717175317}`) + "." + of(credB64URL, 43)
	jwtRS := credB64URLOf(`{"alg":"RS256","kid":"`+of(credHex, 16)+`"}`) + "." + credB64URLOf(`{"iss":"https://auth.acme.io","aud":"api","sub":"`+of(credDigits, 9)+`"}`) + "." + of(credB64URL, 342)
	twilioSID := ac + of(credHex, 32)
	basicUser := "ci-bot:" + g.password()
	dbPass := of(credAlnum, 18) + "-" + of(credAlnum, 6)
	urlPass := of(credAlnum, 14) + "~" + of(credAlnum, 6)

	return append([]credCase{
		{rule: "age_secret_key",
			pos: []credVector{
				{name: "keys.txt", text: "# created: 2024-05-02T09:14:55Z\n# public key: age1" + strings.ToLower(of(credBech32, 58)) + "\n«" + ageKey + of(credBech32, 58) + "»\n"},
				{name: "sops env", text: "export SOPS_AGE_KEY=«" + ageKey + of(credBech32, 58) + "»"},
				// The all-zero key with its checksum: a key, however it looks.
				{name: "valid checksum", text: "SOPS_AGE_KEY=«" + ageKey + strings.Repeat("Q", 52) + "8H00W3" + "»"},
			},
			neg: []credVector{
				{name: "one short", text: "export SOPS_AGE_KEY=" + ageKey + of(credBech32, 57)},
				{name: "not bech32", text: "SOPS_AGE_KEY=" + ageKey + of(credBech32, 57) + "B"},
				{name: "placeholder", text: "SOPS_AGE_KEY=" + ageKey + strings.Repeat("X", 58)},
				{name: "typed, checksum broken", text: "ageToken = " + ageKey + strings.Repeat("Q", 58)},
				{name: "documentation", text: "The identity file holds one line, " + ageKey + "…, and must stay on the laptop."},
			}},

		{rule: "anthropic_api_key",
			pos: []credVector{
				{name: "prose", text: "Rotated the Claude key today.\nThe old one, «" + skAnt + "api03-" + of(credB64URL, 93) + "AA», is revoked."},
				{name: "curl", text: `curl https://api.anthropic.com/v1/messages -H "x-api-key: «` + skAnt + "api03-" + of(credB64URL, 93) + `AA»" -H "anthropic-version: 2023-06-01"`,
					also: []string{"secret_assignment"}, why: "x-api-key: is an api-key name followed by a random value"},
				{name: "admin json", text: `{"admin": "«` + skAnt + "admin01-" + of(credB64URL, 93) + `AA»"}`},
			},
			neg: []credVector{
				{name: "too short", text: "ANTHROPIC_KEY=" + skAnt + "api03-" + of(credB64URL, 79)},
				{name: "one digit version", text: "ANTHROPIC_KEY=" + skAnt + "api3-" + of(credB64URL, 93) + "AA"},
				{name: "ellipsis", text: "Keys look like " + skAnt + "api03-… and go in ANTHROPIC_API_KEY."},
				{name: "filler", text: "ANTHROPIC_KEY=" + skAnt + "api03-" + strings.Repeat("x", 93) + "AA"},
				{name: "not AA", text: skAnt + "admin01-abc123xyz-456def789ghij-klmnopqrstuvwx-3456yza789bcde-1234fghijklmnopby56aaaogaopaaaabc123xyzBB"},
				// typed along the keyboard in stretches: every vendor key's
				// filler check drops it now, as the generic rules did
				{name: "typed runs", text: skAnt + "admin01-abc123xyz-456def789ghij-klmnopqrstuvwx-3456yza789bcde-1234fghijklmnopby56aaaogaopaaaabc123xyzAA"},
			}},

		{rule: "atlassian_api_token",
			pos: []credVector{
				{name: "env", text: "JIRA_URL=https://acme.atlassian.net\nJIRA_API_TOKEN=«" + of(credAlnum, 24) + "»\n",
					also: []string{"secret_assignment"}, why: "JIRA_API_TOKEN is a token name"},
				{name: "ATATT3 in prose", text: "Confluence bot uses «" + atatt + "xFfGF0" + of(credB64URL, 171) + "=" + of("0123456789ABCDEF", 8) + "» (expires in May)."},
				{name: "prefixed name", text: "export ACME_CONFLUENCE_KEY='«" + of(credAlnum, 24) + "»'"},
			},
			neg: []credVector{
				{name: "one short", text: "JIRA_API_TOKEN=" + of(credAlnum, 23),
					also: []string{"secret_assignment"}, why: "a random value under a token name is still a secret, of unknown kind"},
				{name: "variable", text: "JIRA_API_TOKEN=${JIRA_API_TOKEN}"},
				{name: "filler", text: "jira_token: " + strings.Repeat("x", 24)},
				{name: "ATATT3 too short", text: "token " + atatt + of(credB64URL, 185) + " "},
			}},

		{rule: "aws_access_key_id",
			pos: []credVector{
				{name: "credentials file", text: "[default]\naws_access_key_id = «" + akia + of(credBase32, 16) + "»\nregion = eu-west-1\n"},
				// AccessKeyId ends in Id: secret_assignment leaves ids alone
				// (credentialsId, UserSecretsId name a secret held elsewhere).
				{name: "sts json", text: "{\n  \"Credentials\": {\n    \"AccessKeyId\": \"«" + asia + of(credBase32, 16) + "»\",\n"},
				{name: "prose", text: "The leaked key «" + akia + of(credBase32, 16) + "» belonged to the CI user."},
			},
			neg: []credVector{
				{name: "documentation", text: "aws_access_key_id = " + akia + "IOSFODNN7" + "EXAMPLE"},
				{name: "one short", text: "aws_access_key_id = " + akia + of(credBase32, 15)},
				{name: "not base32", text: "id " + akia + "0189" + of(credBase32, 12) + " in the test"},
				{name: "filler", text: "aws_access_key_id = " + akia + strings.Repeat("X", 16)},
			}},

		{rule: "aws_secret_access_key",
			pos: []credVector{
				{name: "credentials file", text: "[default]\naws_access_key_id = " + akia + of(credBase32, 16) + "\naws_secret_access_key = «" + of(credB64, 40) + "»\n",
					also: []string{"aws_access_key_id", "secret_assignment"}, why: "the file also holds the key ID; the name holds secret"},
				{name: "export", text: `export AWS_SECRET_ACCESS_KEY="«` + of(credB64, 40) + `»"`,
					also: []string{"secret_assignment"}, why: "the name holds secret"},
				{name: "sts json", text: "\"SecretAccessKey\": \"«" + of(credB64, 40) + "»\",",
					also: []string{"secret_assignment"}, why: "the name holds secret"},
			},
			neg: []credVector{
				{name: "documentation", text: "aws_secret_access_key = wJalrXUtnFEMI" + "/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"},
				{name: "one short", text: "aws_secret_access_key = " + of(credB64, 39),
					also: []string{"secret_assignment"}, why: "a random value under a secret name is still a secret, of unknown kind"},
				{name: "variable", text: `AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY}"`},
				{name: "reference", text: `secret = os.environ["AWS_SECRET_ACCESS_KEY"]`},
			}},

		{rule: "azure_storage_key",
			pos: []credVector{
				{name: "connection string", text: "DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=«" + of(credB64, 86) + "==»;EndpointSuffix=core.windows.net"},
				{name: "service bus", text: "{\n  \"ServiceBus\": \"Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=«" + of(credB64, 43) + "=»\"\n}",
					also: []string{"secret_assignment"}, why: "SharedAccessKey holds access_key"},
				{name: "cli env", text: "export AZURE_STORAGE_ACCOUNT=acmeprod\nexport AZURE_STORAGE_KEY=«" + of(credB64, 86) + "==»\n"},
			},
			neg: []credVector{
				{name: "placeholder", text: "AccountName=acmeprod;AccountKey=<storage-account-key>;EndpointSuffix=core.windows.net"},
				{name: "one short", text: "AccountName=acmeprod;AccountKey=" + of(credB64, 39) + ";"},
				{name: "emulator", text: "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDX" + "J1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/" + "K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;"},
				{name: "variable", text: "AccountKey=${STORAGE_KEY};"},
			}},

		{rule: "basic_auth_header",
			pos: []credVector{
				{name: "curl", text: `curl -H "Authorization: Basic «` + base64.StdEncoding.EncodeToString([]byte(basicUser)) + `»" https://registry.acme.io/v2/_catalog`},
				{name: "http request", text: "GET /api/v2/export HTTP/1.1\nHost: exports.acme.io\nAuthorization: Basic «" + base64.StdEncoding.EncodeToString([]byte("svc-export:"+g.password())) + "»\nAccept: */*\n"},
			},
			neg: []credVector{
				{name: "placeholder password", text: `curl -H "Authorization: Basic ` + base64.StdEncoding.EncodeToString([]byte("user:password")) + `" https://example.com`},
				{name: "no colon", text: "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("justonelongword"))},
				{name: "shell", text: `curl -H "Authorization: Basic $(printf '%s:%s' "$U" "$P" | base64)" https://registry.acme.io`},
				{name: "template", text: "Authorization: Basic <base64 of user:password>"},
				{name: "json", text: "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))},
			}},

		{rule: "bearer_token",
			pos: []credVector{
				{name: "curl", text: `curl -sf -H "Authorization: Bearer «` + of(credB64URL, 40) + `»" https://api.acme.io/v1/me`},
				{name: "python", text: "resp = requests.get(\n    url,\n    headers={\"Authorization\": \"Bearer «" + of(credAlnum, 32) + "»\"},\n)"},
				{name: "jwt", text: "Authorization: Bearer «" + jwt + "»",
					also: []string{"jwt"}, why: "the bearer token is a JWT"},
				{name: "long jwt", text: "GET /v1/me HTTP/1.1\nAuthorization: Bearer «" + jwtRS + "»\n",
					also: []string{"jwt"}, why: "the bearer token is a JWT"},
				{name: "token scheme", text: `curl -H "Authorization: Token «` + of2(credHex, 40) + `»" https://api.acme.io/v2/`},
				{name: "no scheme", text: "curl --header 'Authorization: «" + g2.uuid() + "»' https://api.acme.io"},
				{name: "api-token scheme", text: `curl -H "Authorization: Api-Token «` + of3(credHex, 40) + `»" --request PUT https://acme.live.dynatrace.com/api`},
			},
			neg: []credVector{
				{name: "variable", text: `curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com/user`},
				{name: "template", text: "Authorization: Bearer {{ access_token }}"},
				{name: "placeholder", text: `curl -H "Authorization: Bearer YOUR_ACCESS_TOKEN_HERE" https://api.acme.io`},
				{name: "word", text: `curl -H "Authorization: Bearer MY_PERSONAL_ACCESS_TOKEN" https://api.acme.io`},
				{name: "filler", text: "Authorization: Bearer " + strings.Repeat("x", 32)},
				{name: "token variable", text: `Authorization: Token ${API_TOKEN}`},
			}},

		{rule: "cloudflare_api_token",
			pos: []credVector{
				{name: "env", text: "CLOUDFLARE_API_TOKEN=«" + of(credB64URL, 40) + "»",
					also: []string{"secret_assignment"}, why: "the name holds token"},
				{name: "terraform var", text: "export TF_VAR_cloudflare_api_token=\"«" + of(credB64URL, 40) + "»\"",
					also: []string{"secret_assignment"}, why: "the name holds token"},
				{name: "origin ca key", text: "Origin CA key for the edge certs:\n«v1.0-" + of(credHex, 24) + "-" + of(credHex, 146) + "»\n"},
			},
			neg: []credVector{
				{name: "reference", text: `export TF_VAR_cloudflare_api_token=$(op read "op://Infra/Cloudflare/token")`},
				{name: "one short", text: "CLOUDFLARE_API_TOKEN=" + of(credB64URL, 36),
					also: []string{"secret_assignment"}, why: "a random value under a token name is still a secret, of unknown kind"},
				{name: "zone id", text: "CLOUDFLARE_ZONE=acme-io-production-zone-eu-west-a"},
				{name: "filler", text: "CLOUDFLARE_API_TOKEN=" + strings.Repeat("x", 40)},
			}},

		{rule: "database_url",
			pos: []credVector{
				{name: "env", text: "DATABASE_URL=postgres://app:«" + dbPass + "»@db.internal:5432/app?sslmode=require"},
				{name: "yaml", text: "spring:\n  data:\n    mongodb:\n      uri: mongodb+srv://svc-reports:«" + dbPass + "»@cluster0.x7k2p.mongodb.net/reports\n"},
				{name: "redis without user", text: "cache = redis.from_url(\"rediss://:«" + dbPass + "»@cache.acme.io:6380/0\")"},
				{name: "jdbc", text: "url=jdbc:mysql://etl:«" + dbPass + "»@mysql.acme.io:3306/warehouse"},
			},
			neg: []credVector{
				{name: "dev default", text: "DATABASE_URL=postgres://postgres:postgres@localhost:5432/app"},
				{name: "same as user", text: "DATABASE_URL=postgres://app:app@localhost:5432/app?sslmode=disable"},
				{name: "template", text: "The Postgres URL format is `postgres://USER:PASSWORD@HOST:5432/DBNAME`."},
				{name: "variable", text: "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app"},
			}},

		{rule: "databricks_token",
			pos: []credVector{
				{name: "databrickscfg", text: "[DEFAULT]\nhost = https://adb-" + of(credDigits, 16) + ".7.azuredatabricks.net\ntoken = «" + dapi + of(credHex, 32) + "»\n",
					also: []string{"secret_assignment"}, why: "token = is a token name"},
				{name: "prose", text: "Use «" + dapi + of(credHex, 32) + "-2» for the nightly job."},
			},
			neg: []credVector{
				{name: "one short", text: "Use " + dapi + of(credHex, 31) + " for the job."},
				{name: "not hex", text: "see " + dapi + of(credUpper, 32) + " above"},
				{name: "filler", text: "token: " + dapi + strings.Repeat("0", 32)},
			}},

		{rule: "datadog_api_key",
			pos: []credVector{
				{name: "env", text: "DD_SITE=datadoghq.eu\nDD_API_KEY=«" + of(credHex, 32) + "»\n",
					also: []string{"secret_assignment"}, why: "DD_API_KEY is an api_key name"},
				{name: "yaml", text: "datadog:\n  app_key: x\n  datadog_app_key: «" + of(credHex, 40) + "»\n"},
				{name: "terraform var", text: "export TF_VAR_datadog_api_key=«" + of(credHex, 32) + "»",
					also: []string{"secret_assignment"}, why: "the name holds api_key"},
			},
			neg: []credVector{
				{name: "one short", text: "DD_API_KEY=" + of(credHex, 31),
					also: []string{"secret_assignment"}, why: "a random value under an api_key name is still a secret, of unknown kind"},
				{name: "placeholder", text: "DD_API_KEY=<DATADOG_API_KEY>"},
				{name: "variable", text: "DD_API_KEY=${DD_API_KEY}"},
				{name: "filler", text: "DD_API_KEY=" + strings.Repeat("0", 32)},
			}},

		{rule: "digitalocean_token",
			pos: []credVector{
				{name: "doctl", text: "doctl auth init --access-token «" + dop + of(credHex, 64) + "»",
					also: []string{"secret_assignment"}, why: "--access-token is a token flag"},
				{name: "terraform", text: "provider \"digitalocean\" {\n  token = \"«" + dop + of(credHex, 64) + "»\"\n}",
					also: []string{"secret_assignment"}, why: "token = is a token name"},
			},
			neg: []credVector{
				{name: "one short", text: "the token " + dop + of(credHex, 63) + " was revoked"},
				{name: "placeholder", text: "doctl auth init --access-token " + dop + "<token>"},
				{name: "filler", text: "DO_PAT=" + dop + strings.Repeat("0", 64)},
			}},

		{rule: "discord_bot_token",
			pos: []credVector{
				{name: "env", text: "DISCORD_BOT_TOKEN=«MT" + of(credAlnum, 24) + "." + of(credB64URL, 6) + "." + of(credB64URL, 38) + "»",
					also: []string{"secret_assignment"}, why: "the name holds token"},
				{name: "authorization", text: "headers = {\"Authorization\": \"Bot «NT" + of(credAlnum, 22) + "." + of(credB64URL, 6) + "." + of(credB64URL, 27) + "»\"}"},
				{name: "sentence", text: "The discord bot runs as «OD" + of(credAlnum, 23) + "." + of(credB64URL, 6) + "." + of(credB64URL, 38) + "»."},
			},
			neg: []credVector{
				{name: "placeholder", text: "DISCORD_BOT_TOKEN=your-bot-token-here"},
				{name: "short middle", text: "discord token MT" + of(credAlnum, 24) + "." + of(credB64URL, 5) + "." + of(credB64URL, 38)},
				{name: "wrong first letter", text: "discord token QT" + of(strings.NewReplacer("M", "", "N", "", "O", "").Replace(credAlnum), 24) + "." + of(credB64URL, 6) + "." + of(credB64URL, 38)},
			}},

		{rule: "discord_webhook_url",
			pos: []credVector{
				{name: "env", text: "ALERTS_WEBHOOK=https://«discord.com/api/webhooks/" + of(credDigits, 18) + "/" + of(credB64URL, 68) + "»"},
				{name: "curl", text: "curl -H 'Content-Type: application/json' -d '{\"content\":\"deploy done\"}' \\\n  https://«discordapp.com/api/webhooks/" + of(credDigits, 19) + "/" + of(credB64URL, 68) + "»"},
			},
			neg: []credVector{
				{name: "placeholder", text: "https://discord.com/api/webhooks/<id>/<token>"},
				{name: "short token", text: "https://discord.com/api/webhooks/" + of(credDigits, 18) + "/" + of(credB64URL, 20)},
				{name: "filler", text: "https://discord.com/api/webhooks/" + of(credDigits, 18) + "/" + strings.Repeat("x", 68)},
			}},

		{rule: "doppler_token",
			pos: []credVector{
				{name: "cli", text: "doppler configure set token «" + dpPT + of(credAlnum, 43) + "» --scope /srv/app"},
				{name: "env", text: "DOPPLER_TOKEN=\"«" + dpSA + of(credAlnum, 43) + "»\"",
					also: []string{"secret_assignment"}, why: "the name holds token"},
			},
			neg: []credVector{
				{name: "one short", text: "token " + dpPT + of(credAlnum, 39) + " "},
				{name: "placeholder", text: "DOPPLER_TOKEN=" + dpPT + "<token>"},
				{name: "filler", text: "token " + dpPT + strings.Repeat("x", 43)},
				{name: "unknown kind", text: "token dp.xx." + of(credAlnum, 43)},
			}},

		{rule: "github_app_token",
			pos: []credVector{
				{name: "server to server", text: "The installation token «" + ghs + of(credAlnum, 36) + "» expires in an hour."},
				{name: "git url", text: "git clone https://x-access-token:«" + ghu + of(credAlnum, 36) + "»@github.com/acme/infra.git",
					also: []string{"url_credentials"}, why: "the token is the password of the URL"},
			},
			neg: []credVector{
				{name: "one short", text: "token " + ghs + of(credAlnum, 35)},
				{name: "one long", text: "token " + ghs + of(credAlnum, 37)},
				{name: "filler", text: "GH_TOKEN=" + ghs + strings.Repeat("x", 36)},
			}},

		{rule: "github_fine_grained_pat",
			pos: []credVector{
				{name: "gh auth", text: "gh auth login --with-token <<< «" + ghFine + of(credAlnum, 22) + "_" + of(credAlnum, 59) + "»"},
				{name: "yaml", text: "github:\n  owner: acme\n  pat: «" + ghFine + of(credAlnum, 22) + "_" + of(credAlnum, 59) + "»\n"},
			},
			neg: []credVector{
				{name: "one short", text: "pat: " + ghFine + of(credAlnum, 22) + "_" + of(credAlnum, 58)},
				{name: "prefix only", text: "Fine-grained tokens start with " + ghFine + " and classic ones with " + ghp + "."},
				{name: "filler", text: "pat: " + ghFine + strings.Repeat("x", 82)},
			}},

		{rule: "github_oauth_token",
			pos: []credVector{
				{name: "hosts.yml", text: "github.com:\n    user: octo\n    oauth_token: «" + gho + of(credAlnum, 36) + "»\n    git_protocol: https\n",
					also: []string{"gh_hosts_token", "secret_assignment"}, why: "oauth_token is a token name, and gh's key in hosts.yml"},
				{name: "prose", text: "gh printed «" + gho + of(credAlnum, 36) + "», do not paste it anywhere"},
			},
			neg: []credVector{
				{name: "one short", text: "gh printed " + gho + of(credAlnum, 35)},
				{name: "placeholder", text: "oauth_token: " + gho + "<token>"},
				{name: "filler", text: "oauth_token: " + gho + strings.Repeat("X", 36)},
			}},

		{rule: "github_pat",
			pos: []credVector{
				{name: "env", text: "GH_PAT=«" + ghpKey + "»\n"},
				{name: "git url", text: "git remote set-url origin https://«" + ghp + of(credAlnum, 36) + "»@github.com/acme/app.git"},
				{name: "go string", text: "client := github.NewClient(nil).WithAuthToken(\"«" + ghp + of(credAlnum, 36) + "»\")"},
			},
			neg: []credVector{
				{name: "one short", text: "GH_PAT=" + ghp + of(credAlnum, 35)},
				{name: "filler", text: "GITHUB_TOKEN=" + ghp + strings.Repeat("x", 36)},
				{name: "placeholder", text: "GITHUB_TOKEN=" + ghp + "<your-token>"},
				{name: "inside a word", text: "id x" + ghpKey},
			}},

		{rule: "github_refresh_token",
			pos: []credVector{
				{name: "json", text: "{\"token_type\": \"bearer\", \"refresh_token\": \"«" + ghr + of(credAlnum, 36) + "»\"}",
					also: []string{"secret_assignment"}, why: "refresh_token is a token name"},
				{name: "prose", text: "refresh with «" + ghr + of(credAlnum, 36) + "»"},
			},
			neg: []credVector{
				{name: "one short", text: "refresh with " + ghr + of(credAlnum, 35)},
				{name: "filler", text: "refresh with " + ghr + strings.Repeat("x", 36)},
			}},

		{rule: "gitlab_token",
			pos: []credVector{
				{name: "netrc", text: "machine gitlab.acme.io\n  login oauth2\n  password «" + glpat + of(credB64URL, 20) + "»\n",
					also: []string{"password_assignment"}, why: "the token is the netrc password"},
				{name: "routable", text: "export GITLAB_TOKEN=«" + glpat + of(credB64URL, 36) + ".01." + of(credLower+credDigits, 9) + "»",
					also: []string{"secret_assignment"}, why: "the name holds token"},
				{name: "runner, sentence", text: "Register with «glrt-t1_" + of(credB64URL, 27) + "." + of(credLower+credDigits, 9) + "»."},
			},
			neg: []credVector{
				{name: "one short", text: "token " + glpat + of(credB64URL, 19)},
				{name: "placeholder", text: "GITLAB_TOKEN=" + glpat + "<token>"},
				{name: "filler", text: "GITLAB_TOKEN=" + glpat + strings.Repeat("x", 20)},
				{name: "longer token", text: "id " + glpat + of(credB64URL, 20) + "+" + of(credB64URL, 6)},
			}},

		{rule: "google_api_key",
			pos: []credVector{
				{name: "android", text: "<string name=\"maps_key\">«" + aiza + "Sy" + of(credB64URL, 33) + "»</string>"},
				{name: "url", text: "curl \"https://maps.googleapis.com/maps/api/geocode/json?address=Lyon&key=«" + aiza + "Sy" + of(credB64URL, 33) + "»\""},
			},
			neg: []credVector{
				{name: "one short", text: "key=" + aiza + "Sy" + of(credB64URL, 32)},
				{name: "filler", text: "key=" + aiza + "Sy" + strings.Repeat("X", 33)},
				{name: "placeholder", text: "key=" + aiza + "Sy...YOUR_KEY"},
				{name: "firebase example", text: "<string name=\"google_api_key\">" + aiza + "SyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs</string>"},
				{name: "documented sequence", text: "key=" + aiza + "Syabcdefghijklmnopqrstuvwxyz1234567"},
			}},

		{rule: "google_oauth_client_secret",
			pos: []credVector{
				{name: "client_secret.json", text: "{\"installed\":{\n  \"client_id\":\"" + of(credDigits, 12) + "-" + of(credLower+credDigits, 32) + ".apps.googleusercontent.com\",\n  \"client_secret\":\"«" + gocspx + of(credB64URL, 28) + "»\"}}",
					also: []string{"secret_assignment"}, why: "client_secret is a secret name"},
				{name: "prose", text: "OAuth secret «" + gocspx + of(credB64URL, 28) + "» (web client)"},
			},
			neg: []credVector{
				{name: "one short", text: "secret " + gocspx + of(credB64URL, 27)},
				{name: "placeholder", text: "GOOGLE_CLIENT_SECRET=" + gocspx + "<client-secret>"},
				{name: "filler", text: "secret " + gocspx + strings.Repeat("x", 28)},
			}},

		{rule: "google_oauth_token",
			pos: []credVector{
				{name: "sentence", text: "gcloud auth print-access-token gave «" + ya29 + "a0" + of(credB64URL, 160) + "»."},
				{name: "json", text: "{\n  \"token_type\": \"Bearer\",\n  \"expires_in\": 3599,\n  \"access_token\": \"«" + ya29 + "c." + of(credB64URL, 120) + "»\"\n}",
					also: []string{"secret_assignment"}, why: "access_token is a token name"},
			},
			neg: []credVector{
				{name: "one short", text: "token " + ya29 + of(credB64URL, 29) + " "},
				{name: "placeholder", text: "token " + ya29 + "<access-token>"},
				{name: "filler", text: "token " + ya29 + strings.Repeat("x", 60)},
			}},

		{rule: "grafana_token",
			pos: []credVector{
				{name: "service account", text: "GRAFANA_SA=«" + glsa + of(credAlnum, 32) + "_" + of(credHex, 8) + "»"},
				{name: "cloud", text: "grafana:\n  cloud_key: «" + glc + base64.StdEncoding.EncodeToString([]byte(`{"o":"`+of(credDigits, 6)+`","n":"stack-`+of(credDigits, 6)+`-hm-read","k":"`+of(credAlnum, 24)+`","m":{"r":"prod-eu-west-2"}}`)) + "»\n"},
			},
			neg: []credVector{
				{name: "short suffix", text: "GRAFANA_SA=" + glsa + of(credAlnum, 32) + "_" + of(credHex, 7)},
				{name: "not hex suffix", text: "GRAFANA_SA=" + glsa + of(credAlnum, 32) + "_" + of("ghijklmn", 8)},
				{name: "placeholder", text: "GRAFANA_SA=" + glsa + "<token>"},
			}},

		{rule: "groq_api_key",
			pos: []credVector{
				{name: "env", text: "GROQ_API_KEY=«" + gsk + of(credAlnum, 52) + "»",
					also: []string{"secret_assignment"}, why: "the name holds api_key"},
				{name: "python", text: "client = Groq(\n    api_key=\"«" + gsk + of(credAlnum, 52) + "»\",\n)",
					also: []string{"secret_assignment"}, why: "api_key= is an api_key name"},
			},
			neg: []credVector{
				{name: "one short", text: "key " + gsk + of(credAlnum, 51)},
				{name: "filler", text: "GROQ_API_KEY=" + gsk + strings.Repeat("x", 52)},
				{name: "ellipsis", text: "Groq keys start with " + gsk + "…"},
			}},

		{rule: "heroku_api_key",
			pos: []credVector{
				{name: "env", text: "HEROKU_API_KEY=«" + g.uuid() + "»",
					also: []string{"secret_assignment"}, why: "the name holds api_key"},
				{name: "platform token", text: "heroku authorizations:create printed\nToken: «" + hrku + of(credB64URL, 58) + "»\n",
					also: []string{"secret_assignment"}, why: "Token: names a token"},
				{name: "prefixed name", text: "export STAGING_HEROKU_AUTH_TOKEN=«" + g.uuid() + "»",
					also: []string{"secret_assignment"}, why: "the name holds token"},
			},
			neg: []credVector{
				{name: "zero uuid", text: "HEROKU_API_KEY=00000000-0000-0000-0000-000000000000"},
				{name: "app id", text: "HEROKU_APP_ID=" + g.uuid()},
				{name: "one short", text: "token " + hrku + of(credB64URL, 57) + " "},
			}},

		{rule: "huggingface_token",
			pos: []credVector{
				{name: "cli", text: "huggingface-cli login --token «" + hf + of(credAlnum, 34) + "»",
					also: []string{"secret_assignment"}, why: "--token is a token flag"},
				{name: "env", text: "HF_TOKEN=«" + hf + of(credAlnum, 34) + "»",
					also: []string{"secret_assignment"}, why: "the name holds token"},
			},
			neg: []credVector{
				{name: "one short", text: "token " + hf + of(credAlnum, 33)},
				{name: "filler", text: "HF_TOKEN=" + hf + strings.Repeat("x", 34)},
				{name: "identifier", text: "from huggingface_hub import hf_hub_download"},
			}},

		{rule: "jwt",
			pos: []credVector{
				{name: "cookie", text: "Set-Cookie: session=«" + jwt + "»; Path=/; HttpOnly"},
				{name: "json", text: "{\n  \"id_token\": \"«" + jwtRS + "»\"\n}",
					also: []string{"secret_assignment"}, why: "id_token is a token name"},
				{name: "sentence", text: "The failing request carried «" + jwt + "»."},
			},
			neg: []credVector{
				{name: "no alg", text: "cookie " + credB64URLOf(`{"typ":"JWT","cty":"x"}`) + "." + credB64URLOf(`{"sub":"42"}`) + "." + of(credB64URL, 43)},
				{name: "two parts", text: "cookie " + jwtHeader + "." + credB64URLOf(`{"sub":"42","exp":1}`) + " "},
				{name: "ellipsis", text: "JWTs start with " + jwtHeader[:10] + "… and have three parts."},
				{name: "jwt.io example", text: "Paste eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + "." + "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ" + "." + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c into jwt.io to see the claims."},
			}},

		{rule: "linear_api_key",
			pos: []credVector{
				{name: "curl", text: `curl -H "Authorization: «` + lin + of(credAlnum, 40) + `»" https://api.linear.app/graphql`,
					also: []string{"bearer_token"}, why: "an Authorization header without a scheme holds a token"},
				{name: "env", text: "LINEAR_API_KEY=«" + lin + of(credAlnum, 40) + "»",
					also: []string{"secret_assignment"}, why: "the name holds api_key"},
			},
			neg: []credVector{
				{name: "one short", text: "key " + lin + of(credAlnum, 39)},
				{name: "filler", text: "LINEAR_API_KEY=" + lin + strings.Repeat("x", 40)},
				{name: "placeholder", text: "LINEAR_API_KEY=" + lin + "<key>"},
			}},

		{rule: "mailchimp_api_key",
			pos: []credVector{
				{name: "sdk", text: "MailchimpSDK.initialize(token: «" + of3(credHex, 32) + "-us18»)",
					also: []string{"secret_assignment"}, why: "token: names a token"},
				{name: "prose", text: "The newsletter job uses «" + of3(credHex, 32) + "-us6» (Mailchimp, marketing account)."},
			},
			neg: []credVector{
				{name: "one short", text: "key " + of3(credHex, 31) + "-us18"},
				{name: "filler", text: "key " + strings.Repeat("0", 32) + "-us18"},
				{name: "locale", text: "Set the locale to en-us in the settings."},
			}},

		{rule: "mailgun_api_key",
			pos: []credVector{
				{name: "env", text: "MAILGUN_API_KEY=«key-" + of(credHex, 32) + "»",
					also: []string{"secret_assignment"}, why: "the name holds api_key"},
				{name: "curl", text: "# mailgun\ncurl -s --user 'api:" + "«key-" + of(credHex, 32) + "»' https://api.mailgun.net/v3/mg.acme.io/messages",
					also: []string{"password_assignment"}, why: "curl --user takes user:password"},
				{name: "new format", text: "mailgun private key: «" + of(credHex, 32) + "-" + of(credHex, 8) + "-" + of(credHex, 8) + "»"},
			},
			neg: []credVector{
				{name: "one short", text: "MAILGUN_API_KEY=key-" + of(credHex, 31),
					also: []string{"secret_assignment"}, why: "a random value under an api_key name is still a secret, of unknown kind"},
				{name: "placeholder", text: "MAILGUN_API_KEY=key-<your-key>"},
				{name: "filler", text: "MAILGUN_API_KEY=key-" + strings.Repeat("0", 32)},
			}},

		{rule: "npm_token",
			pos: []credVector{
				{name: "npmrc", text: "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=«" + npm + of(credAlnum, 36) + "»\n",
					also: []string{"npmrc_auth", "secret_assignment"}, why: "_authToken is a token name, and .npmrc's key"},
				{name: "ci", text: "- run: npm publish\n  env:\n    NODE_AUTH_TOKEN: «" + npm + of(credAlnum, 36) + "»\n",
					also: []string{"secret_assignment"}, why: "the name holds token"},
			},
			neg: []credVector{
				{name: "variable", text: "//registry.npmjs.org/:_authToken=${NPM_TOKEN}"},
				{name: "one short", text: "token " + npm + of(credAlnum, 35)},
				{name: "filler", text: "token " + npm + strings.Repeat("x", 36)},
				{name: "identifier", text: "npm_config_registry=https://registry.npmjs.org/"},
			}},

		{rule: "openai_api_key",
			pos: []credVector{
				{name: "env", text: "OPENAI_API_KEY=«sk-proj-" + of(credB64URL, 74) + "T3BlbkFJ" + of(credB64URL, 74) + "»",
					also: []string{"secret_assignment"}, why: "the name holds api_key"},
				{name: "legacy", text: "openai.api_key = \"«sk-" + of(credAlnum, 20) + "T3BlbkFJ" + of(credAlnum, 20) + "»\"",
					also: []string{"secret_assignment"}, why: "api_key = is an api_key name"},
				{name: "sentence", text: "The batch worker uses «sk-svcacct-" + of(credB64URL, 74) + "T3BlbkFJ" + of(credB64URL, 74) + "»."},
			},
			neg: []credVector{
				{name: "too short", text: "key sk-proj-" + of(credB64URL, 39) + " "},
				{name: "filler", text: "OPENAI_API_KEY=sk-proj-" + strings.Repeat("x", 48)},
				{name: "ellipsis", text: "Project keys look like sk-proj-… and are scoped to one project."},
				{name: "word", text: "The sk-learn alias is scikit-learn-compatible-estimator-wrappers-for-pipelines."},
			}},

		{rule: "password_assignment",
			pos: []credVector{
				{name: "env", text: "DB_HOST=db.internal\nDB_PASSWORD=«" + g.password() + "»\n"},
				{name: "yaml", text: "smtp:\n  user: alerts@acme.io\n  password: \"«" + g.password() + "»\"\n"},
				{name: "flag", text: "docker login -u ci --password «" + g.password() + "» registry.acme.io"},
				{name: "python", text: "conn = psycopg2.connect(host=\"db\", user=\"app\", password=\"«" + g.password() + "»\")"},
				{name: "netrc", text: "machine api.acme.io\n  login deploy\n  password «" + g.password() + "»\n"},
				{name: "nuget", text: "<packageSourceCredentials>\n  <acme>\n    <add key=\"Username\" value=\"ci\" />\n    <add key=\"ClearTextPassword\" value=\"«" + g2.password() + "»\" />"},
				{name: "curl user", text: "curl -s -u elastic:«" + g2.password() + "» https://es.acme.io:9200/_cat/indices"},
				{name: "curl continued", text: "curl -X POST https://acme.io/api \\\n  --user 'deploy:«" + g2.password() + "»' -d @body.json"},
				{name: "curl quoted password", text: "curl --user kevin:'«" + g3.password() + "»' -iX PATCH https://acme.io/api"},
				{name: "curl empty user", text: `curl -u ":«` + g3.password() + `»" https://localhost:9200`},
			},
			neg: []credVector{
				{name: "next option", text: "append `--no-password --insecure` to skip the key's password"},
				{name: "variable", text: "DB_PASSWORD=${DB_PASSWORD}"},
				{name: "default", text: "POSTGRES_PASSWORD: changeme"},
				{name: "reference", text: `password = os.environ["DB_PASSWORD"]`},
				{name: "policy", text: "PASSWORD_MIN_LENGTH=12"},
				{name: "word", text: "password: required"},
				{name: "stdin flag", text: `echo "$TOKEN" | docker login -u ci --password-stdin`},
				{name: "code", text: "password = config.db.password"},
				{name: "masked", text: "DB_PASSWORD=********"},
				{name: "netrc placeholder", text: "machine gitlab.acme.internal login oauth2 password <token>"},
				{name: "prose", text: "The password manager keeps a password history per vault."},
				{name: "empty", text: "snowflake.password=\njdbc.snowflake.url=jdbc:snowflake://acme.snowflakecomputing.com"},
				{name: "curl variable", text: `curl -u "$ES_USER:$ES_PASSWORD" https://es.acme.io:9200`},
				{name: "nuget placeholder", text: `<add key="ClearTextPassword" value="%NUGET_PASSWORD%" />`},
				// The example passwords of NuGet's reference (documentedKeys).
				{name: "nuget documented", text: `<add key="ClearTextPassword" value="33f!!` + `lloppa" />`},
				{name: "nuget documented 2", text: `<add key="ClearTextPassword" value="hal+9ooo` + `_da!sY" />`},
			}},

		{rule: "postman_api_key",
			pos: []credVector{
				{name: "env", text: "POSTMAN_API_KEY=«" + pmak + of(credHex, 24) + "-" + of(credHex, 34) + "»",
					also: []string{"secret_assignment"}, why: "the name holds api_key"},
				{name: "header", text: "curl https://api.getpostman.com/collections \\\n  --header 'X-Api-Key: «" + pmak + of(credHex, 24) + "-" + of(credHex, 34) + "»'",
					also: []string{"secret_assignment"}, why: "X-Api-Key: is an api-key name"},
			},
			neg: []credVector{
				{name: "one short", text: "key " + pmak + of(credHex, 24) + "-" + of(credHex, 33)},
				{name: "placeholder", text: "key " + pmak + "<your-key>"},
				{name: "filler", text: "key " + pmak + strings.Repeat("0", 24) + "-" + strings.Repeat("0", 34)},
			}},

		{rule: "private_key",
			pos: []credVector{
				{name: "markdown", text: "Deploy key (read-only):\n\n```\n«" + credPEM("OPENSSH PRIVATE", g.pemBody(6)) + "»\n```\n"},
				{name: "json escaped", text: "{\"type\": \"service_account\", \"private_key\": \"«" + strings.ReplaceAll(credPEM("PRIVATE", g.pemBody(4)), "\n", `\n`) + "»\\n\"}"},
				{name: "rsa", text: "«" + credPEM("RSA PRIVATE", g.pemBody(8)) + "»"},
				// A short body is a key: 78 characters of base64 were saved.
				{name: "short body", text: "«" + credPEM("PRIVATE", of(credB64, 64)+"\n"+of(credB64, 14)+"\n") + "»"},
				{name: "one short line", text: "ssh key:\n«" + credPEM("EC PRIVATE", of(credB64, 20)+"\n") + "»\n"},
				// The start of every OpenSSH key: long runs of A, entropy far
				// under what a random body has.
				{name: "openssh, low entropy", text: "«" + credPEM("OPENSSH PRIVATE", credOpenSSHStart+"\n") + "»"},
				{name: "flattened to one line", text: "PEM=\"«" + strings.ReplaceAll(credPEM("RSA PRIVATE", of(credB64, 64)+"\n"+of(credB64, 40)+"\n"), "\n", " ") + "»\""},
				{name: "pgp with a header", text: "«" + credPEMBlock("PGP PRIVATE KEY BLOCK", "Version: GnuPG v2\n\n"+of(credB64, 64)+"\n"+of(credB64, 30)+"\n="+of(credB64, 4)+"\n") + "»"},
				{name: "encrypted, short", text: "«" + credPEM("RSA PRIVATE", "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,"+of(credHex, 32)+"\n\n"+of(credB64, 44)+"\n") + "»"},
				{name: "yaml block", text: "tls:\n  key: |\n    «" + strings.ReplaceAll(credPEM("EC PRIVATE", of(credB64, 64)+"\n"+of(credB64, 56)+"\n"), "\n", "\n    ") + "»\n"},
				{name: "no end line", text: "pasted half of it:\n«" + credPEMBegin("RSA PRIVATE KEY") + "\n" + of(credB64, 64) + "\n" + of(credB64, 64) + "»\nthe rest is in the vault"},
			},
			neg: []credVector{
				{name: "header in prose", text: "The file must start with `" + strings.Repeat("-", 5) + "BEGIN OPENSSH PRIVATE KEY" + strings.Repeat("-", 5) + "`; if it does not, regenerate it."},
				{name: "public key", text: credPEM("PUBLIC", g.pemBody(4))},
				{name: "elided", text: credPEM("RSA PRIVATE", "...\n")},
				{name: "angle placeholder", text: credPEM("PRIVATE", "<key>\n")},
				{name: "words", text: credPEM("RSA PRIVATE", "your key goes here\n")},
				{name: "header and footer in prose", text: "The file starts with " + credPEMBegin("RSA PRIVATE KEY") + " and ends with " + credPEMEnd("RSA PRIVATE KEY") + ", with base64 between."},
				{name: "truncated in documentation", text: credPEM("PRIVATE", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC...\n")},
				{name: "escaped placeholder in code", text: "Set `GOOGLE_KEY` to `" + strings.ReplaceAll(credPEM("PRIVATE", "...\n"), "\n", `\n`) + "`."},
				{name: "no end line, short", text: credPEMBegin("RSA PRIVATE KEY") + "\nMIIEowIBAAKCAQEA\n(cut here)"},
				{name: "filler", text: credPEM("PRIVATE", strings.Repeat("A", 64)+"\n")},
				{name: "certificate", text: strings.ReplaceAll(credPEM("X", g.pemBody(4)), "X KEY", "CERTIFICATE")},
			}},

		{rule: "pypi_token",
			pos: []credVector{
				{name: "pypirc", text: "[pypi]\n  username = __token__\n  password = «" + pypi + of(credB64URL, 150) + "»\n",
					also: []string{"password_assignment", "pypirc_password"}, why: "the token is the password, in .pypirc's [pypi] section"},
				{name: "uv", text: "uv publish --token «" + pypi + of(credB64URL, 150) + "»",
					also: []string{"secret_assignment"}, why: "--token is a token flag"},
			},
			neg: []credVector{
				{name: "too short", text: "token " + pypi + of(credB64URL, 49)},
				{name: "filler", text: "uv publish --token " + pypi + strings.Repeat("x", 60)},
				{name: "prefix only", text: "PyPI tokens start with " + pypi + "…"},
			}},

		{rule: "secret_assignment",
			pos: []credVector{
				{name: "env", text: "SESSION_SECRET=«" + of(credAlnum, 30) + "9»"},
				{name: "yaml", text: "oauth:\n  client_secret: «" + of(credAlnum, 30) + "7»\n"},
				{name: "json", text: `{"apiKey": "«` + of(credAlnum, 31) + `3»"}`},
				{name: "go", text: "const webhookToken = \"«" + of(credHex, 40) + "»\""},
				{name: "hex", text: "ALGOLIA_ADMIN_API_KEY=«" + of(credHex, 32) + "»"},
				{name: "flag", text: "acme deploy --api-key «" + of(credAlnum, 27) + "5» --env prod"},
				{name: "make ?=", text: "DEPLOY_TOKEN ?= \"«" + of2(credAlnum, 30) + "7»\""},
				{name: "make ::=", text: "deploy_token ::= «" + of2(credAlnum, 30) + "7»"},
				{name: "php .=", text: "$apiToken .= \"«" + of2(credAlnum, 30) + "7»\";"},
				{name: "go var", text: "var sessionToken string = \"«" + of2(credAlnum, 30) + "7»\""},
				{name: "go raw string", text: "apiToken := `«" + of2(credAlnum, 30) + "7»`"},
				{name: "xml element", text: "<settings>\n  <apiToken>\n    «" + of2(credAlnum, 30) + "7»\n  </apiToken>\n</settings>"},
				{name: "java property", text: "System.setProperty(\"ACME_TOKEN\", \"«" + of2(credAlnum, 30) + "7»\");"},
				{name: "header index", text: "headers[\"X-Api-Key\"] = \"«" + of2(credAlnum, 30) + "7»\""},
				{name: "acronym", text: "ETSYToken=«" + of2(credAlnum, 24) + "7»"},
				{name: "uuid", text: "SQUARESPACE_TOKEN ?= \"«8e2dabdb-b4c8-4c82-9b74-2b4d1e8bedbd»\""},
				// Letters only (a Finnhub key) and digits only (a Discord
				// client secret): random, not spelt.
				{name: "letters only", text: "finnhubToken := `«" + of3("bcdfghjklmnpqrstvwxz", 20) + "»`"},
				{name: "upper letters only", text: "FINNHUB_TOKEN=«" + of3("BCDFGHJKLMNPQRSTVWXZ", 20) + "»"},
				{name: "digits only", text: "discord_token: '«" + of3("123456789", 1) + of3(credDigits, 31) + "»'"},
				// In a JSON string the next line follows as \n.
				{name: "json string", text: `{"config.ini": "API_TOKEN=«` + of3(credAlnum, 30) + `7»\nBACKUP_ENABLED=true"}`},
				{name: "creds", text: "creds = «" + of3(credAlnum, 30) + "7»"},
				{name: "private-key", text: "private-key: «" + of3(credAlnum, 40) + "7»"},
			},
			neg: []credVector{
				{name: "placeholder", text: "API_KEY=<your key>"},
				{name: "camel words", text: `token_type = "AgencyIdentificationCodeContentType"`},
				{name: "credentials id", text: "withCredentials([usernamePassword(credentialsId: '" + g2.uuid() + "', usernameVariable: 'USER')])"},
				{name: "public token", text: `publicToken = "` + of2(credAlnum, 30) + `7"`},
				{name: "csrf", text: "csrf-token=" + of2(credB64, 40) + "=="},
				{name: "xml reference", text: "<apiToken>${ACME_TOKEN}</apiToken>"},
				{name: "not an element", text: "apiToken> " + of2(credAlnum, 30) + "7 </b>"},
				{name: "typed runs", text: `api_token = "dapi123456789012345678a9bc01234defg5"`},
				{name: "replace me", text: `token = "REPLACE_ME"`},
				{name: "file", text: "SECRET_KEY_FILE=/run/secrets/django_key"},
				{name: "actions", text: "client_secret: ${{ secrets.CLIENT_SECRET }}"},
				{name: "reference", text: `api_key = os.environ["API_KEY"]`},
				{name: "ttl", text: "TOKEN_TTL=3600s"},
				{name: "word", text: "secret: not-a-real-value-just-words"},
				// Test data of a parser, after gitleaks' false samples.
				{name: "non-matching", text: `nonMatchingToken := "` + of2(credAlnum, 16) + `7"`},
				{name: "invalid", text: `invalid_api_key = "` + of2(credAlnum, 30) + `7"`},
				{name: "fake", text: `fakeSecret: "` + of2(credAlnum, 30) + `7"`},
				// Telegram's shape, not its format (telegram_bot_token's).
				{name: "option key=value", text: "docker service update --secret-add source=" + of2(credAlnum, 14) + "7,target=ssh-key web"},
				{name: "uuid filler", text: "api_token: 12345678-ABCD-ABCD-ABCD-1234567890AB"},
				{name: "telegram shape", text: `telegram_api_token = "8812:A` + of2(credAlnum, 30) + `7"`},
				// The secret word after a preposition: the name of a vault.
				{name: "preposition", text: "  keyVaultToStoreSecrets: cmp2-qat-1208358310"},
				{name: "path to token", text: "pathToToken: " + of3(credAlnum, 30) + "7"},
				// Yarn's bundled search-only key (documentedKeys).
				{name: "documented", text: `{appId:"OFCNCOG2CU",apiKey:"6fe4476ee5a1` + `832882e326b506d14126",indexName:"npm-search"}`},
				{name: "words", text: `tokenizer: "sentencepiecemodelfile"`},
				{name: "timestamp", text: "sessionToken: 17171717" + "17171717171"},
			}},

		{rule: "sendgrid_api_key",
			pos: []credVector{
				{name: "env", text: "SENDGRID_API_KEY=«" + sg + of(credB64URL, 22) + "." + of(credB64URL, 43) + "»",
					also: []string{"secret_assignment"}, why: "the name holds api_key"},
				{name: "python", text: "sg = SendGridAPIClient(\"«" + sg + of(credB64URL, 22) + "." + of(credB64URL, 43) + "»\")"},
			},
			neg: []credVector{
				{name: "one short", text: "key " + sg + of(credB64URL, 22) + "." + of(credB64URL, 42)},
				{name: "placeholder", text: "SENDGRID_API_KEY=" + sg + "<key>"},
				{name: "filler", text: "key " + sg + strings.Repeat("x", 22) + "." + strings.Repeat("x", 43)},
			}},

		{rule: "shopify_token",
			pos: []credVector{
				{name: "header", text: "curl -X POST https://acme.myshopify.com/admin/api/2024-04/graphql.json \\\n  -H 'X-Shopify-Access-Token: «" + shpat + of(credHex, 32) + "»'",
					also: []string{"secret_assignment"}, why: "X-Shopify-Access-Token is a token name"},
				{name: "prose", text: "The app's shared secret is «" + shpss + of(credHex, 32) + "» (partner dashboard)."},
			},
			neg: []credVector{
				{name: "one short", text: "token " + shpat + of(credHex, 31)},
				{name: "placeholder", text: "token " + shpat + "<token>"},
				{name: "filler", text: "token " + shpat + strings.Repeat("0", 32)},
			}},

		{rule: "slack_app_token",
			pos: []credVector{
				{name: "env", text: "SLACK_APP_TOKEN=«" + xapp + "1-A" + of(credUpper+credDigits, 10) + "-" + of(credDigits, 13) + "-" + of(credHex, 64) + "»",
					also: []string{"secret_assignment"}, why: "the name holds token"},
				{name: "prose", text: "Socket mode needs «" + xapp + "1-A" + of(credUpper+credDigits, 10) + "-" + of(credDigits, 13) + "-" + of(credHex, 64) + "» in the bot's env"},
			},
			neg: []credVector{
				{name: "placeholder", text: "SLACK_APP_TOKEN=" + xapp + "<token>"},
				{name: "ellipsis", text: "App-level tokens look like " + xapp + "1-…"},
				{name: "lower case id", text: "token " + xapp + "1-a" + of(credLower, 10) + "-" + of(credDigits, 13) + "-" + of(credHex, 64)},
			}},

		{rule: "slack_bot_token",
			pos: []credVector{
				{name: "python", text: "client = WebClient(token=\"«" + xoxb + of(credDigits, 13) + "-" + of(credDigits, 13) + "-" + of(credAlnum, 24) + "»\")",
					also: []string{"secret_assignment"}, why: "token= is a token name"},
				{name: "sentence", text: "The bot token is «" + xoxb + of(credDigits, 12) + "-" + of(credDigits, 13) + "-" + of(credAlnum, 24) + "»."},
			},
			neg: []credVector{
				{name: "placeholder", text: "SLACK_BOT_TOKEN=" + xoxb + "your-bot-token"},
				{name: "short team id", text: "token " + xoxb + of(credDigits, 9) + "-" + of(credDigits, 13) + "-" + of(credAlnum, 24)},
				{name: "filler", text: "token " + xoxb + strings.Repeat("0", 10) + "-" + strings.Repeat("0", 10) + "-" + strings.Repeat("x", 24)},
			}},

		{rule: "slack_user_token",
			pos: []credVector{
				{name: "user", text: "SLACK_USER=«" + xoxp + of(credDigits, 13) + "-" + of(credDigits, 13) + "-" + of(credDigits, 13) + "-" + of(credHex, 32) + "»"},
				{name: "config access", text: "slack config token: «" + xoxe + ".xoxp-1-" + of(credUpper+credDigits, 164) + "»",
					also: []string{"secret_assignment"}, why: "token: names a token"},
				{name: "config refresh", text: "refresh with «" + xoxe + "-1-" + of(credUpper+credDigits, 146) + "»"},
			},
			neg: []credVector{
				{name: "three parts", text: "token " + xoxp + of(credDigits, 13) + "-" + of(credDigits, 13) + "-" + of(credHex, 32)},
				{name: "placeholder", text: "SLACK_USER_TOKEN=" + xoxp + "your-token"},
				{name: "short config", text: "token " + xoxe + ".xoxp-1-" + of(credUpper+credDigits, 100)},
			}},

		{rule: "slack_webhook_url",
			pos: []credVector{
				{name: "env", text: "SLACK_WEBHOOK_URL=https://«hooks.slack.com/services/T" + of(credUpper+credDigits, 8) + "/B" + of(credUpper+credDigits, 10) + "/" + of(credAlnum, 24) + "»"},
				{name: "curl", text: "curl -X POST -H 'Content-type: application/json' \\\n  --data '{\"text\":\"deployed\"}' \\\n  https://«hooks.slack.com/services/T" + of(credUpper+credDigits, 10) + "/B" + of(credUpper+credDigits, 10) + "/" + of(credAlnum, 24) + "»"},
				{name: "workflow", text: "https://«hooks.slack.com/workflows/T" + of3(credUpper+credDigits, 10) + "/A" + of3(credUpper+credDigits, 10) + "/" + of3(credDigits, 18) + "/" + of3(credAlnum, 24) + "»"},
			},
			neg: []credVector{
				{name: "documentation", text: "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"},
				{name: "placeholder", text: "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/<your-webhook-path>"},
				{name: "short path", text: "https://hooks.slack.com/services/T" + of(credUpper+credDigits, 8) + "/B" + of(credUpper+credDigits, 8)},
			}},

		{rule: "teams_webhook_url",
			pos: []credVector{
				{name: "env", text: "TEAMS_WEBHOOK=https://contoso.«webhook.office.com/webhookb2/" + guid() + "@" + guid() + "/IncomingWebhook/" + of5(credHex, 32) + "/" + guid() + "»"},
				{name: "legacy", text: "url: https://«outlook.office.com/webhook/" + guid() + "@" + guid() + "/IncomingWebhook/" + of5(credHex, 32) + "/" + guid() + "»"},
			},
			neg: []credVector{
				{name: "placeholder", text: "https://contoso.webhook.office.com/webhookb2/<group>@<tenant>/IncomingWebhook/<id>/<owner>"},
				{name: "short", text: "https://outlook.office.com/webhook/xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"},
				{name: "no hook id", text: "https://contoso.webhook.office.com/webhookb2/" + guid() + "@" + guid() + "/IncomingWebhook/"},
			}},

		{rule: "terraform_api_token",
			pos: []credVector{
				{name: "credentials file", text: "credentials \"app.terraform.io\" {\n  token = \"«" + of5(credAlnum, 14) + ".atlasv1." + of5(credAlnum, 67) + "»\"\n}",
					also: []string{"secret_assignment"}, why: "the name is token"},
				{name: "prose", text: "The team token «" + of5(credAlnum, 14) + ".atlasv1." + of5(credAlnum+"-_", 67) + "» was rotated."},
			},
			neg: []credVector{
				{name: "placeholder", text: "TFE_TOKEN=xxxxxxxxxxxxxx.atlasv1.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
				{name: "short", text: "the token looks like abc.atlasv1.def"},
				{name: "documentation sample", text: `"token": "QnbSxjjhVMHJgw` + `.atlasv1.gxZnWIjI5j752DGqdwEUVLOFf0mtyaQ00H9bA1j90qWb254lEkQyOdfqqcq9zZL7Sm0",`},
			}},

		{rule: "maxmind_license_key",
			pos: []credVector{
				{name: "geoipupdate", text: "AccountID 123456\nLicenseKey «" + of5(credAlnum, 6) + "_" + of5(credAlnum+"_", 29) + "_mmk»\nEditionIDs GeoLite2-City"},
				{name: "env", text: "MAXMIND_LICENSE_KEY=«" + of5(credAlnum, 6) + "_" + of5(credAlnum, 29) + "_mmk»"},
			},
			neg: []credVector{
				{name: "placeholder", text: "LicenseKey YOUR_LICENSE_KEY_HERE_mmk"},
				{name: "short", text: "keys end in _mmk, like abc_mmk"},
			}},

		{rule: "square_token",
			pos: []credVector{
				{name: "env", text: "SQUARE_ACCESS_TOKEN=«" + eaaa + of(credB64URL, 60) + "»",
					also: []string{"secret_assignment"}, why: "the name holds token"},
				{name: "app secret", text: "Square application secret: «" + sq0csp + of(credB64URL, 43) + "».",
					also: []string{"secret_assignment"}, why: "secret: names a secret"},
			},
			neg: []credVector{
				{name: "too short", text: "token " + eaaa + of(credB64URL, 21) + " "},
				{name: "placeholder", text: "SQUARE_ACCESS_TOKEN=" + eaaa + "<token>"},
				{name: "filler", text: "token " + eaaa + strings.Repeat("A", 40)},
			}},

		{rule: "azure_ad_client_secret",
			pos: []credVector{
				{name: "env", text: "AZURE_CLIENT_SECRET=«" + of4(credAlnum, 3) + "8" + "Q~" + of4(credAlnum+"_-.~", 33) + of4(credAlnum, 1) + "»",
					also: []string{"secret_assignment"}, why: "the name holds secret"},
				{name: "prose", text: "The app registration's new secret is «" + of4(credAlnum, 3) + "8" + "Q~" + of4(credAlnum+"_-.~", 33) + of4(credAlnum, 1) + "»."},
				{name: "json", text: `{"tenant": "acme", "value": "«` + of4(credAlnum, 3) + "8" + "Q~" + of4(credAlnum+"_-.~", 33) + of4(credAlnum, 1) + `»"}`},
				{name: "earlier format", text: "rotated «" + of4(credAlnum, 3) + "7" + "Q~" + of4(credAlnum+"_-.~", 30) + of4(credAlnum, 1) + "» last week"},
			},
			neg: []credVector{
				{name: "one short", text: "rotated " + of4(credAlnum, 3) + "8" + "Q~" + of4(credAlnum, 33) + " last week"},
				{name: "one long", text: "rotated " + of4(credAlnum, 3) + "8" + "Q~" + of4(credAlnum, 35) + " last week"},
				{name: "earlier digit, current length", text: "rotated " + of4(credAlnum, 3) + "7" + "Q~" + of4(credAlnum, 34) + " last week"},
				{name: "marker too early", text: "rotated " + of4(credAlnum, 2) + "8" + "Q~" + of4(credAlnum, 35) + " last week"},
				{name: "other marker", text: "rotated " + of4(credAlnum, 3) + "8" + "R~" + of4(credAlnum, 34) + " last week"},
				{name: "letter before the marker", text: "rotated " + of4(credAlnum, 3) + "x" + "Q~" + of4(credAlnum, 34) + " last week"},
				{name: "filler", text: "AZURE_CLIENT_SECRET=" + "abc8" + "Q~" + strings.Repeat("x", 34)},
				{name: "inside a longer token", text: "blob " + of4(credAlnum, 6) + "." + of4(credAlnum, 3) + "8" + "Q~" + of4(credAlnum, 34)},
				{name: "prose", text: "Secrets made since 2021 carry Q~ after the fourth character; the hint shows the first three."},
			}},

		{rule: "kubernetes_secret",
			pos: []credVector{
				{name: "data after kind", text: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  dsn: «" + base64.StdEncoding.EncodeToString([]byte(g2.password())) + "»\n"},
				{name: "data before kind", text: "apiVersion: v1\ndata:\n  blob: «" + base64.StdEncoding.EncodeToString([]byte(of2(credAlnum, 24))) + "»\nkind: Secret\nmetadata:\n  name: api\n"},
				{name: "string data", text: "kind: Secret\nstringData:\n  conn: «" + of2(credAlnum, 20) + "7»\n"},
				{name: "after a comment", text: "kind: Secret\ndata:\n  # base64 of the password\n  key: «" + base64.StdEncoding.EncodeToString([]byte(g4.password())) + "»\n"},
				{name: "block scalar", text: "kind: Secret\ndata:\n  .dockercfg: >\n    «" + base64.StdEncoding.EncodeToString([]byte(`{"auths":{"registry.acme.io":{"auth":"`+of2(credB64, 24)+`"}}}`)) + "»\n"},
			},
			neg: []credVector{
				{name: "template", text: "kind: Secret\ndata:\n  password: {{ .Values.dbPassword | b64enc }}\n"},
				{name: "config map", text: "kind: ConfigMap\ndata:\n  greeting: " + base64.StdEncoding.EncodeToString([]byte("hello there, world")) + "\n"},
				{name: "short", text: "kind: Secret\ndata:\n  extra: " + base64.StdEncoding.EncodeToString([]byte("bar\n")) + "\n"},
				{name: "other document", text: "kind: Secret\nmetadata:\n  name: empty\n---\nkind: ConfigMap\ndata:\n  key: " + base64.StdEncoding.EncodeToString([]byte("some value here")) + "\n"},
			}},

		{rule: "vendor_token",
			pos: []credVector{
				{name: "pulumi", text: "export PULUMI_ACCESS_TOKEN=«" + "pu" + "l-" + of2(credHex, 40) + "»",
					also: []string{"secret_assignment"}, why: "the name holds token"},
				{name: "rubygems", text: "~/.gem/credentials:\n:rubygems_api_key: «" + "rubygems" + "_" + of2(credHex, 48) + "»",
					also: []string{"secret_assignment"}, why: "the name holds api_key"},
				{name: "sentry", text: "Sentry auth for the release job: «" + "sntr" + "yu_" + of2(credHex, 64) + "»"},
				{name: "planetscale", text: "The branch password is «" + "pscale" + "_pw_" + of2(credB64URL, 43) + "»."},
				{name: "brevo", text: "brevo «" + "xkey" + "sib-" + of2(credHex, 64) + "-" + of2(credAlnum, 16) + "»"},
				{name: "perplexity", text: "pplx key «" + "pp" + "lx-" + of2(credAlnum, 48) + "»"},
				{name: "notion", text: "Notion integration secret: «" + "nt" + "n_" + of2(credDigits, 11) + of2(credAlnum, 35) + "»",
					also: []string{"secret_assignment"}, why: "\"secret:\" assigns a secret"},
				{name: "openshift", text: "oc login --token=«" + "sha256" + "~" + of2(credB64URL, 43) + "» --server=https://api.acme.io:6443",
					also: []string{"secret_assignment"}, why: "--token= assigns a token"},
				{name: "grafana", text: "grafana key «" + "eyJrIjoi" + of2(credAlnum, 80) + "»"},
				{name: "duffel test mode", text: "«" + "duffel" + "_test_" + of2(credB64URL, 43) + "»"},
				{name: "flutterwave test mode", text: "«" + "FLWSECK" + "_TEST-" + of2(credHex, 32) + "-X»"},
				{name: "base64 jwt", text: "auth: «" + base64.StdEncoding.EncodeToString([]byte(jwt)) + "»"},
				// Ids in digits that may repeat, then the secret in hex.
				{name: "slack legacy workspace", text: "legacy app «" + "xo" + "xa-2-" + of3(credDigits, 9) + "-" + of3(credDigits, 11) + "-" + of3(credDigits, 13) + "-" + of3(credHex, 18) + "»"},
				{name: "slack legacy repeated ids", text: "legacy app «" + "xo" + "xa-2-511111111-31111111111-3111111111111-" + of3(credHex, 18) + "»"},
				{name: "adobe", text: "Adobe I/O client secret «" + "p8" + "e-" + of3(credAlnum, 32) + "»"},
				{name: "sonarqube user", text: "sonar-scanner -Dsonar.host.url=https://sonar.acme.io -Dsonar.login=«" + "sq" + "u_" + of4(credHex, 40) + "»"},
				{name: "sonarqube project", text: "The CI job analyses with «" + "sq" + "p_" + of4(credHex, 40) + "»."},
				{name: "hubspot", text: "crm sync: «" + "pat" + "-na1-" + g4.uuid() + "»"},
				{name: "hubspot eu", text: "curl -H 'Authorization: Bearer «" + "pat" + "-eu1-" + g4.uuid() + "»' https://api.hubapi.com/crm/v3/objects/contacts",
					also: []string{"bearer_token"}, why: "a Bearer token in an Authorization header"},
				{name: "jfrog reference", text: "jf c add --access-token «" + "cmV" + "md" + of4(credAlnum, 59) + "»",
					also: []string{"secret_assignment"}, why: "--access-token takes a token"},
			},
			neg: []credVector{
				{name: "one short", text: "token " + "pu" + "l-" + of2(credHex, 39)},
				{name: "filler", text: "token " + "sntr" + "yu_" + strings.Repeat("0", 64)},
				{name: "slack legacy filler", text: "legacy app " + "xo" + "xa-2-511111111-31111111111-3111111111111-" + strings.Repeat("0", 18)},
				{name: "adobe short", text: "secret " + "p8" + "e-" + of3(credAlnum, 31)},
				{name: "placeholder", text: "NOTION_TOKEN=" + "nt" + "n_<your token>"},
				{name: "base64 prose", text: "auth: " + base64.StdEncoding.EncodeToString([]byte("eyJ is how every JSON object starts in base64url, and more words follow"))},
				{name: "sonarqube not hex", text: "sonar " + "sq" + "u_" + of4(credAlnum, 40)},
				{name: "sonarqube one short", text: "sonar " + "sq" + "p_" + of4(credHex, 39)},
				{name: "hubspot no data centre", text: "hubspot " + "pat" + "-" + g4.uuid()},
				{name: "hubspot placeholder", text: "HUBSPOT_TOKEN=" + "pat" + "-na1-" + "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"},
				{name: "jfrog one short", text: "artifactory " + "cmV" + "md" + of4(credAlnum, 58)},
				{name: "jfrog inside base64", text: "blob " + of4(credB64, 20) + "cmV" + "md" + of4(credAlnum, 59)},
			}},

		{rule: "stripe_key",
			pos: []credVector{
				{name: "env", text: "STRIPE_SECRET_KEY=«" + skLive + "51" + of(credAlnum, 97) + "»",
					also: []string{"secret_assignment"}, why: "the name holds secret"},
				{name: "curl", text: "curl https://api.stripe.com/v1/charges \\\n  -u «" + skTest + of(credAlnum, 24) + "»: \\\n  -d amount=2000"},
				{name: "restricted", text: "The reporting job uses the restricted key «" + rkTest + of(credAlnum, 24) + "»."},
			},
			neg: []credVector{
				{name: "prefix only", text: "Stripe keys: test keys start with `" + skTest + "`, live keys with `" + skLive + "`."},
				{name: "filler", text: "STRIPE_KEY=" + skTest + strings.Repeat("x", 24)},
				{name: "placeholder", text: "STRIPE_KEY=" + skLive + "<your_key>"},
				{name: "documentation", text: "Stripe's docs use " + skTest + "4eC39HqLyjWD" + "arjtT1zdp7dc in every example."},
				{name: "publishable", text: "STRIPE_PUBLISHABLE=" + "pk_" + "live_" + of(credAlnum, 24)},
			}},

		{rule: "stripe_webhook_secret",
			pos: []credVector{
				{name: "stripe listen", text: "> Ready! Your webhook signing secret is «" + whsec + of(credAlnum, 32) + "» (^C to quit)"},
				{name: "env", text: "STRIPE_WEBHOOK_SECRET=«" + whsec + of(credAlnum, 32) + "»",
					also: []string{"secret_assignment"}, why: "the name holds secret"},
			},
			neg: []credVector{
				{name: "ellipsis", text: "The webhook signing secret (`" + whsec + "...` in Stripe's dashboard) differs per endpoint."},
				{name: "one short", text: "secret " + whsec + of(credAlnum, 31)},
				{name: "filler", text: "secret " + whsec + strings.Repeat("x", 32)},
			}},

		{rule: "telegram_bot_token",
			pos: []credVector{
				{name: "env", text: "TELEGRAM_BOT_TOKEN=«" + of("123456789", 1) + of(credDigits, 8) + ":AA" + of(credB64URL, 33) + "»",
					also: []string{"secret_assignment"}, why: "the name holds token"},
				{name: "url", text: "curl https://api.telegram.org/bot«" + of("123456789", 1) + of(credDigits, 9) + ":AA" + of(credB64URL, 33) + "»/getMe"},
				{name: "prose", text: "BotFather gave «" + of("123456789", 1) + of(credDigits, 7) + ":AA" + of(credB64URL, 33) + "»"},
				// gitleaks' format: A and 34 more, where the line names
				// telegram.
				{name: "named line", text: "telegram bot: «" + of3("123456789", 1) + of3(credDigits, 7) + ":A" + of3(credLower+credDigits, 34) + "»"},
				{name: "json config", text: `{"config.ini": "TELEGRAM_TOKEN=«` + of3("123456789", 1) + of3(credDigits, 4) + ":A" + of3(credLower+credDigits+"-_", 34) + `»\nBACKUP_ENABLED=true"}`,
					also: []string{"secret_assignment"}, why: "the name holds token"},
			},
			neg: []credVector{
				{name: "placeholder", text: "TELEGRAM_BOT_TOKEN=<bot-token>"},
				{name: "short id", text: "bot " + of(credDigits, 7) + ":AA" + of(credB64URL, 33)},
				{name: "short secret", text: "bot " + of(credDigits, 9) + ":AA" + of(credB64URL, 32) + " "},
				{name: "not AA", text: "bot " + of(credDigits, 9) + ":AB" + of(credB64URL, 33)},
				{name: "named, short id", text: "telegram bot: 5443:A" + of3(credLower+credDigits, 34)},
				{name: "named, one long", text: "telegram bot: " + of3(credDigits, 8) + ":A" + of3(credLower+credDigits, 35)},
			}},

		{rule: "twilio_api_key",
			pos: []credVector{
				{name: "env", text: "TWILIO_API_KEY=«" + sk + of(credHex, 32) + "»",
					also: []string{"secret_assignment"}, why: "the name holds api_key"},
				{name: "python", text: "client = Client(\"«" + sk + of(credHex, 32) + "»\", api_secret, account_sid)"},
			},
			neg: []credVector{
				{name: "one short", text: "key " + sk + of(credHex, 31)},
				{name: "not hex", text: "key " + sk + of(credLower, 32)},
				{name: "digits only", text: "key " + sk + of(credDigits, 32)},
			}},

		{rule: "twilio_auth_token",
			pos: []credVector{
				{name: "curl", text: "curl -X POST https://api.twilio.com/2010-04-01/Accounts/" + twilioSID + "/Messages.json \\\n  -u " + twilioSID + ":«" + of(credHex, 32) + "»",
					also: []string{"password_assignment"}, why: "curl -u takes user:password"},
				{name: "env", text: "TWILIO_ACCOUNT_SID=" + ac + of(credHex, 32) + "\nTWILIO_AUTH_TOKEN=«" + of(credHex, 32) + "»\n",
					also: []string{"secret_assignment"}, why: "the name holds token"},
				{name: "url", text: "https://" + twilioSID + ":«" + of(credHex, 32) + "»@api.twilio.com/2010-04-01/Accounts",
					also: []string{"url_credentials"}, why: "the token is the password of the URL"},
			},
			neg: []credVector{
				{name: "placeholder", text: "TWILIO_AUTH_TOKEN=your_auth_token"},
				{name: "sid only", text: "TWILIO_ACCOUNT_SID=" + ac + of(credHex, 32)},
				{name: "one short", text: "TWILIO_AUTH_TOKEN=" + of(credHex, 31),
					also: []string{"secret_assignment"}, why: "a random value under a token name is still a secret, of unknown kind"},
			}},

		{rule: "url_credentials",
			pos: []credVector{
				{name: "git remote", text: "git remote set-url origin https://deploy:«" + urlPass + "»@git.acme.io/infra.git"},
				{name: "pip index", text: "pip install --index-url https://__token__:«" + urlPass + "»@pypi.acme.io/simple acme-sdk"},
				{name: "proxy env", text: "HTTPS_PROXY=http://svc-proxy:«" + urlPass + "»@proxy.acme.internal:3128"},
				{name: "yaml ftp", text: "backup:\n  target: ftp://backup:«" + urlPass + "»@files.acme.io/nightly\n"},
			},
			neg: []credVector{
				{name: "placeholder", text: "https://user:password@example.com/api"},
				{name: "variables", text: "https://${GIT_USER}:${GIT_TOKEN}@github.com/acme/app.git"},
				{name: "same as user", text: "http://admin:admin@localhost:8080/"},
				{name: "database", text: "postgres://app:" + dbPass + "@db:5432/app",
					also: []string{"database_url"}, why: "database schemes belong to database_url"},
				{name: "at in path", text: "https://example.com/a:b/c@d"},
				{name: "word", text: "Clone with https://oauth2:token@gitlab.acme.io/infra.git, where token is your PAT."},
			}},

		{rule: "vault_token",
			pos: []credVector{
				{name: "env", text: "VAULT_ADDR=https://vault.acme.io\nVAULT_TOKEN=«" + hvs + "CAESI" + of(credB64URL, 86) + "»\n",
					also: []string{"secret_assignment"}, why: "the name holds token"},
				{name: "sentence", text: "Log in with «" + hvs + "CAESI" + of(credB64URL, 86) + "»."},
				{name: "batch", text: "vault login «" + hvb + "AAAAAQ" + of(credB64URL, 140) + "»"},
			},
			neg: []credVector{
				{name: "too short", text: "token " + hvs + of(credB64URL, 89)},
				{name: "placeholder", text: "VAULT_TOKEN=" + hvs + "<token>"},
				{name: "filler", text: "VAULT_TOKEN=" + hvs + strings.Repeat("x", 90)},
			}},
	}, configCredentialCases(g)...)
}

// credSplitMarked removes the « » markers from a vector and returns the span
// they enclosed (-1, -1 without markers).
func credSplitMarked(t *testing.T, v string) (text string, start, end int) {
	t.Helper()
	i, j := strings.Index(v, "«"), strings.Index(v, "»")
	if i < 0 && j < 0 {
		return v, -1, -1
	}
	if i < 0 || j < i || strings.Count(v, "«") != 1 || strings.Count(v, "»") != 1 {
		t.Fatalf("vector %q: want one « before one »", v)
	}
	text = v[:i] + v[i+len("«"):j] + v[j+len("»"):]
	return text, i, j - len("«")
}

// credLine is the 1-based line of offset i.
func credLine(text string, i int) int { return 1 + strings.Count(text[:i], "\n") }

// credOtherRules lists the distinct rules of fs other than skip, sorted.
func credOtherRules(fs []Finding, skip string) []string {
	var out []string
	for _, f := range fs {
		if f.Rule != skip && !slices.Contains(out, f.Rule) {
			out = append(out, f.Rule)
		}
	}
	slices.Sort(out)
	return out
}

func credFindingsOf(fs []Finding, rule string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

func credOnly(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Category == CategoryCredential {
			out = append(out, f)
		}
	}
	return out
}

// checkCredVector runs one vector: the rule's findings, the other rules that
// fire, and ScanCredentials against Scan.
func checkCredVector(t *testing.T, rule string, v credVector, positive bool) {
	t.Helper()
	text, start, end := credSplitMarked(t, v.text)
	if positive != (start >= 0) {
		t.Fatalf("a positive vector needs « » around its secret and a negative none: %q", v.text)
	}
	if len(v.also) > 0 && v.why == "" {
		t.Fatalf("vector names other rules (%v) without saying why", v.also)
	}
	all := Scan(text)

	var want []Finding
	if positive {
		want = []Finding{{Rule: rule, Category: CategoryCredential, Start: start, End: end, Line: credLine(text, start)}}
	}
	if diff := cmp.Diff(credFindingsOf(all, rule), want); diff != "" {
		t.Errorf("%s findings (-got +want):\n%s\ntext: %q", rule, diff, text)
	}

	var wantOthers []string
	for _, r := range v.also {
		wantOthers = append(wantOthers, "credential."+r)
	}
	slices.Sort(wantOthers)
	if diff := cmp.Diff(credOtherRules(all, rule), wantOthers); diff != "" {
		t.Errorf("other rules (-got +want):\n%s\ntext: %q", diff, text)
	}

	if diff := cmp.Diff(ScanCredentials(text), credOnly(all)); diff != "" {
		t.Errorf("ScanCredentials disagrees with Scan (-ScanCredentials +Scan):\n%s", diff)
	}
}

// TestCredentialRules runs every vector of every credential rule: each
// positive yields one finding of its rule over exactly the marked secret, on
// the right line; no negative yields any.
func TestCredentialRules(t *testing.T) {
	for _, c := range credentialCases(0) {
		rule := "credential." + c.rule
		t.Run(c.rule, func(t *testing.T) {
			for _, v := range c.pos {
				t.Run("pos/"+v.name, func(t *testing.T) { checkCredVector(t, rule, v, true) })
			}
			for _, v := range c.neg {
				t.Run("neg/"+v.name, func(t *testing.T) { checkCredVector(t, rule, v, false) })
			}
		})
	}
}

// TestCredentialRulesOtherSecrets runs the table again with other fake
// secrets: a rule whose checks reject some real keys by chance (a word such
// as "foo" inside a random string read as a placeholder, a missing digit)
// fails here even when the first round passes.
func TestCredentialRulesOtherSecrets(t *testing.T) {
	const rounds = 200
	if testing.Short() {
		t.Skip("runs the table 200 times")
	}
	failed := map[string]int{}
	for round := uint64(1); round <= rounds; round++ {
		for _, c := range credentialCases(round) {
			rule := "credential." + c.rule
			for _, v := range c.pos {
				text, start, end := credSplitMarked(t, v.text)
				want := []Finding{{Rule: rule, Category: CategoryCredential, Start: start, End: end, Line: credLine(text, start)}}
				if !cmp.Equal(credFindingsOf(Scan(text), rule), want) {
					if failed[c.rule+"/"+v.name]++; failed[c.rule+"/"+v.name] == 1 {
						t.Errorf("%s/pos/%s: round %d missed %q", c.rule, v.name, round, text[start:end])
					}
				}
			}
			for _, v := range c.neg {
				text, _, _ := credSplitMarked(t, v.text)
				if fs := credFindingsOf(Scan(text), rule); len(fs) > 0 {
					if failed[c.rule+"/"+v.name]++; failed[c.rule+"/"+v.name] == 1 {
						t.Errorf("%s/neg/%s: round %d fired on %q", c.rule, v.name, round, text)
					}
				}
			}
		}
	}
	for k, n := range failed {
		t.Logf("%s failed in %d of %d rounds", k, n, rounds)
	}
}

// TestCredentialValueChecks pins the value tests the rules share: a long
// random key must not read as a placeholder because a short word turns up in
// it by chance, and a key drawn from a small alphabet is random enough.
func TestCredentialValueChecks(t *testing.T) {
	tests := []struct {
		v                                 string
		placeholder, filler, randomEnough bool
	}{
		{v: "your_api_key_here", placeholder: true, filler: false, randomEnough: true},
		{v: "YOUR-TOKEN", placeholder: true, filler: false, randomEnough: true},
		{v: "test1234", placeholder: true, filler: true, randomEnough: true},
		{v: "abcd1234abcd1234", placeholder: true, filler: false, randomEnough: true},
		{v: "1234567890abcdef", placeholder: true, filler: false, randomEnough: true},
		{v: "xxxxxxxxxxxxxxxxxxxx", placeholder: true, filler: true, randomEnough: false},
		{v: "${API_TOKEN}", placeholder: true, filler: false, randomEnough: true},
		// Random keys holding a short placeholder word inside.
		{v: "kQ7fooZr2LmX9vB4nT6wYc1HdJ0sPe3A", placeholder: false, filler: false, randomEnough: true},
		{v: "8f2a9c" + "abcd" + "e71b04d3f5a69c2e8b1d7f40", placeholder: false, filler: false, randomEnough: true},
		// 32 random hex digits of entropy 3.38, under 3.5 bits as one in five are.
		{v: "8c391dc9aa399d0c48282c619c3d8347", placeholder: false, filler: false, randomEnough: true},
		{v: "a1b1c1d1a1b1c1d1", placeholder: true, filler: true, randomEnough: false},
	}
	for _, tt := range tests {
		t.Run(tt.v, func(t *testing.T) {
			if got := isPlaceholder(tt.v); got != tt.placeholder {
				t.Errorf("isPlaceholder = %v, want %v", got, tt.placeholder)
			}
			if got := isFiller(tt.v); got != tt.filler {
				t.Errorf("isFiller = %v, want %v (entropy %.2f)", got, tt.filler, entropy(tt.v))
			}
			if got := randomEnough(tt.v, 3.5); got != tt.randomEnough {
				t.Errorf("randomEnough(3.5) = %v, want %v (entropy %.2f)", got, tt.randomEnough, entropy(tt.v))
			}
		})
	}
}

// TestBech32Valid checks the checksum against BIP-173's test vectors.
func TestBech32Valid(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"A12UEL5L", true},
		{"a12uel5l", true},
		{"abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw", true},
		{"11" + strings.Repeat("q", 82) + "c8247j", true},
		{"split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w", true},
		{"split1checkupstagehandshakeupstreamerranterredcaperred2y9e2w", false}, // one character changed
		{"pzry9x0s0muk", false},  // no separator
		{"1pzry9x0s0muk", false}, // empty human-readable part
		{"x1b4n0q5v", false},     // b is not in the alphabet
		{"li1dgmt3", false},      // checksum too short
		{"A1G7SGD8", false},      // checksum computed with the upper-case part
	}
	for _, tt := range tests {
		if got := bech32Valid(tt.s); got != tt.want {
			t.Errorf("bech32Valid(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

// TestCredentialVectorsComplete fails when a credential rule has fewer than
// two positive and two negative vectors, or the table names a rule that does
// not exist: a rule added without vectors breaks the build.
func TestCredentialVectorsComplete(t *testing.T) {
	cases := map[string]credCase{}
	for _, c := range credentialCases(0) {
		if _, dup := cases[c.rule]; dup {
			t.Errorf("rule %s has two entries in the table", c.rule)
		}
		cases[c.rule] = c
	}
	known := map[string]bool{}
	for _, r := range Rules() {
		if r.Category != CategoryCredential {
			continue
		}
		name := strings.TrimPrefix(r.ID, "credential.")
		known[name] = true
		c := cases[name]
		if len(c.pos) < 2 || len(c.neg) < 2 {
			t.Errorf("%s has %d positive and %d negative vectors, want at least 2 of each", r.ID, len(c.pos), len(c.neg))
		}
	}
	for name := range cases {
		if !known[name] {
			t.Errorf("the table has vectors for credential.%s, which is not a rule", name)
		}
	}
	if len(known) < 50 {
		t.Errorf("Rules() lists %d credential rules, want at least 50", len(known))
	}
}

// TestCredentialSourceIsClean scans this file, and the rules' files that
// name the keys vendors publish, with the credential rules: fake secrets are
// assembled at run time and published keys are split, so none may appear
// whole in the source, where a push-protection scanner would refuse it.
func TestCredentialSourceIsClean(t *testing.T) {
	for _, name := range []string{"credentials_test.go", "credentials.go", "validate.go"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		for _, f := range ScanCredentials(src) {
			t.Errorf("%s holds what looks like a secret: %s %q", name, f, src[f.Start:f.End])
		}
	}
}

// TestNameThen checks the cheap test the assignment forms make before
// their expression: the key's name must be followed by what can open an
// assignment (or an XML element's >), and prose is turned away.
func TestNameThen(t *testing.T) {
	assignNext, elementNext := nameThen("\"'`:=?| \t\n\r\f\v"), nameThen(">")
	for _, c := range []struct {
		text            string
		assign, element bool
	}{
		{"API_TOKEN=abc", true, false},
		{"token: abc", true, false},
		{`"token": "abc"`, true, false},
		{"token .= 'abc'", true, false},
		{"token.='abc'", true, false},
		{"TOKEN ?= abc", true, false},
		{"token ||= abc", true, false},
		{"var token string = `abc`", true, false},
		{"token>abc</token>", false, true},
		{"tokens,", false, false},
		{"token-based auth", true, false}, // a blank follows: the expression decides
		{"token)", false, false},
		{"token", false, false},
	} {
		if got := assignNext(c.text, 0); got != c.assign {
			t.Errorf("assign pre(%q) = %v, want %v", c.text, got, c.assign)
		}
		if got := elementNext(c.text, 0); got != c.element {
			t.Errorf("element pre(%q) = %v, want %v", c.text, got, c.element)
		}
	}
}
