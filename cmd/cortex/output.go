package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cortexmem/cortex/memories"
)

// memoryJSON is how a memory appears in JSON output. Keys are stable.
type memoryJSON struct {
	ID           string            `json:"id"`
	ShortID      string            `json:"short_id"`
	Title        string            `json:"title"`
	Type         string            `json:"type"`
	Project      string            `json:"project"`
	Area         string            `json:"area,omitempty"`
	Tags         []string          `json:"tags"`
	Source       string            `json:"source"`
	Status       string            `json:"status"`
	Importance   int               `json:"importance"`
	Created      time.Time         `json:"created"`
	Updated      time.Time         `json:"updated"`
	Path         string            `json:"path"`
	Supersedes   string            `json:"supersedes,omitempty"`
	SupersededBy string            `json:"superseded_by,omitempty"`
	Content      *string           `json:"content,omitempty"`
	Score        *float64          `json:"score,omitempty"`
	Signals      *memories.Signals `json:"signals,omitempty"`
}

func (a *app) entryJSON(e *memories.Entry, short string) memoryJSON {
	tags := e.Tags
	if tags == nil {
		tags = []string{}
	}
	return memoryJSON{
		ID: e.ID, ShortID: short, Title: e.Title, Type: string(e.Type), Project: e.Project,
		Area: e.Area, Tags: tags, Source: string(e.Source), Status: string(e.Status),
		Importance: e.Importance, Created: e.Created, Updated: e.Updated,
		Path: a.store.Vault().Abs(e.Path), SupersededBy: e.SupersededBy,
	}
}

func (a *app) memoryJSON(m *memories.Memory, short string) memoryJSON {
	e := memories.EntryOf(m)
	j := a.entryJSON(&e, short)
	j.Supersedes = m.Supersedes
	content := m.Content()
	j.Content = &content
	return j
}

// printJSON writes v as indented JSON.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// excerpt shortens text to about n characters, on a word boundary.
func excerpt(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	cut := string(r)
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
