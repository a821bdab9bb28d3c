package memories

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// countingReader is a deterministic entropy source: 0, 1, 2, … mod 256.
type countingReader struct{ n byte }

func (r *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.n
		r.n++
	}
	return len(p), nil
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("no entropy") }

// checkULID fails the test unless id is a lower-case ULID of time t.
func checkULID(t *testing.T, id string, at time.Time) {
	t.Helper()
	if len(id) != IDLen {
		t.Errorf("id %q has %d characters, want %d", id, len(id), IDLen)
	}
	if id != strings.ToLower(id) || !ValidIDChars(id) {
		t.Errorf("id %q is not lower-case letters and digits", id)
	}
	if id[0] > '7' {
		t.Errorf("id %q starts above '7': it could collide with a derived id", id)
	}
	u, err := ulid.ParseStrict(strings.ToUpper(id))
	if err != nil {
		t.Fatalf("id %q is not a ULID: %v", id, err)
	}
	if got, want := u.Time(), uint64(at.UnixMilli()); got != want {
		t.Errorf("id %q holds time %d ms, want %d", id, got, want)
	}
}

func TestULIDGenSortsByTime(t *testing.T) {
	t0 := time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)
	// Minted out of time order, so the entropy (which grows with each id) does
	// not agree with the times.
	times := []time.Time{
		t0.Add(24 * time.Hour),
		t0.Add(time.Millisecond),
		t0,
		t0.Add(time.Second),
		t0.Add(365 * 24 * time.Hour),
	}
	g := NewULIDGen(&countingReader{})
	var ids []string
	for _, at := range times {
		id := g.NewID(at)
		checkULID(t, id, at)
		ids = append(ids, id)
	}
	byTime := slices.Clone(times)
	slices.SortFunc(byTime, func(a, b time.Time) int { return a.Compare(b) })
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	for i, id := range sorted {
		j := slices.Index(ids, id)
		if !times[j].Equal(byTime[i]) {
			t.Errorf("sorted id %d is %q of time %v, want the id of time %v", i, id, times[j], byTime[i])
		}
	}
}

func TestULIDGenSameTime(t *testing.T) {
	at := time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)
	g := NewULIDGen(&countingReader{})
	a, b := g.NewID(at), g.NewID(at)
	if a == b {
		t.Errorf("two ids of the same time are both %q", a)
	}
	if a[:10] != b[:10] {
		t.Errorf("ids of the same millisecond %q and %q have different time parts", a, b)
	}
	// The same entropy gives the same id: tests can rely on it.
	if c := NewULIDGen(&countingReader{}).NewID(at); c != a {
		t.Errorf("a second generator with the same entropy minted %q, want %q", c, a)
	}
}

func TestULIDGenSystemEntropy(t *testing.T) {
	at := time.Now()
	g := NewULIDGen(nil)
	a, b := g.NewID(at), g.NewID(at)
	checkULID(t, a, at)
	checkULID(t, b, at)
	if a == b {
		t.Errorf("two ids from crypto/rand are both %q", a)
	}
}

// TestULIDGenMonotonic: the ids one process mints from the system's
// randomness in one millisecond (an import of thousands of notes) sort in
// the order they were minted and never repeat.
func TestULIDGenMonotonic(t *testing.T) {
	at := time.Date(2025, 3, 14, 15, 9, 26, 123e6, time.UTC)
	g := NewULIDGen(nil)
	prev := ""
	for i := 0; i < 2000; i++ {
		id := g.NewID(at)
		checkULID(t, id, at)
		if id <= prev {
			t.Fatalf("id %d %q does not sort after the one before, %q", i, id, prev)
		}
		prev = id
	}
	// A new millisecond starts from fresh randomness, not from the last id.
	next := g.NewID(at.Add(time.Millisecond))
	if next[:10] == prev[:10] || next[10:] == prev[10:] {
		t.Errorf("the next millisecond's id %q continues %q", next, prev)
	}
}

