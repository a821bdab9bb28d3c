package aider

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/searchreplace"
)

// The edit formats' tool names, as the tool calls name them.
const (
	toolSearchReplace = "search_replace" // diff, diff-fenced, editor-diff: SEARCH/REPLACE blocks
	toolWhole         = "whole"          // whole, editor-whole: a file's whole content in a fence
	toolUdiff         = "udiff"          // udiff: unified diffs without line numbers
)

// parseEdits reads the edits a reply asks for in the edit format aider
// named (format): SEARCH/REPLACE blocks, whole files, or unified diffs.
// With no format named, SEARCH/REPLACE blocks are looked for, then unified
// diffs.
func parseEdits(text, format string) []pending {
	switch {
	case strings.Contains(format, "udiff"):
		return udiffs(text)
	case strings.Contains(format, "whole"):
		return wholeFiles(text)
	}
	if out := searchReplace(text); len(out) > 0 || format != "" {
		return out
	}
	return udiffs(text)
}

// searchReplace reads SEARCH/REPLACE blocks, each file named on a line
// before it (before or after its fence), or by the block before.
func searchReplace(text string) []pending {
	var out []pending
	current := ""
	for _, b := range searchreplace.Parse(text) {
		if !b.Complete {
			continue
		}
		if name := findFilename(text[:b.Start]); name != "" {
			current = name
		}
		if current == "" {
			continue
		}
		out = append(out, pending{Tool: toolSearchReplace, Path: current, Search: b.Search, Replace: b.Replace})
	}
	return out
}

// findFilename looks at the lines just before a block, as aider does: the
// last three, from the nearest back, for as long as they are fences.
func findFilename(before string) string {
	// Only the last three lines matter: split no more of a long reply.
	before = strings.TrimSuffix(before, "\n")
	cut := len(before)
	for n := 0; n < 3 && cut > 0; n++ {
		cut = strings.LastIndexByte(before[:cut], '\n')
		if cut < 0 {
			cut = 0
		}
	}
	if cut > 0 {
		before = before[cut+1:]
	}
	lines := strings.Split(before, "\n")
	for n := 0; n < 3 && len(lines) > 0; n++ {
		l := strings.TrimSuffix(lines[len(lines)-1], "\r")
		lines = lines[:len(lines)-1]
		if name := stripFilename(l); name != "" {
			return name
		}
		if !strings.HasPrefix(l, "```") {
			break
		}
	}
	return ""
}

// stripFilename is aider's strip_filename: the file a line names, "" when
// it names none.
func stripFilename(line string) string {
	l := strings.TrimSpace(line)
	if l == "..." || l == "" {
		return ""
	}
	if rest, ok := strings.CutPrefix(l, "```"); ok {
		rest = strings.TrimLeft(rest, "`")
		if rest != "" && strings.ContainsAny(rest, "./") {
			return rest
		}
		return ""
	}
	l = strings.TrimRight(l, ":")
	l = strings.TrimLeft(l, "#")
	l = strings.TrimSpace(l)
	l = strings.Trim(l, "`")
	l = strings.Trim(l, "*")
	return l
}

// wholeFiles reads the whole format: a file's name on the line before a
// fence holding its whole new content.
func wholeFiles(text string) []pending {
	var out []pending
	lines := strings.Split(text, "\n")
	for i := 1; i < len(lines); i++ {
		open := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(open, "```") {
			continue
		}
		name := stripFilename(lines[i-1])
		fence := open[:strings.LastIndex(open, "`")+1]
		end := i + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != fence {
			end++
		}
		if end >= len(lines) {
			break
		}
		if name != "" {
			content := strings.Join(lines[i+1:end], "\n")
			if end > i+1 {
				content += "\n"
			}
			out = append(out, pending{Tool: toolWhole, Path: name, Content: content})
		}
		i = end
	}
	return out
}

// udiffs reads the udiff format: fenced diffs with --- and +++ headers and
// hunks whose "@@ ... @@" lines carry no line numbers.
func udiffs(text string) []pending {
	var out []pending
	lines := strings.Split(text, "\n")
	in := false
	var cur *pending
	for _, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		t := strings.TrimSpace(l)
		switch {
		case !in && strings.HasPrefix(t, "```diff"):
			in, cur = true, nil
		case !in:
		case t == "```":
			in, cur = false, nil
		case strings.HasPrefix(l, "--- "):
			out = append(out, pending{Tool: toolUdiff, New: strings.TrimSpace(l[4:]) == "/dev/null"})
			cur = &out[len(out)-1]
		case strings.HasPrefix(l, "+++ ") && cur != nil && cur.Path == "":
			cur.Path = strings.TrimSpace(l[4:])
		case cur == nil || cur.Path == "":
		case strings.HasPrefix(l, "@@"):
			cur.Hunks = append(cur.Hunks, nil)
		case l == "" || l[0] == ' ' || l[0] == '-' || l[0] == '+':
			if len(cur.Hunks) == 0 {
				cur.Hunks = append(cur.Hunks, nil)
			}
			if l == "" {
				l = " "
			}
			cur.Hunks[len(cur.Hunks)-1] = append(cur.Hunks[len(cur.Hunks)-1], l)
		}
	}
	kept := out[:0]
	for _, p := range out {
		if p.Path != "" && p.Path != "/dev/null" {
			kept = append(kept, p)
		}
	}
	return kept
}

// input is the edit as its tool call's input.
func (p pending) input() json.RawMessage {
	m := map[string]any{"path": p.Path}
	switch p.Tool {
	case toolSearchReplace:
		m["search"], m["replace"] = p.Search, p.Replace
	case toolWhole:
		m["content"] = p.Content
	case toolUdiff:
		m["hunks"] = p.Hunks
	}
	b, _ := json.Marshal(m)
	return b
}

// edit is the file edit of an edit aider applied (ok) or not: created
// when aider created the file empty for it (or a udiff from /dev/null),
// else the replaced text (a Fragment), a udiff's hunks as written (a
// Fragment: they carry no line numbers), or a whole file's new content
// (with no diff: its content before is not in the history).
func (p pending) edit(ok, created bool) *transcript.FileEdit {
	fe := &transcript.FileEdit{CallID: p.CallID, Tool: p.Tool, Path: p.Path, Op: transcript.OpUpdate, OK: ok, From: transcript.FromInput}
	create := created || p.New
	var hunks []transcript.Hunk
	switch p.Tool {
	case toolSearchReplace:
		fe.Old, fe.New = p.Search, p.Replace
		if create && p.Search == "" {
			fe.Op = transcript.OpCreate
		} else {
			fe.Fragment = true
		}
		hunks = transcript.Diff(p.Search, p.Replace)
	case toolWhole:
		fe.New = p.Content
		if create {
			fe.Op, hunks = transcript.OpCreate, transcript.Diff("", p.Content)
		}
	case toolUdiff:
		if create {
			fe.Op = transcript.OpCreate
		} else {
			fe.Fragment = true
		}
		for _, h := range p.Hunks {
			hunks = append(hunks, transcript.Hunk{OldStart: 1, NewStart: 1, Lines: h})
		}
	}
	oldPath := headerPath(p.Path)
	if fe.Op == transcript.OpCreate {
		oldPath = "/dev/null"
	}
	fe.Unified = transcript.FormatUnified(oldPath, headerPath(p.Path), hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// headerPath is a path as a diff's --- and +++ lines name it: quoted when it
// holds a line break or another control character.
func headerPath(path string) string {
	if strings.IndexFunc(path, func(r rune) bool { return r < ' ' || r == 0x7f }) < 0 {
		return path
	}
	return strconv.Quote(path)
}
