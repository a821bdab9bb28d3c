// Package dedup scores how alike two memories are (SPEC §5), so that a save can
// refuse a near-duplicate and link related memories. It is pure: no I/O, no
// state, the standard library only.
//
// A text becomes a Fingerprint of three sets, each held as sorted, distinct
// 64-bit FNV-1a hashes (deterministic across processes):
//
//   - words: the tokens less stop words, lightly stemmed ("caching" and "cache"
//     meet) and with common developer abbreviations expanded ("db" meets
//     "database", "k8s" meets "kubernetes");
//   - bigrams and trigrams of the raw tokens (not stemmed, not expanded), less
//     stop words, within a sentence or line.
//
// Two fingerprints compare by containment, |a∩b| / min(|a|,|b|), of each set,
// weighted 0.5 words + 0.3 bigrams + 0.2 trigrams. Containment rather than
// Jaccard means a short note whose content a longer one holds scores as its
// duplicate: "Use Redis" against "Use Redis for the session store" is 0.8.
//
// The choices, each shown by a test:
//
//   - Tokens are runs of Unicode letters and digits, lower-cased; each Han,
//     Hiragana or Katakana character is a token by itself, so unspaced Chinese
//     and Japanese are compared by character n-grams (see Tokens).
//   - Stemming is English-only and deliberately light (see stem): plurals,
//     -ed, -ing, -tion/-sion, -ment and a final e; never below three letters,
//     never a word with digits or non a–z letters.
//   - Stop words (English function words; negations kept) are dropped from the
//     words and from the token sequence the n-grams are taken from. Keeping
//     them in the n-grams makes short notes that share "is the" or "run the"
//     look related, and a changed fact ("pool is 20" against "pool is 50")
//     score as a duplicate. A text of nothing but stop words keeps them.
//   - N-grams end at a sentence or line, so reordered sentences lose nothing.
//   - A set that neither text has (one or two words have no trigrams) is left
//     out and the weights of the others scaled up; a set only one text has
//     counts 0. A text with any token thus scores 1 against itself.
//
// Known limits of the formula, measured in the tests (TestCalibrationGaps):
// because n-grams are of raw tokens, a natural paraphrase of a short sentence
// that reorders a clause, changes tense or voice, or writes "DB" for
// "database" keeps all its words but few n-grams and scores 0.56–0.68, under
// the duplicate threshold of 0.7. Two notes on one topic that share only its
// name score under the related threshold of 0.2.
//
// Speed: the index proposes candidates (QueryTerms picks the words to ask it
// for) and Score runs only on those; New takes tens of microseconds on a 2 KB
// text and Score about a microsecond (BenchmarkNew2KB, BenchmarkScore).
//
// It imports only the standard library (arch_test.go checks).
package dedup
