package dedup

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// A fingerprint's encoding (AppendBinary, DecodeInto): a version byte, the
// platforms (4 bytes), then each set as a uvarint count followed by its
// values, 8 bytes each, little-endian (a polar word: its root, then its side
// as one byte). Hashes spread evenly, so they are stored as they are: a
// delta coding would save a byte or two of each eight.
const encodingVersion = 1

// sets lists the fingerprint's sets of hashes in their encoding order.
func (f *Fingerprint) sets() [11]*[]uint64 {
	return [11]*[]uint64{&f.words, &f.bigrams, &f.numbers, &f.codes, &f.codeWords, &f.codeBigrams,
		&f.title, &f.negated, &f.denied, &f.salient, &f.names}
}

// AppendBinary appends the encoding of f to b: what a pool whose
// fingerprints live outside the heap (PoolStore) writes.
func (f *Fingerprint) AppendBinary(b []byte) []byte {
	b = append(b, encodingVersion)
	b = binary.LittleEndian.AppendUint32(b, f.platforms)
	for _, s := range f.sets() {
		b = binary.AppendUvarint(b, uint64(len(*s)))
		for _, v := range *s {
			b = binary.LittleEndian.AppendUint64(b, v)
		}
	}
	for _, p := range [2][]polarWord{f.polar, f.titlePolar} {
		b = binary.AppendUvarint(b, uint64(len(p)))
		for _, w := range p {
			b = binary.LittleEndian.AppendUint64(b, w.root)
			b = append(b, w.side)
		}
	}
	return b
}

var errShort = errors.New("decode fingerprint: truncated")

// DecodeInto sets f to the fingerprint b encodes (AppendBinary), reusing f's
// memory: a pool reading fingerprints back decodes each into the same one.
func (f *Fingerprint) DecodeInto(b []byte) error {
	if len(b) < 5 {
		return errShort
	}
	if b[0] != encodingVersion {
		return fmt.Errorf("decode fingerprint: version %d, want %d", b[0], encodingVersion)
	}
	f.platforms = binary.LittleEndian.Uint32(b[1:])
	b = b[5:]
	count := func(size int) (int, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k)/uint64(size) {
			return 0, errShort
		}
		b = b[k:]
		return int(n), nil
	}
	for _, s := range f.sets() {
		n, err := count(8)
		if err != nil {
			return err
		}
		// Sized once, then filled: appending one by one was half of
		// reading a fingerprint back.
		v := slices.Grow((*s)[:0], n)[:n]
		for i := range v {
			v[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
		b = b[8*n:]
		*s = v
	}
	for _, p := range [2]*[]polarWord{&f.polar, &f.titlePolar} {
		n, err := count(9)
		if err != nil {
			return err
		}
		v := slices.Grow((*p)[:0], n)[:n]
		for i := range v {
			v[i] = polarWord{root: binary.LittleEndian.Uint64(b[9*i:]), side: b[9*i+8]}
		}
		b = b[9*n:]
		*p = v
	}
	if len(b) != 0 {
		return fmt.Errorf("decode fingerprint: %d bytes left over", len(b))
	}
	return nil
}
