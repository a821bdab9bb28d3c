package security

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Credentials in the files where developer tools keep them: Docker's
// config.json, .npmrc, .pypirc, a kubeconfig, the GitHub CLI's hosts.yml.
// Their values have no vendor prefix to be known by (a Docker "auth" is base64
// of user:password, a kubeconfig token may be any string), so each rule reads
// the key the file format puts them under, and where the format gives it, the
// section. A value a vendor rule knows by its shape (a gho_ token as gh's
// oauth_token, an npm_ token as _authToken) is found by both.

// configCredentialRules are the rules of credential files.
func configCredentialRules() []*rule {
	docker := credForms("docker_config_auth", "Docker registry credentials in a config.json: an auths entry's \"auth\" (base64 of user:password), an \"identitytoken\" or \"registrytoken\"",
		// "auth": "dXNlcjpwYXNz…", also inside a JSON string (\"auth\").
		form{triggers: []string{`"auth`}, pattern: `"auth\\?"\s*:\s*\\?"([A-Za-z0-9+/]{4,}={0,2})\\?"`, check: checkBasicAuth},
		form{triggers: []string{`"identitytoken`, `"registrytoken`},
			pattern: `"(?i:identitytoken|registrytoken)\\?"\s*:\s*\\?"([^"\\\s]{16,})\\?"`, check: checkConfigToken(3.0)})
	docker.before = anyByte

	npmrc := credForms("npmrc_auth", ".npmrc registry credentials: _authToken=…, _auth=… (base64 of user:password), _password=… (base64 of the password), for a registry or not",
		form{triggers: []string{"_authtoken"}, pattern: `(?i:_authtoken)[ \t]*=[ \t]*["']?([^\s"']{8,})`, check: checkConfigToken(3.0)},
		form{triggers: []string{"_auth"}, pattern: `(?i:_auth)[ \t]*=[ \t]*["']?([A-Za-z0-9+/]{4,}={0,2})(?:["'\s]|$)`, check: checkBasicAuth},
		form{triggers: []string{"_password"}, pattern: `(?i:_password)[ \t]*=[ \t]*["']?([A-Za-z0-9+/]{4,}={0,2})(?:["'\s]|$)`, check: checkBase64Password})
	npmrc.before = notAlnum // the _ of npm_config__authToken may precede

	pypirc := cred("pypirc_password", ".pypirc password (or upload token): password = … in a [pypi] or [testpypi] section, or in any section of a file with a [distutils] section",
		[]string{"password"}, `(?i:password)[ \t]*[=:][ \t]*([^\s][^\n\r]*)`)
	pypirc.before, pypirc.maxLen = anyByte, 512
	pypirc.check = checkPypircPassword

	kube := credForms("kubeconfig_credential", "kubeconfig user credentials: client-key-data (base64 of a private key), and a token (token, id-token, refresh-token…) under users:",
		form{triggers: []string{"client-key-data"}, pattern: `client-key-data["']?[ \t]*:[ \t]*["']?([A-Za-z0-9+/]{100,}={0,2})`, check: checkKubeClientKey},
		form{triggers: []string{"token"}, pattern: `token["']?[ \t]*:[ \t]*["']?([^\s"']{8,})`, check: checkKubeToken})
	kube.before, kube.maxLen = anyByte, 16384 // a 4096-bit key is some 4,500 characters of base64

	gh := cred("gh_hosts_token", "GitHub CLI token in hosts.yml (oauth_token: …)",
		[]string{"oauth_token"}, `oauth_token["']?[ \t]*:[ \t]*["']?([^\s"']{16,})`)
	gh.check = allOf(keyStartsLine(`oauth_token`), checkConfigToken(3.0))

	return []*rule{docker, npmrc, pypirc, kube, gh}
}

// checkConfigToken vets a token under a credential key: random enough, not
// a placeholder or the name of a variable.
func checkConfigToken(min float64) func(string, int, int) (int, int, bool) {
	return func(text string, s, e int) (int, int, bool) {
		v := text[s:e]
		return s, e, randomEnough(v, min) && !isPlaceholder(v) && !isWordName(v)
	}
}

// checkBase64Password requires the value to decode to a password: printable
// text that is not a placeholder. A value that is not base64 of text is a
// plain password, which password_assignment judges.
func checkBase64Password(text string, s, e int) (int, int, bool) {
	b, ok := decodeBase64(text[s:e])
	if !ok || len(b) == 0 || !utf8.Valid(b) {
		return 0, 0, false
	}
	p := string(b)
	for _, r := range p {
		if !unicode.IsPrint(r) {
			return 0, 0, false
		}
	}
	return s, e, !isPlaceholder(p)
}

