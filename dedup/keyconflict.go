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
	if newer.Empty() || len(newer.numbers) == 0 && len(newer.codes) == 0 {
		return false
	}
	k := keyScanner{buf: make([]byte, 0, 64), scratch: make([]byte, 0, 64)}
	k.scanKeys(older)
	var scratch sortScratch
	return missing(newer.numbers, sortSet(k.numbers, &scratch)) || missing(newer.codes, sortSet(k.codes, &scratch))
}

// ConflictScore is Compare's Score of a pair with a conflict whose Words is
// words.
func ConflictScore(words float64) float64 { return min(words, conflictCap) }
