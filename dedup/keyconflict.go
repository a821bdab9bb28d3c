package dedup

// KeysConflict reports whether the new text, whose fingerprint is newer,
// has a number or a code token (an identifier, a file name, a flag) that
// the older text lacks: then Compare(newer, New(older)) has a conflict,
// whatever else the texts hold, and its Score is ConflictScore of its Words.
// It scans only older's keys, not its words: about a third of what New of
// a long text costs. A false answer says nothing; Compare the whole
// fingerprints to know. older must have a word (New(older) is not Empty),
// as any text sharing a word with newer has: Compare finds nothing in a
// text without one.
//
// A saved memory is often contained in many long notes that differ from it
// by a version or a port (Words at the duplicate threshold, a conflict in
// fact): each had to be fingerprinted whole to learn it.
func KeysConflict(newer *Fingerprint, older string) bool {
	if !HasKeys(newer) {
		return false
	}
	return KeysOf(older).Lack(newer)
}

// HasKeys reports whether newer has a number or a code token: only then
// can KeysConflict say true of it.
func HasKeys(newer *Fingerprint) bool {
	return !newer.Empty() && (len(newer.numbers) > 0 || len(newer.codes) > 0)
}

// Keys are a text's numbers and code tokens, as its fingerprint holds
// them: what KeysConflict compares, kept so that a text compared with many
// saves is scanned once (a long-running process keeps them).
type Keys struct {
	numbers, codes []uint64
}

// KeysOf is the keys of text, scanned without the rest of its fingerprint.
func KeysOf(text string) Keys {
	k := keyScanner{buf: make([]byte, 0, 64), scratch: make([]byte, 0, 64)}
	k.scanKeys(text)
	var scratch sortScratch
	return Keys{numbers: sortSet(k.numbers, &scratch), codes: sortSet(k.codes, &scratch)}
}

// Keys are f's keys: KeysOf of the text f was made of, to the bit, without
// scanning it again. They share f's memory, which must not be changed.
func (f *Fingerprint) Keys() Keys {
	if f == nil {
		return Keys{}
	}
	return Keys{numbers: f.numbers, codes: f.codes}
}

// Lack reports whether newer has a number or a code token that k, the
// keys of an older text, lacks: KeysConflict(newer, older) for k =
// KeysOf(older) (the same conditions on newer and older apply).
func (k Keys) Lack(newer *Fingerprint) bool {
	if !HasKeys(newer) {
		return false
	}
	return missing(newer.numbers, k.numbers) || missing(newer.codes, k.codes)
}

// Size is about how many bytes k holds.
func (k Keys) Size() int { return 8 * (len(k.numbers) + len(k.codes)) }

// ConflictScore is Compare's Score of a pair with a conflict whose Words is
// words.
func ConflictScore(words float64) float64 { return min(words, conflictCap) }

// Numbers are k's numbers, and Codes its code tokens: sorted hashes,
// without repeats, shared with k (never change them).
func (k Keys) Numbers() []uint64 { return k.numbers }

// Codes are k's code tokens (see Numbers).
func (k Keys) Codes() []uint64 { return k.codes }

// KeysFrom is the Keys whose Numbers and Codes are numbers and codes, as a
// store that kept them gives them back; false, and no keys, unless each
// increases strictly (a sorted set without repeats, as Lack needs).
func KeysFrom(numbers, codes []uint64) (Keys, bool) {
	for _, s := range [][]uint64{numbers, codes} {
		for i := 1; i < len(s); i++ {
			if s[i] <= s[i-1] {
				return Keys{}, false
			}
		}
	}
	return Keys{numbers: numbers, codes: codes}, true
}
