package security

import (
	"encoding/base64"
	"os"
	"strings"
	"testing"
)

// configCredentialCases are the vectors of the credential-file rules
// (credentials_config.go), in the form of credentialCases, which runs them
// with the others. The files are written as the tools write them; the
// negatives are what the same files hold when the secret lives elsewhere (a
// credential helper, a variable) and what documentation shows.
func configCredentialCases(g *credFakes) []credCase {
	of := g.of
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	letters := credUpper + credLower
	// A password long enough (16 or more) that a short word inside it by
	// chance ("foo", "your") is not read as a placeholder.
	pw := func() string { return of(credAlnum, 14) + of("!#%*", 1) + of(credDigits, 3) }
	// Prefixes split as in credentialCases.
	gho, npm, pypi := "gh"+"o_", "np"+"m_", "py"+"pi-"+"AgEIcHlwaS5vcmc"

	return []credCase{
		{rule: "docker_config_auth",
			pos: []credVector{
				{name: "config.json", text: "{\n\t\"auths\": {\n\t\t\"https://index.docker.io/v1/\": {\n\t\t\t\"auth\": \"«" + b64("ci-bot:"+pw()) + "»\"\n\t\t}\n\t}\n}\n"},
				{name: "compact, second registry", text: `{"auths":{"ghcr.io":{},"registry.acme.io":{"auth":"«` + b64("deploy:"+pw()) + `»"}},"credsStore":"desktop"}`},
				{name: "escaped in a transcript", text: `{"type":"tool_result","content":"{\n  \"auths\": {\n    \"ghcr.io\": {\n      \"auth\": \"«` + b64("octo:"+pw()) + `»\"\n    }\n  }\n}"}`},
				{name: "identitytoken", text: "{\n  \"auths\": {\n    \"acme.azurecr.io\": {\n      \"auth\": \"\",\n      \"identitytoken\": \"«" + of(credB64URL, 60) + "»\"\n    }\n  }\n}"},
			},
			neg: []credVector{
				{name: "credential helper", text: "{\n  \"auths\": {\n    \"https://index.docker.io/v1/\": {}\n  },\n  \"credsStore\": \"desktop\"\n}"},
				{name: "documentation", text: "{\n  \"auths\": {\n    \"https://index.docker.io/v1/\": {\n      \"auth\": \"" + b64("username:password") + "\"\n    }\n  }\n}"},
				{name: "not user:password", text: `{"server": {"auth": "oauth2", "issuer": "https://id.acme.io"}}`},
				{name: "empty", text: `{"auths": {"ghcr.io": {"auth": ""}}}`},
				{name: "placeholder token", text: `{"auths": {"acme.azurecr.io": {"identitytoken": "<refresh token from az acr login>"}}}`},
			}},

		{rule: "npmrc_auth",
			pos: []credVector{
				{name: "legacy token", text: "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=«" + g.uuid() + "»\n",
					also: []string{"secret_assignment"}, why: "_authToken is a token name"},
				{name: "_auth", text: "always-auth=true\n_auth=«" + b64("alice:"+pw()) + "»\n"},
				{name: "_password", text: "//npm.pkg.acme.io/:username=alice\n//npm.pkg.acme.io/:_password=\"«" + b64(pw()) + "»\"\n"},
				{name: "npm token", text: "//registry.npmjs.org/:_authToken=«" + npm + of(credAlnum, 36) + "»",
					also: []string{"npm_token", "secret_assignment"}, why: "npm's own tokens have their rule; _authToken is a token name"},
			},
			neg: []credVector{
				{name: "variable", text: "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n"},
				{name: "documentation", text: "_auth=" + b64("username:password") + "\nalways-auth=true"},
				{name: "prose", text: "CI writes _authToken into .npmrc from the NPM_TOKEN secret."},
				{name: "plain password", text: "_password=hunter"},
			}},

		{rule: "pypirc_password",
			pos: []credVector{
				{name: "testpypi", text: "[testpypi]\nrepository = https://test.pypi.org/legacy/\nusername = alice\npassword = «" + of(letters, 20) + "»\n"},
				{name: "distutils", text: "[distutils]\nindex-servers =\n    pypi\n    private\n\n[private]\nrepository = https://pypi.acme.io\nusername = alice\npassword = «" + of(letters, 20) + "»\r\n"},
				{name: "upload token", text: "[pypi]\n  username = __token__\n  password = «" + pypi + of(credB64URL, 140) + "»\n",
					also: []string{"pypi_token", "password_assignment"}, why: "PyPI's own tokens have their rule; password = is a password name"},
			},
			neg: []credVector{
				{name: "other ini", text: "[database]\nhost = db.internal\npassword = " + of(letters, 14) + "\n"},
				{name: "placeholder", text: "[pypi]\nusername = __token__\npassword = <your PyPI token>\n"},
				{name: "variable", text: "[pypi]\nusername = __token__\npassword = ${PYPI_TOKEN}\n"},
				{name: "prose", text: "[pypi]\nIn .pypirc the password = line holds the token."},
			}},

		{rule: "kubeconfig_credential",
			pos: []credVector{
				{name: "client-key-data", text: "users:\n- name: admin\n  user:\n    client-certificate-data: " + b64(credPEMBlock("CERTIFICATE", g.pemBody(4))) +
					"\n    client-key-data: «" + b64(credPEM("RSA PRIVATE", g.pemBody(8))) + "»\n"},
				{name: "token", text: "apiVersion: v1\nkind: Config\nusers:\n- name: ci\n  user:\n    token: «" + of(letters, 32) + "»\ncurrent-context: prod\n"},
				{name: "refresh-token", text: "users:\n- name: oidc\n  user:\n    auth-provider:\n      name: oidc\n      config:\n        client-id: kubernetes\n        refresh-token: «" + of(credAlnum, 40) + "»\n",
					also: []string{"secret_assignment"}, why: "refresh-token is a token name"},
			},
			neg: []credVector{
				{name: "kubectl config view", text: "users:\n- name: admin\n  user:\n    client-certificate-data: DATA+OMITTED\n    client-key-data: DATA+OMITTED\n    token: REDACTED\n"},
				{name: "not a key", text: "users:\n- name: admin\n  user:\n    client-key-data: " + b64(credPEMBlock("CERTIFICATE", g.pemBody(4))) + "\n"},
				{name: "not under users", text: "jobs:\n  deploy:\n    with:\n      token: " + of(letters, 32) + "\n"},
				{name: "prose", text: "users:\n- name: admin\nThe token: field under users holds a bearer token such as the one kubeadm prints."},
			}},

		{rule: "gh_hosts_token",
			pos: []credVector{
				{name: "hosts.yml", text: "github.com:\n    user: octo\n    oauth_token: «" + of(credHex, 40) + "»\n    git_protocol: https\n",
					also: []string{"secret_assignment"}, why: "oauth_token is a token name"},
				{name: "enterprise", text: "github.com:\n    users:\n        octo:\n    user: octo\ngithub.acme.io:\n    oauth_token: «" + gho + of(credAlnum, 36) + "»\n",
					also: []string{"github_oauth_token", "secret_assignment"}, why: "gh's own tokens have their rule; oauth_token is a token name"},
			},
			neg: []credVector{
				{name: "placeholder", text: "github.com:\n    user: octo\n    oauth_token: YOUR_GITHUB_TOKEN_HERE\n"},
				{name: "keyring", text: "github.com:\n    users:\n        octo:\n    git_protocol: https\n    user: octo\n"},
				{name: "code", text: "oauth_token = session.fetch_token(token_url, authorization_response=url)"},
				{name: "prose", text: "gh stopped writing oauth_token: lines once tokens moved to the system keyring."},
			}},
	}
}

