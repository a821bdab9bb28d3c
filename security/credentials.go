package security

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Credential rules. Many shapes come from gitleaks (MIT, see NOTICE), rewritten
// for Go's regexp package and this table: anthropic_api_key, openai_api_key,
// aws_access_key_id, github_*, gitlab_token, slack_*, google_api_key,
// google_oauth_client_secret, stripe_key, twilio_api_key, sendgrid_api_key,
// npm_token, pypi_token, huggingface_token, jwt, digitalocean_token,
// shopify_token, mailgun_api_key, discord_webhook_url, telegram_bot_token,
// heroku_api_key, square_token, atlassian_api_token, linear_api_key,
// doppler_token, vault_token, cloudflare_api_token, age_secret_key,
// postman_api_key, databricks_token, grafana_token, groq_api_key, the
// prefixes of vendor_token (vendors.go) and the manifests of
// kubernetes_secret; the assignment operators (Make's ?= and ::=, PHP's .=,
// a quoted name and a comma) follow gitleaks' generic rule. The routable
// GitLab tokens (glpat-….01.…) follow the shape GitLab publishes in its own
// secret-detection rules, and azure_ad_client_secret the format Microsoft
// publishes in its own (gitleaks keys on the same Q~ marker). The assignment, header, URL and private-key rules,
// and every check, are cortex's.

// cred builds a credential rule matched against the original text, bounded by
// non-alphanumeric bytes. Its check drops filler typed in the key's shape
// (ghp_xxxx…); rules with a check of their own replace it.
func cred(name, desc string, triggers []string, pattern string) *rule {
	return &rule{
		id:       "credential." + name,
		category: CategoryCredential,
		desc:     desc,
		triggers: triggers,
		pattern:  pattern,
		before:   notAlnum,
		after:    notAlnum,
		check:    notFiller,
	}
}

// credForms builds a credential rule of several forms (see form).
func credForms(name, desc string, forms ...form) *rule {
	r := cred(name, desc, nil, "")
	r.forms = forms
	return r
}

// assign is the gap between a key's name and its value in code and config:
// `: `, `=`, `:=`, `=>`, Make's `?=`, `::=` and `:::=`, PHP's `.=`, `||=`,
// with optional quotes around the name, and the comma or closing bracket of
// a call or an index with the name quoted (System.setProperty("TOKEN", …),
// headers["X-Api-Key"] = …). A Go declaration may put the type between
// (var token string = …).
const assign = `(?:["'\x60]?[ \t]*(?::{1,3}=|=>|\?=|\.=|\|\|=|=|:)|["']\s*(?:,|\]\s*=|\)\s*=)|\s+(?:string|str|String|&str)\s*=)[ \t]*`

