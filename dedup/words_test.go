package dedup

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStem(t *testing.T) {
	tests := []struct{ word, want string }{
		// Plurals.
		{"tests", "test"},
		{"caches", "cach"},
		{"matches", "match"},
		{"classes", "class"},
		{"queries", "query"},
		{"dependencies", "dependency"},
		{"ties", "tie"},
		{"status", "status"},
		{"analysis", "analysis"},
		{"class", "class"},
		{"https", "http"},
		// -ed and -ing.
		{"cached", "cach"},
		{"caching", "cach"},
		{"cache", "cach"},
		{"used", "use"},
		{"using", "use"},
		{"uses", "use"},
		{"use", "use"},
		{"stopped", "stop"},
		{"running", "run"},
		{"logging", "log"},
		{"committed", "commit"},
		{"called", "call"},
		{"passed", "pass"},
		{"added", "add"},
		{"copied", "copy"},
		{"applying", "apply"},
		{"created", "creat"},
		{"creates", "creat"},
		{"need", "need"},
		{"speed", "speed"},
		{"string", "string"},
		{"strings", "string"},
		{"thing", "thing"},
		{"bring", "bring"},
		// -tion, -sion, -ment.
		{"migration", "migrat"},
		{"migrations", "migrat"},
		{"migrate", "migrat"},
		{"migrated", "migrat"},
		{"connection", "connect"},
		{"compression", "compress"},
		{"option", "option"},
		{"deployment", "deploy"},
		{"environment", "environ"},
		{"comment", "comment"},
		// A final e.
		{"free", "free"},
		{"note", "not"},
		{"toggle", "toggl"},
		{"toggling", "toggl"},
		// Left alone: short, digits, not a–z.
		{"go", "go"},
		{"bus", "bus"},
		{"k8s", "k8s"},
		{"rs256", "rs256"},
		{"utf8s", "utf8s"},
		{"cafés", "cafés"},
		{"données", "données"},
		{"сессии", "сессии"},
	}
	for _, tt := range tests {
		if got := stem(tt.word); got != tt.want {
			t.Errorf("stem(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

// wordOf is the word-set form of a single word.
func wordOf(t *testing.T, w string) uint64 {
	t.Helper()
	toks := Tokens(w)
	if len(toks) != 1 {
		t.Fatalf("%q is %d tokens", w, len(toks))
	}
	h, _ := word([]byte(toks[0]), hashString(toks[0]), nil)
	return h
}

func TestSynonyms(t *testing.T) {
	same := [][]string{
		{"db", "DB", "dbs", "database", "databases"},
		{"auth", "authn", "authentication", "authenticate", "authenticated"},
		{"authz", "authorization", "authorize"},
		{"config", "configs", "cfg", "conf", "configuration", "configurations", "configure", "configured", "configuring"},
		{"repo", "repos", "repository", "repositories"},
		{"env", "envs", "environment", "environments"},
		{"k8s", "kube", "kubernetes"},
		{"pg", "postgres", "postgresql"},
		{"fn", "func", "funcs", "function", "functions"},
		{"dep", "deps", "dependency", "dependencies"},
		{"prod", "production"},
		{"dev", "development"},
		{"msg", "msgs", "message", "messages"},
		{"err", "errs", "error", "errors"},
		{"pw", "pwd", "passwd", "password", "passwords"},
		{"tmp", "temp", "temporary"},
		{"id", "ids", "identifier"},
	}
	for _, group := range same {
		want := wordOf(t, group[0])
		for _, w := range group[1:] {
			if got := wordOf(t, w); got != want {
				t.Errorf("%q and %q have different words", group[0], w)
			}
		}
	}
	different := [][2]string{
		{"auth", "authz"},
		{"db", "dev"},
		{"config", "context"},
		{"database", "data"},
		{"ts", "timestamp"},
	}
	for _, d := range different {
		if wordOf(t, d[0]) == wordOf(t, d[1]) {
			t.Errorf("%q and %q have the same word", d[0], d[1])
		}
	}
}

// TestSynonymTable checks that no spelling is listed for two canonical words,
// which would silently join them.
func TestSynonymTable(t *testing.T) {
	owner := map[string]string{}
	for _, row := range synonymTable {
		if len(row) < 2 {
			t.Errorf("%q has no abbreviation", row[0])
		}
		for _, w := range row {
			if toks := Tokens(w); len(toks) != 1 || toks[0] != w {
				t.Errorf("%q is not one lower-case token", w)
			}
			st := stem(w)
			if o, ok := owner[st]; ok && o != row[0] {
				t.Errorf("%q (stem %q) is listed for %q and %q", w, st, o, row[0])
			}
			owner[st] = row[0]
		}
	}
}

func TestStopWords(t *testing.T) {
	for _, tt := range []struct {
		tok  string
		want bool
	}{
		{"the", true}, {"of", true}, {"s", true}, {"don", true}, {"also", true},
		{"not", false}, {"no", false}, {"never", false}, {"only", false}, {"must", true},
		{"use", false}, {"redis", false},
		{"的", true}, {"を", true}, {"ま", true}, {"デ", false}, {"数", false},
	} {
		if got := isStop([]byte(tt.tok), hashString(tt.tok)); got != tt.want {
			t.Errorf("isStop(%q) = %v, want %v", tt.tok, got, tt.want)
		}
	}
}

func TestTable(t *testing.T) {
	tab := newTable[int](3)
	keys := []uint64{1, 42, 1 << 63}
	for i, k := range keys {
		tab.put(k, i+1)
	}
	for i, k := range keys {
		if v, ok := tab.get(k); !ok || v != i+1 {
			t.Errorf("get(%d) = %d, %v; want %d, true", k, v, ok, i+1)
		}
	}
	if _, ok := tab.get(7); ok {
		t.Error("get(7) found a key never put")
	}
}

func TestSynonymsOfAText(t *testing.T) {
	got := Synonyms("Which K8s version? The DB and the dbs, configs; nothing else.")
	want := map[string][]string{
		"k8s":     {"kubernetes", "kube"},
		"db":      {"database"},
		"dbs":     {"database", "db"},
		"configs": {"configuration", "cfg", "conf", "configure"},
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("(-got +want):\n%s", diff)
	}
	if got := Synonyms("nothing to expand here"); got != nil {
		t.Errorf("no synonyms: %v", got)
	}
}

// TestSynonymsNotInPaths checks that the words of a path or URL get no
// synonyms: /var/lib/ names a folder, not a library.
func TestSynonymsNotInPaths(t *testing.T) {
	tests := []struct {
		text string
		want map[string][]string
	}{
		{"disk full under /var/lib/postgres", nil},
		{"see `C:\\tools\\lib\\util.dll`", nil},
		{"cache in ~/.cache/pkg and https://example.com/lib/db", nil},
		{"the lib in /var/lib/ is stale", map[string][]string{"lib": {"library"}}},
		{"(src/lib/db.go) has the db pool", map[string][]string{"db": {"database"}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(Synonyms(tt.text), tt.want); diff != "" {
			t.Errorf("Synonyms(%q) (-got +want):\n%s", tt.text, diff)
		}
	}
}
