package pipeline

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// What a marker says about the words after it.
const (
	optNone = iota
	optChosen
	optRejected
)

// optionOf tells whether the words after a rule's marker name a chosen
// option, a rejected one, or neither. Rules from config name their options
// by id suffix, as the defaults do.
func optionOf(m Match) int {
	id := m.Rule
	if i := strings.LastIndexByte(id, '.'); i >= 0 {
		id = id[i+1:]
	}
	switch m.Category {
	case CategoryDecision:
		switch id {
		case "use", "go_with", "switch_to", "migrate_to", "adopt", "choose", "settle_on", "pick", "stick_with":
			return optChosen
		}
	case CategoryRejection:
		if id == "in_favour_of" || id == "in_favor_of" {
			return optChosen
		}
		return optRejected
	case CategoryBan:
		if id == "never_use" || id == "avoid" {
			return optRejected
		}
	}
	return optNone
}

// maxOptionWords bounds an option's length.
const maxOptionWords = 6

// optionStops end an option: the words that start the next clause or
// qualify the option rather than name it.
var optionStops = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"instead": true, "rather": true, "as": true, "in": true, "over": true, "because": true, "since": true,
		"for": true, "so": true, "and": true, "but": true, "or": true, "to": true, "on": true, "with": true,
		"when": true, "if": true, "from": true, "everywhere": true, "here": true, "now": true, "going": true,
		"across": true, "throughout": true, "unless": true, "until": true, "where": true, "which": true,
		"that": true, "then": true, "than": true, "again": true, "anymore": true, "any": true, "at": true,
		"by": true, "via": true, "please": true, "too": true, "also": true, "only": true, "is": true, "are": true,
	}
})

// vagueOptions name nothing on their own.
var vagueOptions = map[string]bool{
	"it": true, "this": true, "that": true, "them": true, "these": true, "those": true, "one": true,
	"something": true, "anything": true, "whatever": true, "what": true, "which": true,
}

// decide reads a gated turn's decision: the epitome (the sentence holding the
// first marker that admits), the chosen and the rejected options.
func decide(text string, v Verdict) (epitome string, chosen, rejected []string) {
	sentences := splitSentences(text)
	for _, m := range v.Matches {
		if !m.Commits() {
			continue
		}
		if epitome == "" {
			if s, ok := sentenceAt(sentences, m.Start); ok {
				epitome = text[s.start:s.end]
			}
		}
		switch optionOf(m) {
		case optChosen:
			chosen = addOption(chosen, option(text, m.End))
		case optRejected:
			rejected = addOption(rejected, option(text, m.End))
		}
	}
	return epitome, chosen, rejected
}

func addOption(list []string, o string) []string {
	if o == "" {
		return list
	}
	for _, x := range list {
		if strings.EqualFold(x, o) {
			return list
		}
	}
	return append(list, o)
}

// option reads the words after a marker, up to the end of the clause, a stop
// word or maxOptionWords, without a leading article and the quotes or
// backticks around it.
func option(text string, at int) string {
	var words []string
	rest := text[at:]
	for len(words) < maxOptionWords {
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			break
		}
		end := strings.IndexAny(rest, " \t\r\n")
		if end < 0 {
			end = len(rest)
		}
		word := rest[:end]
		if end == 0 || !utf8.ValidString(word) {
			break
		}
		trimmed := strings.TrimRight(word, ".,;:!?)]}\"'’”")
		stopAfter := len(trimmed) < len(word)
		w := strings.Trim(trimmed, "`\"'“”‘’([{*_")
		lw := strings.ToLower(w)
		if w == "" || optionStops()[lw] {
			break
		}
		if !(len(words) == 0 && (lw == "the" || lw == "a" || lw == "an" || lw == "our" || lw == "my")) {
			words = append(words, w)
		}
		rest = rest[end:]
		if stopAfter || strings.HasPrefix(rest, "\n") || strings.HasPrefix(rest, "\r") {
			break
		}
	}
	o := strings.Join(words, " ")
	if vagueOptions[strings.ToLower(o)] {
		return ""
	}
	return o
}