func credentialRules() []*rule {
	rules := []*rule{
		// The keys end in AA, as gitleaks' rule has it: its false sample
		// ending in BB is a typed one.
		cred("anthropic_api_key", "Anthropic API key (sk-ant-api03-…AA, sk-ant-admin01-…AA)",
			[]string{"sk-ant-"}, `sk-ant-[a-z]{3,6}\d{2}-[A-Za-z0-9_-]{78,118}AA`),
		cred("openai_api_key", "OpenAI API key (sk-proj-…, sk-svcacct-…, sk-admin-…, legacy sk-… with the T3BlbkFJ marker or 48 characters)",
			[]string{"sk-"}, `sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{48})`),
		cred("aws_access_key_id", "AWS access key ID (AKIA…, ASIA…, ABIA…, ACCA…); the documentation's …EXAMPLE keys are exempt",
			[]string{"akia", "asia", "abia", "acca", "a3t"}, `(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}`),
		cred("aws_secret_access_key", "AWS secret access key assigned to aws_secret_access_key or a similar name",
			[]string{"aws_secret", "awssecret", "secret_access_key", "secretaccesskey", "aws-secret"},
			`[\w.-]*(?:aws_?secret|secret_?access)_?(?:access_?)?key[\w.-]*`+assign+`["']?([a-z0-9/+]{40})(?:[^a-z0-9/+=]|$)`),
		cred("github_pat", "GitHub personal access token (ghp_…)", []string{"ghp_"}, `ghp_[A-Za-z0-9]{36}`),
		cred("github_oauth_token", "GitHub OAuth access token (gho_…)", []string{"gho_"}, `gho_[A-Za-z0-9]{36}`),
		cred("github_app_token", "GitHub App user-to-server or server-to-server token (ghu_…, ghs_…)", []string{"ghu_", "ghs_"}, `gh[us]_[A-Za-z0-9]{36}`),
		cred("github_refresh_token", "GitHub refresh token (ghr_…)", []string{"ghr_"}, `ghr_[A-Za-z0-9]{36}`),
		cred("github_fine_grained_pat", "GitHub fine-grained personal access token (github_pat_…)", []string{"github_pat_"}, `github_pat_[A-Za-z0-9_]{82}`),
		cred("gitlab_token", "GitLab token (glpat-, glptt-, gldt-, glrt-, glcbt-, gloas-, glsoat-, glft-, glimt-, glagent-), routable ones (….01.…) included",
			[]string{"glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "gloas-", "glsoat-", "glft-", "glimt-", "glagent-"},
			`gl(?:pat|ptt|dt|rt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}(?:\.[0-9a-z]{2}(?:\.[0-9a-z]{9}|[0-9a-z]{7}))?`),
		cred("slack_bot_token", "Slack bot token (xoxb-…)", []string{"xoxb-"}, `xoxb-[0-9]{10,13}-[0-9]{10,13}[A-Za-z0-9-]*`),
		cred("slack_user_token", "Slack user or configuration token (xoxp-…, xoxe.xoxp-…, xoxe-1-…)", []string{"xoxp-", "xoxe-", "xoxe."},
			`xox[pe](?:-[0-9]{10,13}){3}-[A-Za-z0-9-]{28,34}|xoxe\.xox[bp]-\d-[A-Z0-9]{163,166}|xoxe-\d-[A-Z0-9]{146}`),
		cred("slack_app_token", "Slack app-level token (xapp-…)", []string{"xapp-"}, `xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+`),
		cred("slack_webhook_url", "Slack incoming-webhook or workflow URL", []string{"hooks.slack.com/"},
			`(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,120}`),
		// Microsoft Teams incoming webhooks, in the shape Microsoft's
		// documentation gives: the team's group id @ the tenant's id,
		// IncomingWebhook, 32 hex digits and the owner's id (and the legacy
		// outlook.office.com/webhook/ host). The subdomain names the
		// organisation; the secret is the path.
		cred("teams_webhook_url", "Microsoft Teams incoming-webhook URL (….webhook.office.com/webhookb2/…/IncomingWebhook/…)",
			[]string{"webhook.office.com/webhook", "outlook.office.com/webhook/"},
			`(?:webhook\.office\.com/webhookb2|outlook\.office\.com/webhook)/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}@[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/IncomingWebhook/[0-9a-fA-F]{32}/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?:/[A-Za-z0-9_-]{20,})?`),
		// HCP Terraform (Terraform Cloud) and Terraform Enterprise API
		// tokens, as HashiCorp's API documentation shows them: 14 letters
		// and digits, .atlasv1. and about 67 more.
		cred("terraform_api_token", "HCP Terraform / Terraform Enterprise API token (….atlasv1.…)",
			[]string{".atlasv1."}, `[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}`),
		// MaxMind license keys in the format MaxMind announced in 2023:
		// 40 characters of [A-Za-z0-9_] ending in _mmk.
		cred("maxmind_license_key", "MaxMind license key (40 characters ending in _mmk)",
			[]string{"_mmk"}, `[A-Za-z0-9_]{36}_mmk`),
		cred("google_api_key", "Google API key (AIza…); the example keys of Firebase's SDK are exempt", []string{"aiza"}, `AIza[0-9A-Za-z_-]{35}`),
		cred("google_oauth_client_secret", "Google OAuth client secret (GOCSPX-…)", []string{"gocspx-"}, `GOCSPX-[A-Za-z0-9_-]{28}`),
		cred("google_oauth_token", "Google OAuth access token (ya29.…, ya29.c.…)", []string{"ya29."}, `ya29\.(?:[0-9A-Za-z]{1,4}\.)?[0-9A-Za-z_-]{30,}`),
		cred("stripe_key", "Stripe secret or restricted key, live or test (sk_live_…, rk_test_…)",
			[]string{"sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_"}, `[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,99}`),
		cred("stripe_webhook_secret", "Stripe webhook signing secret (whsec_…)", []string{"whsec_"}, `whsec_[A-Za-z0-9]{32,}`),
		cred("twilio_api_key", "Twilio API key SID (SK + 32 hex)", []string{"sk"}, `SK[0-9a-fA-F]{32}`),
		cred("twilio_auth_token", "Twilio auth token: after an account SID (AC…:token) or assigned to a twilio…token name",
			[]string{"ac", "twilio"}, `AC[0-9a-f]{32}:([0-9a-f]{32})|(?i:twilio[\w.-]*(?:auth)?_?token[\w.-]*)`+assign+`["']?([0-9a-f]{32})`),
		cred("sendgrid_api_key", "SendGrid API key (SG.….…)", []string{"sg."}, `SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}`),
		cred("npm_token", "npm access token (npm_…)", []string{"npm_"}, `npm_[A-Za-z0-9]{36}`),
		cred("pypi_token", "PyPI upload token (pypi-AgEIcHlwaS5vcmc…)", []string{"pypi-ageichlwas5vcmc"}, `pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`),
		cred("huggingface_token", "Hugging Face access token (hf_…, api_org_…)", []string{"hf_", "api_org_"}, `(?:hf|api_org)_[A-Za-z0-9]{34}`),
		cred("jwt", "JSON Web Token: three base64url parts whose header decodes to JSON with \"alg\"", []string{"eyj"},
			`eyJ[A-Za-z0-9_-]{10,}={0,2}\.[A-Za-z0-9_-]{10,}={0,2}\.[A-Za-z0-9_-]*={0,2}`),
		cred("bearer_token", "bearer token, or a token of another scheme (Token, ApiKey, none), in an Authorization header", []string{"authorization"},
			`authorization["']?\s*[:=]\s*["']?(?:(?:bearer|token|apikey|api-key|api-token|key|sso-key|otp|jwt)\s+)?([a-z0-9._~+/=-]{16,})`),
		cred("basic_auth_header", "HTTP basic credentials in an Authorization header", []string{"authorization"},
			`authorization["']?\s*[:=]\s*["']?basic\s+([a-z0-9+/]{8,}={0,2})`),
		cred("url_credentials", "user:password@ in a URL (http, ftp, git, ssh…); templates and placeholders are exempt", []string{"://"},
			`://[^\s:@/?#"'<>]+:([^\s:@/?#"'<>]{3,})@[a-z0-9.-]+`),
		cred("database_url", "database or broker URL with a password (postgres, mysql, mongodb(+srv), redis, amqp, mssql…); defaults and placeholders are exempt",
			[]string{"postgres", "mysql", "mariadb", "mongodb", "redis", "amqp", "mssql", "sqlserver", "clickhouse", "cockroach", "couchdb", "neo4j", "jdbc:"},
			`(?:jdbc:)?(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|clickhouse|cockroachdb|couchdb|neo4j(?:\+s)?)://[^\s:@/?#"'<>]*:([^\s@/?#"'<>]{1,128})@`),
		cred("private_key", "private key block (RSA, EC, DSA, OPENSSH, PGP, encrypted PKCS#8…): BEGIN and END lines around base64 of any length, or a BEGIN line followed by 64 or more characters of it; a header alone, or a body of \"...\" or <key>, is not a key", []string{"-----begin"},
			`-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`),
		cred("password_assignment", "password assigned in code, config or a command line (password=…, passwd:, DB_PASSWORD=…, --password …, .netrc); references, placeholders and defaults are exempt",
			[]string{"password", "passwd", "passphrase", "pwd", "pass"}, ``),
		cred("secret_assignment", "random-looking value assigned to a secret, token, api_key, access_key or client_secret name; references and placeholders are exempt",
			[]string{"secret", "token", "api_key", "apikey", "api-key", "access_key", "accesskey", "auth_key", "private_key", "private-key", "credential", "creds"}, ``),
		cred("azure_storage_key", "Azure storage account or Service Bus key in a connection string (AccountKey=…, SharedAccessKey=…) or assigned to AZURE_STORAGE_KEY; the emulator's published key is exempt",
			[]string{"accountkey=", "sharedaccesskey=", "azure_storage_"},
			`(?:accountkey|sharedaccesskey)=([a-z0-9+/]{40,88}={0,2})|azure_storage(?:_account)?_(?:access_)?key`+assign+`["']?([a-z0-9+/]{86}==)`),
		cred("digitalocean_token", "DigitalOcean token (dop_v1_…, doo_v1_…, dor_v1_…)", []string{"dop_v1_", "doo_v1_", "dor_v1_"}, `do[opr]_v1_[a-f0-9]{64}`),
		cred("shopify_token", "Shopify access token or shared secret (shpat_…, shpca_…, shppa_…, shpss_…)",
			[]string{"shpat_", "shpca_", "shppa_", "shpss_"}, `shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`),
		credForms("mailgun_api_key", "Mailgun private API key (key-…, or 32-8-8 hex) on a line that names mailgun",
			form{triggers: []string{"mailgun"}, pattern: `(?i:mailgun)[^\n]{0,40}?(key-[0-9a-f]{32}|[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8})`},
			// curl --user 'api:key-…' https://api.mailgun.net/…: the name comes after.
			form{triggers: []string{"key-"}, pattern: `key-[0-9a-f]{32}`, check: lineNames("mailgun")}),
		cred("mailchimp_api_key", "Mailchimp API key (32 hex digits, -us and the data centre's number)", []string{"-us"},
			`[0-9a-f]{32}-us[0-9]{1,2}`),
		cred("discord_webhook_url", "Discord webhook URL (from the host name on)", []string{"discord"},
			`discord(?:app)?\.com/api/webhooks/\d{17,20}/[A-Za-z0-9_-]{60,68}`),
		cred("discord_bot_token", "Discord bot token near the word discord or in a Bot authorization", []string{"discord", "authorization"},
			`(?i:discord[^\n]{0,40}?|authorization["']?\s*[:=]\s*["']?bot\s+)([MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})`),
		credForms("telegram_bot_token", "Telegram bot token (digits:AA…), or digits:A and 34 more on a line that names telegram (gitleaks' format)",
			form{triggers: []string{":aa"}, pattern: `(?:[\w./+=-]*?[^0-9])?(\d{8,10}:AA[A-Za-z0-9_-]{33})`},
			// TELEGRAM_TOKEN=46027529:Avm…: a bot id of 5 to 16 digits, A
			// and 34 more, as gitleaks' rule has it; without "AA" only
			// where the line says whose token it is.
			form{triggers: []string{"telegram"}, pattern: `(?i:[\w.-]*?telegram)[^\n]{0,60}?[^0-9A-Za-z:](\d{5,16}:A[A-Za-z0-9_-]{34})`}),
		cred("datadog_api_key", "Datadog API or application key assigned to a datadog/dd key name",
			[]string{"datadog", "dd_api", "dd_app", "ddapi", "ddapp", "dd-api"},
			`(?i:(?:datadog|dd)[\w.-]*(?:api|app)[_-]?key[\w.-]*)`+assign+`["']?([a-f0-9]{40}|[a-f0-9]{32})(?:[^a-z0-9]|$)`),
		cred("heroku_api_key", "Heroku API key (HRKU-…, or a UUID assigned to a heroku key name)", []string{"hrku-", "heroku"},
			`(HRKU-AA[A-Za-z0-9_-]{58})|(?i:heroku[\w.-]*(?:api|auth)?[_-]?(?:key|token)[\w.-]*)`+assign+`["']?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`),
		cred("square_token", "Square access token or application secret (EAAA…, sq0atp-…, sq0csp-…)", []string{"eaaa", "sq0atp-", "sq0csp-"},
			`(?:EAAA|sq0atp-)[A-Za-z0-9_-]{22,60}|sq0csp-[A-Za-z0-9_-]{43}`),
		cred("atlassian_api_token", "Atlassian API token (ATATT3…, or assigned to a jira/confluence/atlassian token name)",
			[]string{"atatt3", "atlassian", "jira", "confluence"},
			`ATATT3[A-Za-z0-9_=-]{186}|(?i:(?:atlassian|jira|confluence)[\w.-]*(?:api)?[_-]?(?:token|key)[\w.-]*)`+assign+`["']?([A-Za-z0-9]{24})(?:[^A-Za-z0-9]|$)`),
		cred("linear_api_key", "Linear API key (lin_api_…)", []string{"lin_api_"}, `lin_api_[A-Za-z0-9]{40}`),
		cred("doppler_token", "Doppler token (dp.pt., dp.st., dp.ct., dp.sa., dp.scim., dp.audit.)", []string{"dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."},
			`dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,44}`),
		cred("vault_token", "HashiCorp Vault service or batch token (hvs.…, hvb.…)", []string{"hvs.", "hvb."}, `hvs\.[A-Za-z0-9_-]{90,}|hvb\.[A-Za-z0-9_-]{138,}`),
		cred("cloudflare_api_token", "Cloudflare API token or key assigned to a cloudflare name, or an Origin CA key (v1.0-…)",
			[]string{"cloudflare", "v1.0-"},
			`(?i:cloudflare[\w.-]*)`+assign+`["']?([A-Za-z0-9_-]{37,40})(?:[^A-Za-z0-9_-]|$)|v1\.0-[a-f0-9]{24}-[a-f0-9]{146}`),
		cred("age_secret_key", "age encryption secret key (AGE-SECRET-KEY-1…); one whose bech32 checksum holds is a key however it looks, one that breaks it and is typed (1QQQQ…) is filler", []string{"age-secret-key-1"}, `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`),
		cred("postman_api_key", "Postman API key (PMAK-…)", []string{"pmak-"}, `PMAK-[a-f0-9]{24}-[a-f0-9]{34}`),
		cred("databricks_token", "Databricks personal access token (dapi…)", []string{"dapi"}, `dapi[a-f0-9]{32}(?:-\d)?`),
		cred("grafana_token", "Grafana service-account or cloud token (glsa_…, glc_…)", []string{"glsa_", "glc_"},
			`glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2}`),
		cred("groq_api_key", "Groq API key (gsk_…)", []string{"gsk_"}, `gsk_[A-Za-z0-9]{52}`),
		cred("kubernetes_secret", "a value under data: (base64) or stringData: of a Kubernetes manifest of kind: Secret; templates and references are exempt",
			[]string{"kind:"}, `kind:[ \t]*["']?secret["']?[ \t]*(?:\r?\n|$)`),
		// Microsoft publishes the format in its secret-scanning rules
		// (microsoft/security-utilities, SEC101/156): three characters, a
		// digit, the marker Q~ and the rest, in the URL-safe alphabet.
		// gitleaks' rule (azure-ad-client-secret) keys on the same "Q~".
		credForms("azure_ad_client_secret", "Azure AD (Entra ID) client secret: three characters, 8, Q~ and 34 more (40 in all), or the earlier 7, Q~ and 31 (37 in all), in letters, digits and _-.~",
			form{triggers: azureSecretTriggers(), follows: 'Q', pattern: `~[A-Za-z0-9_~.-]{31,34}`}),
		credForms("vendor_token", "a token with the prefix of its vendor: Pulumi (pul-), RubyGems (rubygems_), Sentry (sntryu_, sntrys_), PlanetScale (pscale_tkn_, pscale_pw_, pscale_oauth_), Prefect (pnu_), ReadMe (rdme_), Brevo (xkeysib-), Perplexity (pplx-), Notion (ntn_), Sourcegraph (sgp_), Fly.io (fo1_, fm2_), OpenShift (sha256~), Grafana (eyJrIjoi…), Shippo, Duffel, Flutterwave and EasyPost keys, live or test, Dynatrace (dt0c01.), Clojars, New Relic (NRAK-, NRJS-, NRII-), Typeform (tfp_), SettleMint, GitLab (glffct-, GR1348941, _gitlab_session), Harness, Frame.io, Infracost, Amazon Bedrock, Authress, Airtable, 1Password, Scalingo, Plaid, Facebook, Alibaba, Defined Networking, Yandex, Mapbox, Twitter, Slack legacy tokens (xoxa-2-…-hex included), 42, Adobe (p8e-), Sidekiq, SonarQube (squ_, sqp_, sqa_), HubSpot private apps (pat-na1-…), JFrog reference tokens (cmVmd…), and JWTs in base64", vendorForms()...),
	}
	for _, r := range rules {
		switch r.id {
		case "credential.aws_access_key_id":
			r.check = notExample
		case "credential.aws_secret_access_key":
			r.on, r.before, r.after = folded, anyByte, anyByte
			r.check = entropyAtLeast(3.5)
		case "credential.twilio_api_key":
			r.check = allOf(notFiller, func(text string, s, e int) (int, int, bool) {
				return s, e, hasLetter(text[s+2:e]) && hasDigit(text[s+2:e])
			})
		case "credential.twilio_auth_token", "credential.mailgun_api_key", "credential.datadog_api_key",
			"credential.heroku_api_key", "credential.atlassian_api_token", "credential.cloudflare_api_token":
			// Each expression starts at its trigger, the vendor's name or the
			// key's prefix: going back to the start of the token would lose
			// prefixed names (TF_VAR_cloudflare_api_token=…) and URLs
			// (https://AC…:token@api.twilio.com).
			r.before = anyByte
			r.check = entropyAtLeast(3.0)
		case "credential.discord_bot_token":
			r.before, r.after = anyByte, anyByte
			r.check = allOf(endsKey, notFiller)
		case "credential.age_secret_key":
			r.check = func(text string, s, e int) (int, int, bool) {
				return s, e, bech32Valid(text[s:e]) || !isFiller(text[s:e])
			}
		case "credential.terraform_api_token", "credential.maxmind_license_key":
			// The trigger is inside the key: it starts at the token that
			// holds the trigger.
			r.back = true
			r.check = allOf(notFiller, notDocumented)
		case "credential.mailchimp_api_key":
			// The trigger is the data centre's -us: the key starts at the
			// token that holds it.
			r.back = true
		case "credential.telegram_bot_token":
			// After the token may come the rest of a URL (…/getMe).
			r.back, r.before, r.after = true, anyByte, notWord
			r.check = allOf(notFollowedBy('-'), notFiller)
		case "credential.huggingface_token":
			r.check = func(text string, s, e int) (int, int, bool) { return s, e, entropy(text[s:e]) >= 3.5 }
		case "credential.openai_api_key":
			r.after, r.maxLen = anyByte, 512
			r.check = allOf(endsKey, func(text string, s, e int) (int, int, bool) {
				return s, e, entropy(text[s:e]) >= 3.8 && hasDigit(text[s:e])
			})
		case "credential.jwt":
			// RS256 and ES256 tokens with their claims run to a kilobyte or more.
			r.after, r.maxLen = anyByte, 8192
			r.check = allOf(endsKey, checkJWT)
		case "credential.bearer_token":
			r.on, r.before, r.after, r.maxLen = folded, notWord, anyByte, 8192
			r.check = checkTokenValue(3.0)
		case "credential.basic_auth_header":
			r.on, r.before, r.after = folded, notWord, anyByte
			r.check = checkBasicAuth
		case "credential.url_credentials":
			r.on, r.before, r.after = folded, anyByte, anyByte
			r.check = checkURLPassword(false)
			r.forms = []form{{triggers: r.triggers, pattern: r.pattern, pre: userThenColon}}
		case "credential.database_url":
			r.on, r.before, r.after = folded, anyByte, anyByte
			r.check = checkURLPassword(true)
			// jdbc: and the longest scheme are 16 bytes: :// follows soon
			// after the trigger, where "redis" or "postgres" in prose has none.
			r.forms = []form{{triggers: r.triggers, pattern: r.pattern, pre: func(text string, i int) bool {
				return strings.Contains(text[i:min(len(text), i+len("jdbc:cockroachdb://"))], "://")
			}}}
		case "credential.private_key":
			// The check reads the body past the window, up to maxPEMBody.
			r.before, r.after, r.maxLen = anyByte, anyByte, 256
			r.check = checkPrivateKey
		case "credential.password_assignment":
			r.on, r.before, r.after, r.maxLen = folded, anyByte, anyByte, 512
			r.forms = append(assignmentForms(r.triggers, `(?:[\w.-]*(?:password|passwd|passphrase)[\w.-]*|(?:[\w.-]*[_.-])?(?:pwd|pass|pw)(?:[_.-][\w.-]*)?)`, 6),
				// ~/.netrc: machine host login user password secret, on one
				// line or several.
				form{triggers: []string{"machine"}, pattern: `machine[ \t]+\S+(?:\s+(?:login|account|port)[ \t]+\S+)*\s+password[ \t]+([^\s"']{6,})`},
				// NuGet.config: <add key="ClearTextPassword" value="…" />
				form{triggers: []string{"cleartextpassword"}, pattern: `cleartextpassword["']\s+value\s*=\s*["']([^"'\s]{6,})["']`},
				// curl -u user:password, curl --user 'user:password'
				form{triggers: []string{"curl"}, need: []string{" -u", "--user"}, pattern: `curl\b(?:[^\n|;&\\]|\\\n|\\)*?\s(?:-u|--user)[ \t=]*["']?[^\s:"'$]*:["']?([^\s"']{4,})`})
			r.check = checkAssignment(false)
		case "credential.secret_assignment":
			r.on, r.before, r.after, r.maxLen = folded, anyByte, anyByte, 512
			r.forms = assignmentForms(r.triggers, `[\w.-]*(?:secret|token|api_?key|api-key|access_?key|auth_?key|private[_-]?key|credentials?|creds)[\w.-]*`, 12)
			r.check = checkAssignment(true)
		case "credential.azure_storage_key":
			r.on, r.before, r.after = folded, anyByte, anyByte
			r.check = allOf(endsKey, entropyAtLeast(4.0), notDocumented)
		case "credential.gitlab_token", "credential.slack_bot_token", "credential.grafana_token",
			"credential.google_oauth_token", "credential.vault_token", "credential.square_token", "credential.doppler_token":
			r.after = anyByte
			r.check = allOf(endsKey, notFiller)
		case "credential.kubernetes_secret":
			r.on, r.before, r.after = folded, anyByte, anyByte
			r.check = checkKubernetesSecret
		case "credential.azure_ad_client_secret":
			// The trigger is the ~ of the marker, five characters into the
			// secret, and ~ is none of a token's bytes: the check finds the
			// start and both ends.
			r.before, r.after = anyByte, anyByte
			r.check = checkAzureClientSecret
		case "credential.vendor_token":
			r.after, r.maxLen = anyByte, 1024
			r.check = allOf(endsKey, vendorTokenCheck)
		case "credential.google_api_key":
			r.check = allOf(notFiller, notDocumented)
		case "credential.stripe_key":
			r.check = allOf(notFiller, notDocumented)
		}
		switch r.id {
		case "credential.gitlab_token", "credential.google_oauth_token", "credential.pypi_token",
			"credential.vault_token", "credential.atlassian_api_token", "credential.slack_user_token":
			// Tokens that run past the default window.
			r.maxLen = 1024
		}
	}
	return rules
}

// isURLSafe reports a byte of the alphabet of Azure AD client secrets (and
// of URLs' unreserved characters): letters, digits and _-.~.
func isURLSafe(c byte) bool { return isAlnum(c) || c == '_' || c == '-' || c == '.' || c == '~' }

// azureSecretTriggers are the ~ of an Azure AD client secret's Q~ marker
// with the character after it (the form requires the Q before): a trigger of
// letters starts only at a word's start, and Q~ sits inside the secret. ~
// alone is shorter than a trigger.
func azureSecretTriggers() []string {
	var ts []string
	for _, c := range "abcdefghijklmnopqrstuvwxyz0123456789_-.~" {
		ts = append(ts, "~"+string(c))
	}
	return ts
}

// checkAzureClientSecret vets an Azure AD client secret whose marker's ~
// starts text[s:e] (its form requires the Q before it): a digit before that and three characters
// of the secret before the digit; the whole is 40 characters after an 8 or
// 37 after a 7 (the current and the earlier format), standing alone: no
// letter, digit or _-.~ on either side. A full stop after it ends a
// sentence. Typed filler (abc8Q~xxxx…) is not a secret.
func checkAzureClientSecret(text string, s, e int) (int, int, bool) {
	start := s - 5
	if start < 0 ||
		start > 0 && (isURLSafe(text[start-1]) || text[start-1] == '+' || text[start-1] == '/') {
		return 0, 0, false
	}
	for i := start; i < s-2; i++ {
		if !isURLSafe(text[i]) {
			return 0, 0, false
		}
	}
	rest := 34 // after Q~, in the current format
	switch text[s-2] {
	case '8':
	case '7':
		rest = 31
	default:
		return 0, 0, false
	}
	// The expression took as much as it could: give back what is over,
	// which must be a sentence's full stop.
	end := s + 1 + rest
	if end > e {
		return 0, 0, false
	}
	if end < e && !(end+1 == e && text[end] == '.') {
		return 0, 0, false
	}
	if e < len(text) && (isURLSafe(text[e]) || text[e] == '+' || text[e] == '/') {
		if !(end == e && text[e] == '.' && (e+1 == len(text) || !isURLSafe(text[e+1]))) {
			return 0, 0, false
		}
	}
	v := text[start:end]
	return start, end, !isFiller(v) && !isRepeated(foldString(v)) && !mostlyRuns(v)
}

// bech32Charset is the alphabet of bech32's data part, in value order.
const bech32Charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// bech32Valid reports whether s is a bech32 string whose checksum holds
// (BIP-173): the human-readable part before the last "1", then data whose
// last six characters check the rest. age writes its secret keys so; a key
// typed by hand, AGE-SECRET-KEY-1 and 58 Q's, breaks the checksum.
func bech32Valid(s string) bool {
	s = strings.ToLower(s)
	sep := strings.LastIndexByte(s, '1')
	if sep < 1 || len(s)-sep-1 < 6 {
		return false
	}
	gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := uint32(1)
	step := func(v uint32) {
		b := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ v
		for i, g := range gen {
			if b>>i&1 == 1 {
				chk ^= g
			}
		}
	}
	hrp := s[:sep]
	for i := 0; i < len(hrp); i++ {
		step(uint32(hrp[i]) >> 5)
	}
	step(0)
	for i := 0; i < len(hrp); i++ {
		step(uint32(hrp[i]) & 31)
	}
	for i := sep + 1; i < len(s); i++ {
		v := strings.IndexByte(bech32Charset, s[i])
		if v < 0 {
			return false
		}
		step(uint32(v))
	}
	return chk == 1
}

// allOf runs checks in order, each seeing the bounds the previous one left.
func allOf(checks ...func(string, int, int) (int, int, bool)) func(string, int, int) (int, int, bool) {
	return func(text string, s, e int) (int, int, bool) {
		for _, check := range checks {
			var ok bool
			if s, e, ok = check(text, s, e); !ok {
				return 0, 0, false
			}
		}
		return s, e, true
	}
}

// notFiller drops a key-shaped string that is filler (see isFiller).
func notFiller(text string, s, e int) (int, int, bool) {
	v := text[s:e]
	return s, e, !isFiller(v) && !mostlyRuns(v)
}

// notDocumented drops the keys vendors publish (see documentedKey).
func notDocumented(text string, s, e int) (int, int, bool) {
	return s, e, !documentedKey(text[s:e])
}

// endsKey is the after-boundary of keys written in letters, digits and _-+/=:
// the key must not run on into more of them, except into the full stop of a
// sentence ("The bot token is xoxb-….").
func endsKey(text string, s, e int) (int, int, bool) {
	if e == len(text) || !isTokenByte(text[e]) {
		return s, e, true
	}
	return s, e, text[e] == '.' && (e+1 == len(text) || !isTokenByte(text[e+1]))
}

// notFollowedBy builds a check that drops a finding followed by c.
func notFollowedBy(c byte) func(string, int, int) (int, int, bool) {
	return func(text string, s, e int) (int, int, bool) {
		return s, e, e == len(text) || text[e] != c
	}
}

// lineNames builds a check that keeps a finding whose line names word
// (folded), before or after it. It looks no further than lookAround bytes
// either side, so that a long line of findings costs no more than a short one.
func lineNames(word string) func(string, int, int) (int, int, bool) {
	return func(text string, s, e int) (int, int, bool) {
		from, to := max(0, s-lookAround), min(len(text), e+lookAround)
		ls := strings.LastIndexByte(text[from:s], '\n') + 1 + from
		le := strings.IndexByte(text[e:to], '\n')
		if le < 0 {
			le = to
		} else {
			le += e
		}
		return s, e, strings.Contains(foldString(text[ls:le]), word)
	}
}

// lookAround bounds how far a credential check looks around a finding.
const lookAround = 256

// minKeyMaterial is how much base64 a private key block must hold when
// something else stands in its body ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC...")
// or when it has no END line: less than a line of a PEM body is the start of
// a key shown in documentation, or prose after a header.
const minKeyMaterial = 64

// maxPEMBody bounds how far a private key block's body is read.
const maxPEMBody = 16384

// pemEndRE is the END line of a private key block.
var pemEndRE = &lazyRE{pattern: `^-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`}

// checkPrivateKey decides whether the BEGIN line text[s:e] starts a private
// key, and extends the finding over it. With an END line, any base64 body is a
// key, however short: a key is a key whether it was cut or not, and entropy
// says nothing about a body this short or this regular (an OpenSSH key
// starts with long runs of A). What is not a key is a body that holds no
// base64 but placeholders and words ("...", "<key>", "your key here", "and
// ends with"), or little base64 beside a placeholder. Without an END line, the
// lines right after BEGIN must hold minKeyMaterial characters of base64.
func checkPrivateKey(text string, s, e int) (int, int, bool) {
	rest := text[e:min(len(text), e+maxPEMBody)]
	bodyEnd, blockEnd := len(rest), -1
	if k := strings.Index(rest, "-----"); k >= 0 {
		bodyEnd = k
		if loc := pemEndRE.get().FindStringIndex(rest[k:]); loc != nil {
			blockEnd = e + k + loc[1]
		}
	}
	body := readPEMBody(rest[:bodyEnd], blockEnd < 0)
	if body.material == "" || isPlaceholder(body.material) {
		return 0, 0, false
	}
	if blockEnd < 0 {
		return s, e + body.end, len(body.material) >= minKeyMaterial
	}
	if body.others > 0 && len(body.material) < minKeyMaterial {
		return 0, 0, false
	}
	return s, blockEnd, true
}

// pemBody is what the body of a private key block holds.
type pemBody struct {
	material string // the base64 that looks like key material
	others   int    // tokens that are not: placeholders, words, prose
	end      int    // the end of the last line with material
}

// readPEMBody reads the body of a block: lines of base64, after headers
// (Proc-Type, DEK-Info, Version, Comment) that an encrypted or PGP key has,
// with JSON's \n and the quotes and continuation marks of code and config
// around the lines. A token with other characters is a placeholder or prose;
// the base64 it starts with still counts ("MIIEvQ..."). Without an END line
// (open), reading stops at the first line that is not base64.
func readPEMBody(body string, open bool) pemBody {
	var (
		out      pemBody
		material strings.Builder
	)
	for at := 0; at < len(body); {
		line := body[at:]
		next := len(body)
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], at+i+1
		}
		// JSON and shell strings write the line ends as \n.
		for part := range strings.SplitSeq(line, `\n`) {
			if strings.Contains(part, ":") {
				continue // a header
			}
			n := material.Len()
			for tok := range strings.FieldsSeq(part) {
				tok = strings.Trim(tok, "\"'`\\,;|>")
				if tok == "" {
					continue
				}
				b64 := tok
				if i := strings.IndexFunc(tok, func(r rune) bool { return !isBase64Rune(r) }); i >= 0 {
					b64 = tok[:i]
					out.others++
				}
				if keyish(b64) {
					material.WriteString(b64)
				} else if b64 == tok {
					out.others++ // a word: "and", "key", "KEY"
				}
			}
			if open && (material.Len() == n || out.others > 0) && strings.TrimSpace(part) != "" {
				// Not a line of key material: the key, if any, ended before.
				out.material = material.String()[:n]
				return out
			}
			if material.Len() > n {
				out.end = at + len(line)
			}
		}
		at = next
	}
	out.material = material.String()
	return out
}

