package memories

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// Identifiers are ULIDs written in lower case: 26 characters, the first ten the
// creation time in milliseconds, the rest 80 bits from crypto/rand. They sort by
// time, and two machines sharing a vault (synced, or clones of one git
// repository) never mint the same one: each millisecond's first id is 80 fresh
// random bits, so ids minted apart never depend on a clock, a machine name or a
// counter another machine could share. Within one process the entropy is
// monotonic: ids minted in the same millisecond (a large import) are the
// previous one's random part plus a random increment, so they still sort in
// the order they were minted and never repeat.
//
// A note made by hand without an id gets one derived from its path: "z" followed by
// 25 characters of a hash. ULIDs never start with "z" (their first character is at
// most "7"), so the two kinds cannot collide and a derived id is easy to recognise.

const (
	// IDLen is the length of a full id.
	IDLen = 26
	// MinPrefix is the shortest id prefix accepted in place of an id.
	MinPrefix = 8
)

// IDGen mints new ids. Tests inject a deterministic one.
type IDGen interface {
	NewID(t time.Time) string
}

// ULIDGen mints ULIDs from the system's secure random source, monotonic
// within a millisecond.
type ULIDGen struct {
	mu      sync.Mutex
	entropy io.Reader
	n       uint64 // ids minted, for the fallback
}

// NewULIDGen returns a generator reading randomness from crypto/rand,
// monotonic within a millisecond, when r is nil. A reader r given instead
// (deterministic tests, the evaluation's reproducible vaults) is read as it
// is: each id's random part is the reader's next ten bytes.
func NewULIDGen(r io.Reader) *ULIDGen {
	if r == nil {
		// The default increment (up to 2^32) keeps the ids of one
		// millisecond as hard to guess as fresh ones, with room for
		// billions of them.
		return &ULIDGen{entropy: ulid.Monotonic(rand.Reader, 0)}
	}
	return &ULIDGen{entropy: r}
}

// NewID returns a new lower-case ULID for time t.
func (g *ULIDGen) NewID(t time.Time) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n++
	id, err := ulid.New(ulid.Timestamp(t), g.entropy)
	if err != nil {
		// crypto/rand never fails on supported platforms, and a millisecond
		// never holds enough ids to overflow the monotonic entropy. Should
		// either happen, the id still must not collide: hash the time with
		// what sets this process and this call apart.
		sum := sha256.Sum256(fmt.Appendf(nil, "%d/%d/%d/%d", t.UnixNano(), os.Getpid(), g.n, time.Now().UnixNano()))
		var fallback ulid.ULID
		_ = fallback.SetTime(ulid.Timestamp(t))
		_ = fallback.SetEntropy(sum[:10])
		id = fallback
	}
	return strings.ToLower(id.String())
}

// KeyedID is the id of a note cortex makes from something that has an
// identity of its own (a captured event, a transcript's node): a ULID of time
// t whose random part is a hash of key. The same key and time give the same id
// on every run and every machine, so that a run interrupted and run again
// finds the notes it wrote instead of writing them twice; different keys give
// ids that differ in their 80 random bits.
func KeyedID(t time.Time, key string) string {
	sum := sha256.Sum256([]byte(key))
	var u ulid.ULID
	ms := uint64(0)
	if t.After(time.Unix(0, 0)) && t.Before(ulid.Time(ulid.MaxTime())) {
		ms = ulid.Timestamp(t)
	}
	_ = u.SetTime(ms)
	_ = u.SetEntropy(sum[:10])
	return strings.ToLower(u.String())
}

var derivedEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// DerivedID is the id of a note that has none of its own: a stable function of its
// vault-relative path.
func DerivedID(path string) string {
	sum := sha256.Sum256([]byte("cortex-note:" + path))
	return "z" + derivedEncoding.EncodeToString(sum[:])[:IDLen-1]
}

// NormalizeID lower-cases an id or prefix and trims the spaces around it.
func NormalizeID(s string) string {
	return strings.ToLower(strings.TrimSpace(s))
}

// ValidIDChars reports whether s uses only the characters ids may have: lower-case
// letters and digits (cortex's own ids), and "-" and "_" (ids people give notes in
// Obsidian).
func ValidIDChars(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// IDLister lists ids by prefix; a Snapshot is one.
type IDLister interface {
	IDsWithPrefix(prefix string, limit int) ([]string, error)
}

// ResolveID finds the one id that is ref or starts with ref. ref must be a full
// id or a prefix of at least MinPrefix characters.
func ResolveID(l IDLister, ref string) (string, error) {
	ref = NormalizeID(ref)
	switch {
	case ref == "":
		return "", invalid("id", "must not be empty")
	case !ValidIDChars(ref):
		return "", invalid("id", "%q is not an id: ids use only letters, digits, '-' and '_'", ref)
	}
	ids, err := l.IDsWithPrefix(ref, 6)
	if err != nil {
		return "", err
	}
	for _, id := range ids {
		if id == ref {
			return id, nil // an exact id wins even when it prefixes others
		}
	}
	switch {
	case len(ref) < MinPrefix:
		return "", invalid("id", "%q is too short: give at least %d characters of the id", ref, MinPrefix)
	case len(ids) == 0:
		return "", &NotFoundError{Ref: ref}
	case len(ids) == 1:
		return ids[0], nil
	}
	shown := ids
	if len(ids) > 5 {
		shown = append(ids[:5:5], "…")
	}
	return "", invalid("id", "%q is ambiguous: it starts %s; give more characters", ref, strings.Join(shown, ", "))
}

// NotFoundError names the id or prefix that matched nothing.
type NotFoundError struct{ Ref string }

func (e *NotFoundError) Error() string { return "no memory with id " + e.Ref }

// Unwrap makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }
