package security

import "strings"

// vendorForms are the tokens of services whose keys carry a prefix of their
// own, each a form of credential.vendor_token. The shapes come from gitleaks
// (MIT, see NOTICE), rewritten for Go's regexp package and this table.
// Test-mode keys (shippo_test_, duffel_test_, FLWSECK_TEST-, EZTK…) are keys:
// they open a real account.
func vendorForms() []form {
	withPre := func(f form, pre func(string, int) bool) form { f.pre = pre; return f }
	v := func(triggers []string, pattern string) form { return form{triggers: triggers, pattern: pattern} }
	return []form{
		v([]string{"pul-"}, `pul-[a-f0-9]{40}`),                                                                                                                 // Pulumi
		v([]string{"rubygems_"}, `rubygems_[a-f0-9]{48}`),                                                                                                       // RubyGems
		v([]string{"sntryu_"}, `sntryu_[a-f0-9]{64}`),                                                                                                           // Sentry user token
		v([]string{"sntrys_eyj"}, `sntrys_eyJ[a-zA-Z0-9+/]{20,400}={0,2}_[a-zA-Z0-9+/]{43}`),                                                                    // Sentry org token
		v([]string{"pscale_tkn_", "pscale_pw_", "pscale_oauth_"}, `pscale_(?:tkn|pw|oauth)_[\w=.-]{32,64}`),                                                     // PlanetScale
		v([]string{"pnu_"}, `pnu_[a-zA-Z0-9]{36}`),                                                                                                              // Prefect
		v([]string{"rdme_"}, `rdme_[a-z0-9]{70}`),                                                                                                               // ReadMe
		v([]string{"xkeysib-"}, `xkeysib-[a-f0-9]{64}-[a-zA-Z0-9]{16}`),                                                                                         // Brevo (Sendinblue)
		v([]string{"pplx-"}, `pplx-[a-zA-Z0-9]{48}`),                                                                                                            // Perplexity
		v([]string{"ntn_"}, `ntn_[0-9]{11}[A-Za-z0-9]{35}`),                                                                                                     // Notion
		v([]string{"sgp_"}, `sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}|sgp_[a-fA-F0-9]{40}`),                                                                // Sourcegraph
		v([]string{"fo1_", "fm1a_", "fm1r_", "fm2_"}, `fo1_[\w-]{43}|fm1[ar]_[a-zA-Z0-9+/]{100,}={0,3}|fm2_[a-zA-Z0-9+/]{100,}={0,3}`),                          // Fly.io (FlyV1 fm2_…)
		v([]string{"sha256~"}, `sha256~[\w-]{43}`),                                                                                                              // OpenShift user token
		v([]string{"eyjrijoi"}, `eyJrIjoi[A-Za-z0-9]{70,400}={0,3}`),                                                                                            // Grafana API key
		v([]string{"shippo_live_", "shippo_test_"}, `shippo_(?:live|test)_[a-fA-F0-9]{40}`),                                                                     // Shippo
		v([]string{"duffel_test_", "duffel_live_"}, `duffel_(?:test|live)_[A-Za-z0-9_=-]{43}`),                                                                  // Duffel
		v([]string{"flwseck_test-", "flwpubk_test-", "flwseck-", "flwpubk-"}, `FLW(?:SECK|PUBK)(?:_TEST)?-[a-hA-H0-9]{32}-X|FLWSECK(?:_TEST)?-[a-hA-H0-9]{12}`), // Flutterwave
		v([]string{"ezak", "eztk"}, `EZ[AT]K[a-zA-Z0-9]{54}`),                                                                                                   // EasyPost
		v([]string{"dt0c01."}, `dt0c01\.[a-zA-Z0-9]{24}\.[a-zA-Z0-9]{64}`),                                                                                      // Dynatrace
		v([]string{"clojars_"}, `CLOJARS_[a-zA-Z0-9]{60}`),                                                                                                      // Clojars
		v([]string{"nrak-", "nrjs-", "nrii-"}, `NRAK-[a-zA-Z0-9]{27}|NRJS-[a-f0-9]{19}|NRII-[a-zA-Z0-9-]{32}`),                                                  // New Relic
		v([]string{"tfp_"}, `tfp_[a-zA-Z0-9_.=-]{59}`),                                                                                                          // Typeform
		v([]string{"sm_pat_", "sm_aat_", "sm_sat_"}, `sm_(?:pat|aat|sat)_[a-zA-Z0-9]{16}`),                                                                      // SettleMint
		v([]string{"glffct-"}, `glffct-[0-9a-zA-Z_-]{20}`),                                                                                                      // GitLab feature-flag client token
		v([]string{"gr1348941"}, `GR1348941[\w-]{20}`),                                                                                                          // GitLab runner registration token
		v([]string{"_gitlab_session="}, `_gitlab_session=([0-9a-z]{32})`),                                                                                       // GitLab session cookie
		v([]string{"pat.", "sat."}, `(?:pat|sat)\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9]{24}\.[a-zA-Z0-9]{20}`),                                                         // Harness
		v([]string{"fio-u-"}, `fio-u-[a-zA-Z0-9_=-]{64}`),                                                                                                       // Frame.io
		v([]string{"ico-"}, `ico-[a-zA-Z0-9]{32}`),                                                                                                              // Infracost
		v([]string{"bedrock-api-key-", "absk"}, `bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=]*|ABSK[A-Za-z0-9+/]{109,269}={0,2}`),                 // Amazon Bedrock
		v([]string{"sc_", "ext_", "scauth_", "authress_"}, `(?:sc|ext|scauth|authress)_[a-zA-Z0-9]{5,30}\.[a-zA-Z0-9]{4,6}\.acc[_-][a-zA-Z0-9-]{10,32}\.[a-zA-Z0-9+/_=-]{30,120}`), // Authress
		withPre(v([]string{"pat"}, `pat[a-zA-Z0-9]{14}\.[a-f0-9]{64}`), alnumThen(len("pat"), 14, '.')),                                                                            // Airtable personal access token
		v([]string{"a3-"}, `A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}`),                                                          // 1Password secret key
		v([]string{"ops_eyj"}, `ops_eyJ[a-zA-Z0-9+/]{250,}={0,3}`),                                                                                                                 // 1Password service account
		v([]string{"tk-us-"}, `tk-us-[\w-]{48}`), // Scalingo
		v([]string{"access-sandbox-", "access-development-", "access-production-"}, `access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), // Plaid
		v([]string{"eaam", "eaac"}, `EAA[MC][a-zA-Z0-9]{100,}`),                 // Facebook page access token
		v([]string{"ltai"}, `LTAI[a-zA-Z0-9]{20}`),                              // Alibaba Cloud access key ID
		v([]string{"dnkey-"}, `dnkey-[a-zA-Z0-9=_-]{26}-[a-zA-Z0-9=_-]{52}`),    // Defined Networking
		v([]string{"aqvn"}, `AQVN[A-Za-z0-9_-]{35,38}`),                         // Yandex API key
		v([]string{"t1."}, `t1\.[A-Z0-9a-z_-]+={0,2}\.[A-Z0-9a-z_-]{86}={0,2}`), // Yandex access token
		v([]string{"pk.", "sk."}, `[ps]k\.[a-zA-Z0-9]{60}\.[a-zA-Z0-9]{22}`),    // Mapbox
		v([]string{"aaaaaaaaaaaaaaaaaaaaaa"}, `A{22}[a-zA-Z0-9%]{80,100}`),      // Twitter bearer token
		v([]string{"xoxa-", "xoxr-", "xoxo-", "xoxs-", "xoxb-"}, `xox[ar]-\d-\d{6,13}-\d{6,13}-\d{6,13}-[a-f0-9]{16,64}|xox[ar]-(?:\d-)?[0-9a-zA-Z]{8,48}|xox[os]-\d+-\d+-\d+-[a-fA-F\d]+|xoxb-[0-9]{8,14}-[a-zA-Z0-9]{18,26}`), // Slack legacy tokens
		v([]string{"s-s4t2ud-", "s-s4t2af-"}, `s-s4t2(?:ud|af)-[a-f0-9]{64}`), // 42 intra client secret
		v([]string{"bundle_enterprise__contribsys__com", "bundle_gems__contribsys__com"}, `(?i:bundle_(?:enterprise|gems)__contribsys__com)[^\n]{0,20}?\s*(?:=|:|>)\s*["']?([a-f0-9]{8}:[a-f0-9]{8})`), // Sidekiq Enterprise
		v([]string{"p8e-"}, `p8e-[a-zA-Z0-9]{32}`),          // Adobe client secret
		v([]string{"zxlk"}, `ZXlK[A-Za-z0-9+/]{60,}={0,2}`), // a JWT in base64, checked below
		// SonarQube's user, project analysis and global analysis tokens:
		// squ_, sqp_ or sqa_ and 40 hex digits.
		v([]string{"squ_", "sqp_", "sqa_"}, `sq[uap]_[a-f0-9]{40}`),
		// HubSpot private app access tokens: pat-, the account's data
		// centre (na1, eu1, ap1…) and a UUID.
		v([]string{"pat-na", "pat-eu", "pat-ap"}, `pat-(?:na|eu|ap)\d-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`),
		// JFrog reference tokens, as JFrog documents them: cmVmd (base64
		// of "reftkn…") and 59 more letters and digits; not a piece of a
		// longer run of base64.
		{triggers: []string{"cmvmd"}, pattern: `cmVmd[A-Za-z0-9]{59}`, check: notInBase64},
	}
}

// vendorTokenCheck vets a vendor token: not filler, and a base64 JWT must
// decode to one.
func vendorTokenCheck(text string, s, e int) (int, int, bool) {
	// A key whose alphabet has "." ends before the full stop of a sentence.
	for e > s && text[e-1] == '.' {
		e--
	}
	if strings.HasPrefix(text[s:e], "ZXlK") {
		b, ok := decodeBase64(text[s:e])
		if !ok || !strings.HasPrefix(string(b), "eyJ") {
			return 0, 0, false
		}
		t := string(b)
		if i := strings.IndexAny(t, "\r\n \t"); i >= 0 {
			t = t[:i]
		}
		// Header and claims, each a JSON object in base64url.
		return s, e, jwtShapeRE.get().MatchString(t)
	}
	if v := text[s:e]; slackLegacyRE.get().MatchString(v) {
		// xoxa-2-511111111-31111111111-…-e039d0…: the ids are
		// digits that may repeat; the hex at the end is the secret.
		// Eighteen hex digits score under isFiller's entropy as often as
		// not: what is typed repeats.
		tail := v[strings.LastIndexByte(v, '-')+1:]
		return s, e, !isRepeated(tail) && !strings.Contains(tail, "0000")
	}
	if e-s < 24 {
		// A short value (Sidekiq's 8:8 hex) scores under isFiller's
		// entropy however random it is.
		f := foldString(text[s:e])
		return s, e, !isRepeated(f) && !strings.Contains(f, "xxxx") && !strings.Contains(f, "example")
	}
	return s, e, !isFiller(text[s:e])
}

// notInBase64 drops a finding that continues a run of base64: a + or / just
// before it.
func notInBase64(text string, s, e int) (int, int, bool) {
	return s, e, s == 0 || text[s-1] != '+' && text[s-1] != '/'
}

// slackLegacyRE matches a Slack legacy workspace token in full: ids, then hex.
var slackLegacyRE = &lazyRE{pattern: `^xox[ar]-\d-\d+-\d+-\d+-[a-f0-9]+$`}

// jwtShapeRE matches a JWT's header and claims.
var jwtShapeRE = &lazyRE{pattern: `^eyJ[A-Za-z0-9_-]{4,}={0,2}\.eyJ[A-Za-z0-9_-]{8,}`}

// k8sDataRE finds the data: and stringData: keys of a manifest, and
// k8sValueRE a key: value line under them.
var (
	k8sDataRE  = &lazyRE{pattern: `(?m)^([ \t]*)(data|stringData):[ \t]*$`}
	k8sValueRE = &lazyRE{pattern: `^([ \t]+)[\w.-]+:[ \t]*["']?([^\s"'#]+)["']?[ \t]*$`}
)

// maxManifest bounds how far from kind: Secret its data is looked for.
const maxManifest = 4096

// checkKubernetesSecret finds, in the manifest whose "kind: Secret" is at
// text[s:e], the first value under data: (base64 that decodes) or
// stringData: (any value that is not a placeholder or a template), and
// reports it. The manifest is the YAML document around the kind, between
// "---" lines; data: may come before kind: or after it.
func checkKubernetesSecret(text string, s, e int) (int, int, bool) {
	a, b := max(0, s-maxManifest), min(len(text), e+maxManifest)
	for a > 0 && !utf8RuneStart(text, a) {
		a++
	}
	b = alignEnd(text, b)
	if i := strings.LastIndex(text[a:s], "\n---"); i >= 0 {
		a += i + 4
	}
	if i := strings.Index(text[e:b], "\n---"); i >= 0 {
		b = e + i
	}
	doc := text[a:b]
	for _, m := range k8sDataRE.get().FindAllStringSubmatchIndex(doc, -1) {
		indent, stringData := m[3]-m[2], doc[m[4]:m[5]] == "stringData"
		at := m[1] + 1
		for at < len(doc) {
			end := strings.IndexByte(doc[at:], '\n')
			if end < 0 {
				end = len(doc)
			} else {
				end += at
			}
			line := doc[at:end]
			if t := strings.TrimSpace(line); t == "" || t[0] == '#' {
				// A blank line or a comment does not end the block.
				at = end + 1
				continue
			}
			v := k8sValueRE.get().FindStringSubmatchIndex(line)
			if v == nil || v[3]-v[2] <= indent {
				break // the block ended
			}
			vs, ve := at+v[4], at+v[5]
			if val := doc[vs:ve]; strings.Trim(val, "|>-+") == "" && end < len(doc) {
				// A block scalar: the value is on the next line.
				next := strings.IndexByte(doc[end+1:], '\n')
				if next < 0 {
					next = len(doc)
				} else {
					next += end + 1
				}
				body := doc[end+1 : next]
				vs = end + 1 + len(body) - len(strings.TrimLeft(body, " \t"))
				ve = end + 1 + len(strings.TrimRight(body, " \t\r"))
				end = next
			}
			if vs < ve && k8sSecretValue(doc[vs:ve], stringData) {
				return a + vs, a + ve, true
			}
			at = end + 1
		}
	}
	return 0, 0, false
}

// k8sSecretValue vets a value of a Secret's data (base64) or stringData.
func k8sSecretValue(v string, plain bool) bool {
	if isReference(foldString(v)) || strings.Contains(v, "{{") || isRepeated(foldString(v)) {
		return false
	}
	if plain {
		return len(v) >= 6 && !isPlaceholder(v)
	}
	b, ok := decodeBase64(v)
	// "YmFyCg==" is "bar": too short to be a secret.
	return ok && len(strings.TrimSpace(string(b))) >= 6
}

func utf8RuneStart(s string, i int) bool { return i >= len(s) || s[i] < 0x80 || s[i] >= 0xc0 }

// alnumThen builds a pre for an expression that reads skip bytes, then n
// letters or digits, then the byte then ("pat" in prose turns away at its
// first byte past the trigger, without running the expression).
func alnumThen(skip, n int, then byte) func(string, int) bool {
	return func(text string, i int) bool {
		i += skip
		if i+n >= len(text) || text[i+n] != then {
			return false
		}
		for _, c := range []byte(text[i : i+n]) {
			if !isAlnum(c) {
				return false
			}
		}
		return true
	}
}