func isBase64Rune(r rune) bool {
	return r < utf8.RuneSelf && (isAlnum(byte(r)) || r == '+' || r == '/' || r == '=')
}

// keyish reports a run of base64 that looks like encoded bytes rather than a
// word: it has a digit or a sign, or mixes upper and lower case.
func keyish(s string) bool {
	if s == "" {
		return false
	}
	upper, lower := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z':
			lower = true
		case 'A' <= c && c <= 'Z':
			upper = true
		default:
			return true // a digit, +, / or =
		}
	}
	return upper && lower
}

// assignmentForms match name = value, name: "value" and the like, and a
// command-line flag followed by its value (--password followed by it). An
// assignment starts at its trigger, the name's keyword: the name may run on
// (DB_PASSWORD_FILE) but not back, which the check looks at. A flag starts at
// its dashes, so that the name's keyword in prose ("the token expired") does
// not run it; it runs only when one of the triggers follows the dashes
// closely. Groups: the value, quoted with " or ', or bare.
func assignmentForms(triggers []string, name string, minLen int) []form {
	// A bare value ends at a backslash: in a JSON string the next line
	// follows as \n (FINNHUB_TOKEN=…\nBACKUP_ENABLED=true).
	// The value's least length is checked after the match rather than
	// counted in the expression ([^"]{12,} is twelve copies of the class):
	// a small expression keeps Go's regexp on its fast matcher.
	value := `(?:"([^"\s]+)"|'([^'\s]+)'|` + "`" + `([^` + "`" + `\s]+)` + "`" + `|([^\s"'` + "`" + `,;)}\]<>\\]+))`
	long := atLeast(minLen)
	return []form{
		{triggers: triggers, pre: nameThen("\"'`:=?| \t\n\r\f\v"), pattern: name + assign + value, check: long},
		{triggers: []string{"--"}, pre: flagName, need: triggers, needWithin: flagWithin, pattern: `--` + name + `\s+` + value, check: long},
		// <apiToken>…</apiToken> in XML: the element names the secret.
		{triggers: triggers, pre: nameThen(">"), pattern: name + `>\s*([^<\s]+)\s*</`, check: allOf(long, xmlElement)},
	}
}