func TestULIDGenBrokenEntropy(t *testing.T) {
	at := time.Date(2025, 3, 14, 15, 9, 26, 123e6, time.UTC)
	g := NewULIDGen(failingReader{})
	seen := map[string]bool{}
	for i := 0; i < 100; i++ {
		id := g.NewID(at)
		checkULID(t, id, at)
		if seen[id] {
			t.Fatalf("id %s minted twice for the same time with a broken entropy source", id)
		}
		seen[id] = true
	}
}

func TestDerivedID(t *testing.T) {
	paths := []string{
		"memories/general/Use tabs.md",
		"memories/general/use tabs.md",
		"memories/web/Use tabs.md",
		"Inbox/idea.md",
		"idea.md",
		"",
	}
	seen := map[string]string{}
	for _, p := range paths {
		id := DerivedID(p)
		if again := DerivedID(p); again != id {
			t.Errorf("DerivedID(%q) is %q then %q", p, id, again)
		}
		if len(id) != IDLen || !strings.HasPrefix(id, "z") || !ValidIDChars(id) {
			t.Errorf("DerivedID(%q) = %q, want %d lower-case characters starting with z", p, id, IDLen)
		}
		if other, dup := seen[id]; dup {
			t.Errorf("DerivedID(%q) = DerivedID(%q) = %q", p, other, id)
		}
		seen[id] = p
	}
}

// The derived id is the identity of every note made by hand: changing the
// function changes who those notes are. These values were computed
// independently (sha256 of "cortex-note:"+path, base32 with the id alphabet).
func TestDerivedIDIsStableAcrossVersions(t *testing.T) {
	for path, want := range map[string]string{
		"memories/general/Use tabs.md": "zdpcm8zt87ngaqjxy253g6kxex",
		"Inbox/idea.md":                "z5gx9s97ygfv5xxyep399ds2xa",
	} {
		if got := DerivedID(path); got != want {
			t.Errorf("DerivedID(%q) = %q, want %q", path, got, want)
		}
	}
}

// idList is an IDLister over a fixed list of ids.
type idList struct {
	ids []string
	err error
}