// TestCredentialConfigSourceIsClean is TestCredentialSourceIsClean for the
// files of the credential-file rules.
func TestCredentialConfigSourceIsClean(t *testing.T) {
	for _, name := range []string{"credentials_config.go", "credentials_config_test.go"} {
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

// TestCredentialFiles scans whole credential files as import reads them
// (Docker's config.json as a JSON block, the others as text): each must be
// refused by the rule of its format.
func TestCredentialFiles(t *testing.T) {
	g := &credFakes{}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name, text, rule string
	}{
		{"docker config.json", "```json\n{\n  \"auths\": {\n    \"https://index.docker.io/v1/\": {\n      \"auth\": \"" + b64("me:"+strings.ToLower(g.of(credUpper, 12))) + "\"\n    }\n  }\n}\n```", "credential.docker_config_auth"},
		{".npmrc", "_auth=" + b64("me:"+strings.ToLower(g.of(credUpper, 12))) + "\nemail=me@acme.io\n", "credential.npmrc_auth"},
		{".pypirc", "[pypi]\nusername = me\npassword = " + strings.ToLower(g.of(credUpper, 12)) + "\n", "credential.pypirc_password"},
		{"kubeconfig", "users:\n- name: me\n  user:\n    token: " + g.of(credUpper+credLower, 24) + "\n", "credential.kubeconfig_credential"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range Scan(tt.text) {
				got = append(got, f.Rule)
			}
			if len(got) != 1 || got[0] != tt.rule {
				t.Errorf("Scan found %v, want only %s\ntext: %q", got, tt.rule, tt.text)
			}
		})
	}
}

// FuzzCredentialFiles runs the scan and redaction over credential files
// grown from the vectors of the credential-file rules, whose checks look back
// over lines and sections and decode base64: no panic, findings in bounds,
// redaction idempotent.
func FuzzCredentialFiles(f *testing.F) {
	for _, c := range configCredentialCases(&credFakes{}) {
		for _, v := range append(c.pos, c.neg...) {
			f.Add(strings.NewReplacer("«", "", "»", "").Replace(v.text))
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkScan(t, text, Scan(text))
		checkRedact(t, text)
	})
}