// flagWithin is how far past its dashes a flag's name must hold one of
// its keywords.
const flagWithin = 48

// flagName is the pre of an assignment form's flag (--name value): a
// letter within the run of letters, digits, _ . and - (all a name can be)
// that starts at the dashes, and within flagWithin bytes, since the
// keywords the form needs there are words. Markdown's rules, front matter,
// table rows (|---|---|) and arrows turn away here, without the search
// for the keywords. It reads no more than that search would.
func flagName(text string, i int) bool {
	for j := i; j < len(text) && j < i+flagWithin; j++ {
		c := text[j]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			return true
		}
		if !isAlnum(c) && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return false
}

// nameThen builds the pre of an assignment form: the run of letters,
// digits, _ . and - from the window's start (all a key's name can be) must
// be followed by one of the bytes that can open what comes after the name
// (a quote, a blank, : = ? | for assign; > for an XML element). A key word
// in prose ("the token expires") costs a few byte tests, not two
// expressions.
func nameThen(next string) func(string, int) bool {
	return func(text string, i int) bool {
		for i < len(text) && (isAlnum(text[i]) || text[i] == '_' || text[i] == '.' || text[i] == '-') {
			i++
		}
		return i < len(text) && strings.IndexByte(next, text[i]) >= 0
	}
}

// userThenColon is url_credentials' pre: after the "://" at i, a user name
// (one byte or more outside [\s:@/?#"'<>]) and then a colon. Most URLs have
// none, and this turns them away at their first "/" without running the
// expression.
func userThenColon(text string, i int) bool {
	j, limit := i+len("://"), min(len(text), i+preLimit)
	for j < limit && strings.IndexByte(" \t\n\f\r:@/?#\"'<>", text[j]) < 0 {
		j++
	}
	if j == limit {
		return limit < len(text) // too long to read here: the expression decides
	}
	return j > i+len("://") && text[j] == ':'
}

// atLeast builds a check that drops a value shorter than n bytes.
func atLeast(n int) func(string, int, int) (int, int, bool) {
	return func(text string, s, e int) (int, int, bool) { return s, e, e-s >= n }
}

// xmlElement requires the name of an element form to open a tag: "<" just
// before the name.
func xmlElement(text string, s, e int) (int, int, bool) {
	i := s
	for i > 0 && strings.IndexByte(" \t\r\n>", text[i-1]) >= 0 {
		i--
	}
	for i > 0 && text[i-1] != '<' && (isAlnum(text[i-1]) || strings.IndexByte("_.-:", text[i-1]) >= 0) {
		i--
	}
	return s, e, i > 0 && text[i-1] == '<'
}

