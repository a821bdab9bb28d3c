package dedup

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// poolTexts are the texts of the dedup pair sets, each side once: real
// notes of many shapes (code, numbers, negations, tables, other scripts).
func poolTexts(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, name := range fixtureFiles {
		for _, p := range loadPairs(t, name) {
			out = append(out, p.Old.text(), p.New.text())
		}
	}
	return out
}

// TestEncodeRoundTrip: a fingerprint decoded from its encoding is the one
// encoded, and scores as it against every other text.
func TestEncodeRoundTrip(t *testing.T) {
	texts := append(poolTexts(t), "", "the of and", "日本語のテキスト", "Turn autolock off.\nLog in.")
	opts := cmp.Options{cmp.AllowUnexported(Fingerprint{}, polarWord{}), cmpopts.EquateEmpty()}
	var into Fingerprint // reused, as a pool reuses it
	for i, s := range texts {
		fp := New(s)
		if err := into.DecodeInto(fp.AppendBinary(nil)); err != nil {
			t.Fatalf("text %d: %v", i, err)
		}
		if diff := cmp.Diff(fp, &into, opts); diff != "" {
			t.Fatalf("text %d decoded (-want +got):\n%s", i, diff)
		}
		other := New(texts[(i+1)%len(texts)])
		if got, want := Compare(other, &into), Compare(other, fp); got != want {
			t.Fatalf("text %d: Compare against the decoded %+v, against the original %+v", i, got, want)
		}
	}
}

func TestDecodeRefusesDamage(t *testing.T) {
	enc := New("Run `docker run -p 8080:80` on Linux, not Windows.").AppendBinary(nil)
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"other version", append([]byte{9}, enc[1:]...)},
		{"cut short", enc[:len(enc)-3]},
		{"bytes left over", append(append([]byte{}, enc...), 0)},
		{"count past the end", append(append([]byte{}, enc[:5]...), 0xff, 0xff, 0xff, 0x7f)},
	} {
		var f Fingerprint
		if err := f.DecodeInto(tc.b); err == nil {
			t.Errorf("%s: decoded without an error", tc.name)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(New("Use RS256 for JWT signing; HS256 is not safe. `make lint` 42").AppendBinary(nil))
	f.Add([]byte{encodingVersion, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		var fp Fingerprint
		if err := fp.DecodeInto(b); err != nil {
			return
		}
		// What decodes encodes back to the same bytes.
		if got := fp.AppendBinary(nil); string(got) != string(b) {
			t.Fatalf("re-encoded %x, decoded from %x", got, b)
		}
	})
}

// memStore is a PoolStore in memory, counting what it holds.
type memStore struct {
	encs [][]byte
	gets int
	fail error
}

func (m *memStore) Put(i int, enc []byte) error {
	if i != len(m.encs) {
		return fmt.Errorf("put %d after %d", i, len(m.encs))
	}
	m.encs = append(m.encs, append([]byte(nil), enc...))
	return m.fail
}

func (m *memStore) Get(i int, b []byte) ([]byte, error) {
	m.gets++
	return append(b, m.encs[i]...), nil
}

// TestStoredPoolAgrees: a pool keeping its fingerprints in a store finds and
// scores exactly as one keeping them in memory, and keeps none itself.
func TestStoredPoolAgrees(t *testing.T) {
	texts := poolTexts(t)
	plain, st := NewPool(), &memStore{}
	stored := NewStoredPool(st)
	for i, s := range texts {
		fp := New(s)
		th := DefaultThresholds()
		if diff := cmp.Diff(plain.Near(fp, []int32{0}, th, 4), stored.Near(fp, []int32{0}, th, 4)); diff != "" {
			t.Fatalf("text %d: stored pool (-plain +stored):\n%s", i, diff)
		}
		plain.Add(fp, 0)
		stored.Add(fp, 0)
	}
	if err := stored.Err(); err != nil {
		t.Fatal(err)
	}
	if stored.Len() != plain.Len() || len(stored.fps) != 0 || len(st.encs) != len(texts) || st.gets == 0 {
		t.Errorf("stored pool: Len %d (plain %d), %d fingerprints in memory, %d in the store, %d read back",
			stored.Len(), plain.Len(), len(stored.fps), len(st.encs), st.gets)
	}
}

// TestStoredPoolHoldsInMemory: a pool with a store holding n bytes in
// memory keeps the first fingerprints that fit there, puts every later one
// in the store (its first as the store's 0th), and finds and scores as a
// pool keeping them all in memory; with room for all, the store gets none.
func TestStoredPoolHoldsInMemory(t *testing.T) {
	texts := poolTexts(t)
	fps := make([]*Fingerprint, len(texts))
	total := 0
	for i, s := range texts {
		fps[i] = New(s)
		total += fps[i].memSize()
	}
	for _, hold := range []int{total / 3, total} {
		plain, st := NewPool(), &memStore{}
		stored := NewStoredPool(st)
		stored.HoldInMemory(hold)
		th := DefaultThresholds()
		for i, fp := range fps {
			if diff := cmp.Diff(plain.Near(fp, []int32{0}, th, 4), stored.Near(fp, []int32{0}, th, 4)); diff != "" {
				t.Fatalf("holding %d of %d bytes, text %d (-plain +stored):\n%s", hold, total, i, diff)
			}
			plain.Add(fp, 0)
			stored.Add(fp, 0)
		}
		if err := stored.Err(); err != nil {
			t.Fatal(err)
		}
		held := 0
		for _, fp := range fps[:len(stored.fps)] {
			held += fp.memSize()
		}
		switch {
		case stored.Len() != len(fps) || len(stored.fps)+len(st.encs) != len(fps):
			t.Errorf("holding %d bytes: Len %d, %d in memory, %d in the store, of %d", hold, stored.Len(), len(stored.fps), len(st.encs), len(fps))
		case held > hold || len(stored.fps) < len(fps) && held+fps[len(stored.fps)].memSize() <= hold:
			t.Errorf("holding %d bytes: the first %d fingerprints held, %d bytes", hold, len(stored.fps), held)
		case hold < total && (len(stored.fps) == 0 || len(st.encs) == 0 || st.gets == 0):
			t.Errorf("holding a third: %d in memory, %d in the store, %d read back: the test did not test", len(stored.fps), len(st.encs), st.gets)
		case hold == total && (len(st.encs) != 0 || st.gets != 0):
			t.Errorf("room for all: %d put in the store, %d read back", len(st.encs), st.gets)
		}
		for i, enc := range st.encs {
			var want []byte
			if want = fps[len(stored.fps)+i].AppendBinary(nil); !slices.Equal(enc, want) {
				t.Fatalf("holding %d bytes: the store's %d is not fingerprint %d", hold, i, len(stored.fps)+i)
			}
		}
	}
}

func TestStoredPoolError(t *testing.T) {
	broken := errors.New("disk full")
	p := NewStoredPool(&memStore{fail: broken})
	p.Add(New("Redis is the session store; sessions expire after 24 hours."), 0)
	if !errors.Is(p.Err(), broken) {
		t.Fatalf("Err = %v, want %v", p.Err(), broken)
	}
	if got := p.Near(New("Redis is the session store; sessions expire after 24 hours."), []int32{0}, DefaultThresholds(), 3); got != nil {
		t.Errorf("Near after a store error: %+v, want nothing", got)
	}
}