func (l idList) IDsWithPrefix(prefix string, limit int) ([]string, error) {
	if l.err != nil {
		return nil, l.err
	}
	var out []string
	for _, id := range slices.Sorted(slices.Values(l.ids)) {
		if strings.HasPrefix(id, prefix) {
			out = append(out, id)
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func TestResolveID(t *testing.T) {
	const (
		id1 = "01hx4k2m9p0000000000000001"
		id2 = "01hx4k2m9p0000000000000002"
		id3 = "01hx7z0000000000000000000a"
	)
	lister := idList{ids: []string{
		id3, id1, id2,
		"proj-note", "proj-note-2", // ids people gave notes in Obsidian
		"abc", "abcdefghij",
	}}
	tests := []struct {
		name     string
		ref      string
		want     string
		wantArg  bool     // an *ArgError for "id"
		wantNone bool     // ErrNotFound
		wantMsg  []string // parts of the error message
	}{
		{name: "full id", ref: id1, want: id1},
		{name: "upper case and spaces", ref: "  01HX4K2M9P0000000000000001 ", want: id1},
		{name: "unique prefix of eight", ref: "01hx7z00", want: id3},
		{name: "unique longer prefix", ref: "01hx4k2m9p0000000000000002", want: id2},
		{name: "exact id prefixing another", ref: "proj-note", want: "proj-note"},
		{name: "exact id shorter than eight", ref: "abc", want: "abc"},
		{name: "prefix of seven", ref: "01hx7z0", wantArg: true, wantMsg: []string{`"01hx7z0" is too short`, "at least 8"}},
		{name: "short prefix matching nothing", ref: "zzzz", wantArg: true, wantMsg: []string{"too short"}},
		{name: "short prefix of a longer id", ref: "abcd", wantArg: true, wantMsg: []string{"too short"}},
		{name: "ambiguous", ref: "01hx4k2m", wantArg: true, wantMsg: []string{"ambiguous", id1, id2}},
		{name: "not found", ref: "01hz00000", wantNone: true, wantMsg: []string{"01hz00000"}},
		{name: "empty", ref: "   ", wantArg: true, wantMsg: []string{"must not be empty"}},
		{name: "path", ref: "../01hx4k2m", wantArg: true, wantMsg: []string{"is not an id"}},
		{name: "space inside", ref: "01hx 4k2m", wantArg: true, wantMsg: []string{"is not an id"}},
		{name: "non-ASCII", ref: "01hx4k2mé", wantArg: true, wantMsg: []string{"is not an id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveID(lister, tt.ref)
			switch {
			case tt.wantArg:
				checkArgError(t, err, "id", tt.wantMsg...)
			case tt.wantNone:
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("got %q, %v; want ErrNotFound", got, err)
				}
				if errors.Is(err, ErrInvalid) {
					t.Errorf("not found error %q is also ErrInvalid", err)
				}
				for _, p := range tt.wantMsg {
					if !strings.Contains(err.Error(), p) {
						t.Errorf("error %q does not contain %q", err, p)
					}
				}
			default:
				if err != nil {
					t.Fatalf("got error %q, want %q", err, tt.want)
				}
				if got != tt.want {
					t.Errorf("got %q, want %q", got, tt.want)
				}
			}
		})
	}
}

func TestResolveIDAmbiguousListsAtMostFive(t *testing.T) {
	var ids []string
	for _, c := range "abcdefg" {
		ids = append(ids, "01hy00000000000000000000a"+string(c))
	}
	_, err := ResolveID(idList{ids: ids}, "01hy0000")
	checkArgError(t, err, "id", ids[4], "…")
	if strings.Contains(err.Error(), ids[5]) {
		t.Errorf("error %q lists more than five candidates", err)
	}
}

func TestResolveIDListerError(t *testing.T) {
	boom := errors.New("index unreadable")
	_, err := ResolveID(idList{err: boom}, "01hx4k2m")
	if !errors.Is(err, boom) {
		t.Errorf("got %v, want the lister's error", err)
	}
}

// shortIDs is each id's shortest unique prefix of at least MinPrefix
// characters among ids, as people are shown it: in sorted order, the id
// sharing the longest prefix with one is a neighbour of it.
func shortIDs(ids []string) map[string]string {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	shared := func(a, b string) int {
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		return n
	}
	out := make(map[string]string, len(ids))
	for i, id := range sorted {
		n := 0
		if i > 0 {
			n = shared(id, sorted[i-1])
		}
		if i+1 < len(sorted) {
			n = max(n, shared(id, sorted[i+1]))
		}
		out[id] = id[:min(len(id), max(MinPrefix, n+1))]
	}
	return out
}

// TestImportIDsAreShort: an import dates its memories from their sources, to
// the second, so a folder copied at once gives thousands of ids of one
// millisecond. Their short ids stay within the ten time characters and the
// count's code (three characters up to 10,756 ids of one millisecond), where
// ids monotonic by a random increment left 18 to 21; they are unique, and
// sort in the order the import minted them. Ids of other seconds, minted in
// between, count apart.
func TestImportIDsAreShort(t *testing.T) {
	second := time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)
	cands := boundCandidates(3000)
	for i := range cands {
		created := second
		if i%10 == 9 { // a few files of other seconds, in between
			created = second.Add(time.Duration(1+i%3) * time.Second)
		}
		cands[i].Request.Created = created
	}
	svc := NewService(newFake(t), WithClock(func() time.Time { return testNow }),
		WithImporter(&fakeImporter{set: &ImportSet{Candidates: cands}}))
	res, err := svc.Import(context.Background(), ImportRequest{Path: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Imported < 2000 {
		t.Fatalf("imported %d of %d: the test did not test", res.Imported, len(cands))
	}
	var ids []string
	for _, m := range res.Memories {
		ids = append(ids, m.ID)
	}
	short := shortIDs(ids)
	if len(short) != len(ids) {
		t.Fatalf("%d ids, %d distinct", len(ids), len(short))
	}
	longest := 0
	for _, id := range ids {
		longest = max(longest, len(short[id]))
	}
	// 2,700 ids share the first second's millisecond: their code has three
	// characters at most, and the others' fewer.
	if longest > 13 {
		t.Errorf("the longest short id has %d characters, want at most 13 (10 of time, 3 of count)", longest)
	}
	byMs := map[string][]string{}
	for _, id := range ids { // in the order they were minted
		byMs[id[:10]] = append(byMs[id[:10]], id)
	}
	for ms, in := range byMs {
		if !slices.IsSorted(in) {
			t.Errorf("the ids of millisecond %s do not sort in the order they were minted", ms)
		}
	}
	if len(byMs) != 4 {
		t.Errorf("ids of %d milliseconds, want 4", len(byMs))
	}
}

// TestCountCode: codes sort as their counts, none is the prefix of another,
// and their lengths are the classes'.
func TestCountCode(t *testing.T) {
	lengths := map[uint64]int{0: 1, 3: 1, 4: 2, 515: 2, 516: 3, 10_755: 3, 10_756: 4, 43_523: 4, 43_524: 8, 43_524 + 1<<35 - 1: 8}
	for k, n := range lengths {
		code, ok := countCode(k)
		if !ok || len(code) != n {
			t.Errorf("countCode(%d) = %v, %v: want %d characters", k, code, ok, n)
		}
	}
	if code, ok := countCode(43_524 + 1<<35); ok {
		t.Errorf("countCode past the last class = %v, want none", code)
	}
	str := func(c []byte) string {
		b := make([]byte, len(c))
		for i, v := range c {
			if v > 31 {
				t.Fatalf("code %v has a character past 31", c)
			}
			b[i] = "0123456789abcdefghjkmnpqrstvwxyz"[v]
		}
		return string(b)
	}
	var prev string
	check := func(k uint64) {
		code, ok := countCode(k)
		if !ok {
			t.Fatalf("countCode(%d) has no code", k)
		}
		s := str(code)
		if k > 0 && (s <= prev || strings.HasPrefix(s, prev)) {
			t.Fatalf("code of %d %q does not follow the code of %d %q", k, s, k-1, prev)
		}
		prev = s
	}
	for k := range uint64(50_000) {
		check(k)
	}
	prev, _ = func() (string, bool) { c, ok := countCode(1<<34 - 1); return str(c), ok }()
	check(1 << 34)
}

// TestULIDGenCodesCount: an id's random part starts with its count's code,
// and the rest is random.
func TestULIDGenCodesCount(t *testing.T) {
	at := time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)
	g := NewULIDGen(nil)
	tails := map[string]bool{}
	for k := range uint64(600) {
		id := g.NewID(at)
		checkULID(t, id, at)
		code, _ := countCode(k)
		for i, c := range code {
			if got := id[10+i]; got != "0123456789abcdefghjkmnpqrstvwxyz"[c] {
				t.Fatalf("id %d %q: character %d is %c, want the count's %d", k, id, 10+i, got, c)
			}
		}
		tails[id[10+len(code):]] = true
	}
	if len(tails) != 600 {
		t.Errorf("600 ids have %d distinct random tails", len(tails))
	}
}

// TestULIDGenForgetsCounts: a generator counts ids in countedMillis
// milliseconds at most; past them it starts again, and ids of a millisecond
// minted before and after still differ.
func TestULIDGenForgetsCounts(t *testing.T) {
	at := time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)
	g := NewULIDGen(nil)
	seen := map[string]bool{}
	mint := func(ts time.Time) {
		id := g.NewID(ts)
		checkULID(t, id, ts)
		if seen[id] {
			t.Fatalf("id %s minted twice", id)
		}
		seen[id] = true
	}
	for range 3 {
		mint(at)
	}
	for i := range countedMillis + 1 {
		mint(at.Add(time.Duration(i+1) * time.Millisecond))
	}
	if len(g.minted) > countedMillis {
		t.Errorf("the generator counts %d milliseconds, want at most %d", len(g.minted), countedMillis)
	}
	for range 3 {
		mint(at)
	}
}