// nameStart returns where the key name that a value at s is assigned to
// starts: back over the gap (quotes, blanks, = : >) and the name.
func nameStart(text string, s int) int {
	i, stop := s, max(0, s-lookAround)
	for i > stop && strings.IndexByte(" \t\"'=:>", text[i-1]) >= 0 {
		i--
	}
	for i > stop && (isAlnum(text[i-1]) || strings.IndexByte("_.-", text[i-1]) >= 0) {
		i--
	}
	return i
}

// nameSuffixesNotSecret end key names that hold something about a secret
// rather than the secret: a file, a length, a policy, a URL.
var nameSuffixesNotSecret = []string{"_file", "-file", "file", "_path", "path", "_url", "url", "_uri", "_length", "_len", "_policy",
	"_min", "_max", "_expiry", "_expires", "_ttl", "_type", "_name", "name", "_id", "_env", "_var", "_field", "_label",
	"_prompt", "_reset", "_rule", "_regex", "_hash", "_header", "_endpoint", "_command", "_cmd", "_count", "_size",
	"_enabled", "_required", "-stdin", "_stdin", "_helper", "_store", "_manager", "_ref", "_source", "_mount", "_dir",
	"_key_id", "_version", "_format", "_prefix", "_suffix", "_pattern", "_mode", "_limit", "_timeout", "_at"}

