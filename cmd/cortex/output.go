package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// printJSON writes v as indented JSON.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// excerpt shortens text to about n characters, on a word boundary. It reads
// no further into s than the n characters it keeps: a recall shows the
// start of notes many times that long.
func excerpt(s string, n int) string {
	s = strings.TrimSpace(s)
	end := 0 // the byte after s's first n characters
	for k := 0; k < n; k++ {
		if end >= len(s) {
			return s
		}
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	if end >= len(s) {
		return s
	}
	cut := s[:end]
	if !utf8.ValidString(cut) {
		// Each byte that is not UTF-8 counts as a character and is shown as
		// U+FFFD, as converting the text to runes does.
		cut = string([]rune(cut))
	}
	if i := strings.LastIndexAny(cut, " \n"); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " \n,.;:") + " …"
}

// indent prefixes every line of s.
func indent(w io.Writer, prefix, s string) {
	for _, line := range strings.Split(s, "\n") {
		fmt.Fprintf(w, "%s%s\n", prefix, strings.TrimRight(line, " \t"))
	}
}

func tagList(tags []string) string {
	if len(tags) == 0 {
		return ""
	}
	return "#" + strings.Join(tags, " #")
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02") }
