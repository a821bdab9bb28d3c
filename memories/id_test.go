package memories

import (
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