// keyStartsLine builds a check that keeps a value whose key (a folded
// expression) starts its line, after indentation and a YAML list dash: a
// key of a config file, not a word in prose.
func keyStartsLine(key string) func(string, int, int) (int, int, bool) {
	re := &lazyRE{build: func() string { return `^[ \t]*(?:-[ \t]+)?["']?` + key + `["']?[ \t]*[=:][ \t]*["']?$` }}
	return func(text string, s, e int) (int, int, bool) {
		ls := strings.LastIndexByte(text[max(0, s-lookAround):s], '\n') + 1 + max(0, s-lookAround)
		return s, e, re.get().MatchString(foldString(text[ls:s]))
	}
}

// maxSectionLookBack bounds how far back a check looks for the section or the
// top-level key a value sits under: a credential file is short, and a bound
// keeps a scan linear in a long text full of such keys.
const maxSectionLookBack = 8192

// prevLines calls fn with the lines before the one that starts at ls, nearest
// first, no further back than maxSectionLookBack bytes, until fn returns false.
func prevLines(text string, ls int, fn func(line string) bool) {
	stop := max(0, ls-maxSectionLookBack)
	for end := ls - 1; end > stop; {
		start := strings.LastIndexByte(text[stop:end], '\n') + 1 + stop
		if !fn(strings.TrimRight(text[start:end], "\r")) {
			return
		}
		end = start - 1
	}
}

// pypircKeyRE is a password key at the start of an ini line.
var pypircKeyRE = &lazyRE{pattern: `^[ \t]*password[ \t]*[=:][ \t]*$`}

// checkPypircPassword keeps a password = … line of a .pypirc: the key starts
// the line, the section is [pypi] or [testpypi] or the file has a [distutils]
// section (which lists the index servers), and the value, trimmed, is not a
// placeholder or a reference.
func checkPypircPassword(text string, s, e int) (int, int, bool) {
	ls := strings.LastIndexByte(text[:s], '\n') + 1
	if !pypircKeyRE.get().MatchString(foldString(text[ls:s])) {
		return 0, 0, false
	}
	e = s + len(strings.TrimRight(text[s:e], " \t\r"))
	v := text[s:e]
	if len(v) < 4 || isPlaceholder(v) {
		return 0, 0, false
	}
	section, distutils := "", false
	prevLines(text, ls, func(line string) bool {
		l := strings.TrimSpace(foldString(line))
		if !strings.HasPrefix(l, "[") || !strings.HasSuffix(l, "]") {
			return true
		}
		name := strings.TrimSpace(l[1 : len(l)-1])
		if section == "" {
			section = name
		}
		distutils = distutils || name == "distutils"
		return !distutils
	})
	return s, e, section == "pypi" || section == "testpypi" || section != "" && distutils
}

// checkKubeClientKey keeps client-key-data whose base64 decodes to a PEM
// private key: the header and some of the key's body, not the header alone.
func checkKubeClientKey(text string, s, e int) (int, int, bool) {
	v := text[s:e]
	v = strings.TrimRight(v, "=")
	b, ok := decodeBase64(v[:len(v)/4*4])
	if !ok {
		return 0, 0, false
	}
	head := string(b[:min(len(b), 64)])
	return s, e, strings.HasPrefix(head, "-----BEGIN") && strings.Contains(head, "PRIVATE KEY") && len(b) >= 100
}

// kubeTokenKeyRE is a token key at the start of a line of a kubeconfig:
// token, or an auth provider's id-token, refresh-token or access-token.
var kubeTokenKeyRE = &lazyRE{pattern: `^[ \t]*(?:-[ \t]+)?["']?(?:(?:id|refresh|access)-)?token["']?[ \t]*:[ \t]*["']?$`}

// checkKubeToken keeps a token: key of a kubeconfig's users: section (the
// nearest line above it that is not indented is "users:") whose value is a
// token, not a placeholder.
func checkKubeToken(text string, s, e int) (int, int, bool) {
	ls := strings.LastIndexByte(text[:s], '\n') + 1
	if !kubeTokenKeyRE.get().MatchString(foldString(text[ls:s])) {
		return 0, 0, false
	}
	v := text[s:e]
	if isPlaceholder(v) || isWordName(v) || entropy(v) < 2.5 {
		return 0, 0, false
	}
	users := false
	prevLines(text, ls, func(line string) bool {
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '-' || line[0] == '#' {
			return true
		}
		users = strings.TrimRight(line, " \t") == "users:"
		return false
	})
	return s, e, users
}