// checkAssignment vets the value of a password or secret assignment. A
// password needs letters and a digit or a sign; a secret must look random.
// Both must not be a reference, a placeholder, a path or a code expression.
func checkAssignment(random bool) func(string, int, int) (int, int, bool) {
	return func(text string, s, e int) (int, int, bool) {
		v := text[s:e]
		// user:password@ in a URL is url_credentials'.
		if strings.HasSuffix(text[:nameStart(text, s)], "://") {
			return 0, 0, false
		}
		// The key's name, for its suffix: what precedes the value on its
		// line, no further back than a name runs.
		from := max(0, s-lookAround)
		ls := from + strings.LastIndexByte(text[from:s], '\n') + 1
		raw := strings.TrimRight(text[ls:s], " \t\"'=:>")
		head := foldString(raw)
		for _, suf := range nameSuffixesNotSecret {
			if strings.HasSuffix(head, suf) {
				return 0, 0, false
			}
		}
		if notSecretName(raw) {
			return 0, 0, false
		}
		if strings.HasPrefix(v, "--") {
			return 0, 0, false // --no-password --insecure: the next option
		}
		if keyValueRE.get().MatchString(v) {
			return 0, 0, false // --secret-add source=ssh-2: an option's key=value
		}
		if random && camelWords(v) {
			return 0, 0, false // AgencyIdentificationCodeContentType is a name
		}
		f := foldString(v)
		if isPlaceholder(v) || strings.HasPrefix(f, "/") || strings.HasPrefix(f, "./") || strings.HasPrefix(f, "~") ||
			strings.Contains(f, "://") || strings.ContainsAny(f, "()[]") {
			return 0, 0, false
		}
		if random {
			if telegramShapeRE.get().MatchString(v) && !telegramFormatRE.get().MatchString(v) {
				// digits:A… is a Telegram bot token's shape: one that
				// breaks its format (a bot id of 5 to 16 digits, A and 34
				// more) is typed test data, as gitleaks' own samples have
				// it.
				return 0, 0, false
			}
			if uuidRE.get().MatchString(v) {
				// Heroku, Squarespace and Snyk keys are UUIDs: random
				// hex digits, scored as hex (the dashes and the hex
				// alphabet keep a UUID's entropy under 3.5).
				hex := strings.ReplaceAll(v, "-", "")
				return s, e, randomEnough(hex, 3.5) && !isFiller(v) && !isPlaceholder(v) && !mostlyRuns(hex)
			}
			if documentedKey(v) {
				return 0, 0, false
			}
			return s, e, randomLooking(v, 3.5) || randomLetters(v) || randomDigits(v)
		}
		if !hasLetter(v) || entropy(v) < 2.0 || documentedKey(v) {
			return 0, 0, false
		}
		if !hasDigit(v) && !strings.ContainsAny(v, "!#$%&*+,-./:;<=>?@^_|~") {
			return 0, 0, false // a word: "password: required", "pass through"
		}
		// A dotted identifier (config.db.password) is code, not a value.
		if isIdentPath(v) {
			return 0, 0, false
		}
		return s, e, true
	}
}

// randomLetters reports a value of letters only, in one case, that was drawn
// at random rather than spelt (a Finnhub key, kydfknopfatdjphugxxd): long, with
// few vowels (a fifth of random letters are vowels, two fifths of a word's
// or a name's), not a run along the alphabet.
func randomLetters(v string) bool {
	if len(v) < 16 || !(v == strings.ToLower(v) || v == strings.ToUpper(v)) {
		return false
	}
	vowels := 0
	for i := 0; i < len(v); i++ {
		switch v[i] | 0x20 {
		case 'a', 'e', 'i', 'o', 'u':
			vowels++
		default:
			if !isASCIILetter(rune(v[i])) {
				return false
			}
		}
	}
	// Three bits a letter: twenty drawn from twenty consonants score 3.2
	// on average, and the vowels already tell words apart.
	return 10*vowels <= 3*len(v) && entropy(v) >= 3.0 && !isPlaceholder(v) && !mostlyRuns(v)
}

// randomDigits reports a value of digits only that is too long to be a
// number people use (a timestamp has 10 to 19 digits, an id rarely more) and
// was drawn at random: a Discord client secret in digits, a numeric API key.
func randomDigits(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	// 32 random digits score 3.1 bits a digit, one in fifty under 2.8.
	return len(v) >= 24 && entropy(v) >= 2.6 && !isPlaceholder(v) && !mostlyRuns(v)
}

// keyValueRE matches a value that is itself a key=value pair: a word, "=",
// then more (source=ssh-2,target=…); base64 pads with "=" only at its end.
var keyValueRE = &lazyRE{pattern: `^[A-Za-z][A-Za-z_-]{0,19}=[^=]`}

// uuidRE matches a UUID.
var uuidRE = &lazyRE{pattern: `^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`}

