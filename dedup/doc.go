// Package dedup says whether a new memory is already known, and how related
// two memories are, so that a save can refuse a near-duplicate and link
// related memories. It is pure: no I/O, no state, the standard library only.
//
// A memory is a duplicate when what it says is already said: Score(new, old)
// is the share of the new memory's words that the old one has,
// |new∩old| / |new|. The order matters. A short summary of a long section
// scores high against it (everything it says is there); the long section
// scores low against the summary (most of what it says is not). The SPEC's
// first formula divided by the smaller of the two sets, so that a short note
// "contained" a long one and the long one was refused; and it weighted bigrams
// and trigrams of raw tokens, which every paraphrase breaks (a reordered
// clause, a change of tense, "DB" for "database").
//
// Sharing words is not saying the same thing: "plugin enable" and "plugin
// disable", "pool is 20" and "pool is 50", a macOS and a Windows shortcut
// table, "secret rm" and "config rm" share nearly all of them. Key words keep
// such memories distinct (see keys.go): a number, identifier or code token of
// the new memory that the old one lacks, opposite words, a negation, other
// platforms, other subjects or names. A pair with such a Conflict scores at
// most 0.5: never a duplicate at the default threshold of 0.7, still related.
//
// Related links are ranked by Related, 2|a∩b| / (|a|+|b|), symmetric: a long
// note that holds many of a short one's words, scattered, covers it well but
// is not its topic.
//
// A text becomes a Fingerprint: sorted, distinct 64-bit FNV-1a hashes
// (deterministic across processes) of
//
//   - its words: the tokens less stop words, lightly stemmed ("caching" and
//     "cache" meet) and with common developer abbreviations expanded ("db"
//     meets "database", "k8s" meets "kubernetes"); in Chinese and Japanese,
//     each character and each pair of characters in a row;
//   - the bigrams of its raw tokens, less stop words, within a sentence or
//     line (a command quoted as code must be quoted in the same order);
//   - its key words (numbers, code tokens, opposites, negated words, the words
//     of sentences with a negation, platforms, the title's words said again in
//     the text, capitalised names, the words of links' texts).
//
// The choices, each shown by a test:
//
//   - Tokens are runs of Unicode letters and digits, lower-cased; each Han,
//     Hiragana or Katakana character is a token by itself (see Tokens).
//   - Stemming is English-only and deliberately light (see stem): plurals,
//     -ed, -ing, -tion/-sion, -ment and a final e; never below three letters,
//     never a word with digits or non a–z letters.
//   - Stop words (English function words; negations kept) are dropped. A text
//     of nothing but stop words keeps them.
//   - Callers pass a memory as its title, a new line, and its content: the
//     first line is the title.
//
// Known limits, measured in the tests (TestCalibrationGaps, and the pair set
// of fixtures/dedup, whose report TestDuplicatePairs prints): a short note
// whose one distinctive word is a plain word the old note lacks, its other
// words all there, scores as a duplicate ("Tests use testcontainers for
// Postgres" against a note on Postgres tests); so does a fact added in words
// the old note has. Paraphrases that reword most of a note, or turn a
// negation around ("can only be disabled with -f" for "cannot be disabled
// without -f"), are kept as new.
//
// Speed: the index proposes candidates (QueryTerms picks the words to ask it
// for) and Score runs only on those; New takes tens of microseconds on a 2 KB
// text and Score well under a microsecond (BenchmarkNew2KB, BenchmarkScore).
//
// It imports only the standard library (arch_test.go checks).
package dedup