// telegramShapeRE matches a value shaped like a Telegram bot token: a bot id
// in digits, a colon, then A; telegramFormatRE the format gitleaks gives it.
var (
	telegramShapeRE  = &lazyRE{pattern: `^\d{1,20}:A`}
	telegramFormatRE = &lazyRE{pattern: `^\d{5,16}:A[A-Za-z0-9_-]{34}$`}
)

// notSecretName reports a key name, as written before its value, that names
// what is not a secret: an id in camel case (credentialsId, UserSecretsId:
// Jenkins and .NET name the secret, they do not hold it), a public or CSRF
// token, or a value its name says is not a live one (nonMatchingToken,
// invalid_api_key, fakeSecret, dummy_token: the test data of a parser).
func notSecretName(raw string) bool {
	i := len(raw)
	for i > 0 && (isAlnum(raw[i-1]) || strings.IndexByte("_.-", raw[i-1]) >= 0) {
		i--
	}
	name := raw[i:]
	if n := len(name); n > 2 && (strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "ID")) && 'a' <= name[n-3] && name[n-3] <= 'z' {
		return true
	}
	if secretAfterPreposition(name) {
		return true
	}
	f := foldString(name)
	for _, w := range []string{"public", "publishable", "csrf", "xsrf", "nonce",
		"nonmatching", "non_matching", "non-matching", "invalid", "fake", "dummy", "bogus", "mock"} {
		if strings.Contains(f, w) {
			return true
		}
	}
	return false
}

// secretAfterPreposition reports a name whose secret word comes only after
// a preposition (keyVaultToStoreSecrets, pathToToken, nameOfSecret): the
// head of "X to Y" is X, so the name holds something about the secret (a
// vault, a path), not the secret.
func secretAfterPreposition(name string) bool {
	prep := false
	for _, w := range nameWords(name) {
		switch w {
		case "to", "for", "of", "from", "with":
			prep = true
		case "secret", "secrets", "token", "tokens", "apikey", "credential", "credentials", "creds", "password", "passwd", "passphrase":
			return prep
		}
	}
	return false
}

// nameWords splits a key name into lower-case words at _ - . and at camel
// case humps (keyVaultToStoreSecrets: key, vault, to, store, secrets).
func nameWords(name string) []string {
	var (
		out []string
		cur []byte
	)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.':
			flush()
		case 'A' <= c && c <= 'Z' && i > 0 && ('a' <= name[i-1] && name[i-1] <= 'z' ||
			i+1 < len(name) && 'a' <= name[i+1] && name[i+1] <= 'z' && 'A' <= name[i-1] && name[i-1] <= 'Z'):
			flush()
			cur = append(cur, c)
		default:
			cur = append(cur, c)
		}
	}
	flush()
	return out
}

// camelWords reports a value made of capitalised words
// (AgencyIdentificationCodeContentType), after an optional prefix up to a
// colon: a type or field name, not a generated key.
func camelWords(v string) bool {
	if i := strings.LastIndexByte(v, ':'); i >= 0 {
		v = v[i+1:]
	}
	words := 0
	for i := 0; i < len(v); {
		c := v[i]
		if c < 'A' || c > 'Z' {
			return false
		}
		j := i + 1
		for j < len(v) && 'a' <= v[j] && v[j] <= 'z' {
			j++
		}
		if j-i < 3 {
			return false
		}
		words++
		i = j
	}
	return words >= 3
}

func isIdentPath(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || !isIdent(p) {
			return false
		}
	}
	return true
}

func isIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isAlnum(c) || c == '_') || i == 0 && '0' <= c && c <= '9' {
			return false
		}
	}
	return true
}

// checkTokenValue vets a bearer token: random enough, not a placeholder, not
// the name of a token.
func checkTokenValue(min float64) func(string, int, int) (int, int, bool) {
	return func(text string, s, e int) (int, int, bool) {
		v := text[s:e]
		return s, e, entropy(v) >= min && !isPlaceholder(v) && !isWordName(v)
	}
}

// checkBasicAuth requires the base64 to decode to user:password.
func checkBasicAuth(text string, s, e int) (int, int, bool) {
	b, ok := decodeBase64(text[s:e])
	if !ok || bytes.IndexByte(b, ':') <= 0 {
		return 0, 0, false
	}
	user, pass, _ := strings.Cut(string(b), ":")
	// JSON is not user:password ({"alg":"HS256"} is a JWT's header).
	return s, e, pass != "" && !isPlaceholder(pass) && !strings.ContainsAny(user, "{\"")
}

// checkJWT requires the header to decode to a JSON object naming an
// algorithm, and the token not to be jwt.io's sample.
func checkJWT(text string, s, e int) (int, int, bool) {
	if documentedKey(text[s:e]) {
		return 0, 0, false
	}
	header := text[s:e]
	if i := strings.IndexByte(header, '.'); i > 0 {
		header = header[:i]
	}
	b, ok := decodeBase64(header)
	if !ok {
		return 0, 0, false
	}
	b = bytes.TrimSpace(b)
	return s, e, len(b) > 0 && b[0] == '{' && bytes.Contains(b, []byte(`"alg"`))
}

// weakDefault reports the passwords of local development setups and examples;
// they guard nothing worth redacting.
func weakDefault(pass string) bool {
	switch pass {
	case "pass", "password", "postgres", "root", "admin", "guest",
		"secret", "changeme", "example", "test", "user", "app", "dev", "local",
		"localhost", "mysql", "redis", "rabbit", "rabbitmq", "mongo", "default",
		"pwd", "passwd", "demo", "sample", "toor", "1234", "123456",
		"token", "apikey", "api_key", "key":
		return true
	}
	return false
}

// checkURLPassword vets the password of user:password@host (the finding):
// not the user name again, not a development default, not a placeholder or
// a variable. url_credentials leaves database schemes to database_url.
func checkURLPassword(db bool) func(string, int, int) (int, int, bool) {
	return func(text string, s, e int) (int, int, bool) {
		ls := strings.LastIndex(text[:s], "://")
		if ls < 0 || s == 0 || text[s-1] != ':' {
			return 0, 0, false
		}
		user := text[ls+3 : s-1]
		if !db {
			scheme := foldString(text[strings.LastIndexFunc(text[:ls], func(r rune) bool {
				return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '.' || r == '-')
			})+1 : ls])
			if scheme == "" || !isASCIILetter(rune(scheme[0])) || dbSchemeRE.get().MatchString(scheme) {
				return 0, 0, false
			}
		}
		pass := text[s:e]
		f := foldString(pass)
		if f == foldString(user) || weakDefault(f) || isPlaceholder(pass) {
			return 0, 0, false
		}
		return s, e, true
	}
}

var dbSchemeRE = &lazyRE{pattern: `^(?:jdbc:)?(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|clickhouse|cockroachdb|couchdb|neo4j(?:\+s)?)$`}
