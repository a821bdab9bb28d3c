// Package searchreplace reads the SEARCH/REPLACE edit blocks coding agents
// ask models to write: the text to find and the text to put in its place,
// between marker lines. Three families of markers are in use:
//
//	<<<<<<< SEARCH        Aider (5 to 9 marker characters), and Cline's and
//	=======               Roo Code's older form
//	>>>>>>> REPLACE
//
//	------- SEARCH        Cline's current replace_in_file (3 or more)
//	=======
//	+++++++ REPLACE
//
// Roo Code's apply_diff adds ":start_line:N" (and ":end_line:N") and a
// "-------" line after the SEARCH marker. The reader accepts any of them in
// any block, so a model that mixes them is read as the tool reads it.
package searchreplace

import (
	"strconv"
	"strings"
)

// Block is one SEARCH/REPLACE block.
type Block struct {
	// Search is the text to find and Replace its replacement, each line
	// with its newline.
	Search, Replace string
	// StartLine is the line Roo Code's ":start_line:" names, 0 without one.
	StartLine int
	// Start and End delimit the block in the text read, from its SEARCH
	// marker line to after its REPLACE marker line (or the end of the text).
	Start, End int
	// Complete is false for a block the text ends inside of (a model cut
	// off, a file still being written).
	Complete bool
}

// IsSearch reports whether line (without its newline) opens a block.
func IsSearch(line string) bool {
	return marker(line, "SEARCH", '<', '-')
}

func isDivider(line string) bool {
	l := strings.TrimRight(line, " \t\r")
	return len(l) >= 3 && strings.Trim(l, "=") == ""
}

func isReplace(line string) bool {
	return marker(line, "REPLACE", '>', '+')
}

// marker reports whether line is three or more of one of the characters,
// a space and word (with an optional ">" after it, which models add).
func marker(line, word string, chars ...byte) bool {
	l := strings.TrimRight(line, " \t\r")
	l = strings.TrimSuffix(l, ">")
	head, ok := strings.CutSuffix(l, " "+word)
	if !ok || len(head) < 3 {
		return false
	}
	for _, c := range chars {
		if strings.Trim(head, string(c)) == "" {
			return true
		}
	}
	return false
}

// Parse returns the blocks of text in order. Lines outside blocks (a file
// name, fences, prose) are skipped.
func Parse(text string) []Block {
	var out []Block
	pos := 0
	for pos < len(text) {
		line, next := lineAt(text, pos)
		if !IsSearch(line) {
			pos = next
			continue
		}
		b := Block{Start: pos}
		pos = next
		var search, replace strings.Builder
		inReplace, first, header := false, true, false
		for pos < len(text) {
			line, next = lineAt(text, pos)
			full := text[pos:next]
			if !strings.HasSuffix(full, "\n") {
				full += "\n"
			}
			switch {
			case !inReplace && first && strings.HasPrefix(line, ":start_line:"):
				b.StartLine, _ = strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, ":start_line:")))
				header = true
			case !inReplace && first && strings.HasPrefix(line, ":end_line:"):
				header = true
			case !inReplace && first && header && isDashes(line):
				first = false
			case !inReplace && isDivider(line):
				inReplace = true
			case inReplace && isReplace(line):
				b.Complete = true
			case inReplace:
				replace.WriteString(full)
			default:
				first = false
				search.WriteString(full)
			}
			pos = next
			if b.Complete {
				break
			}
		}
		b.End = pos
		b.Search, b.Replace = search.String(), replace.String()
		out = append(out, b)
	}
	return out
}

// isDashes reports whether line is Roo Code's "-------" between the
// :start_line: header and the text to find.
func isDashes(line string) bool {
	l := strings.TrimRight(line, " \t\r")
	return len(l) >= 3 && strings.Trim(l, "-") == ""
}

// lineAt returns the line starting at pos without its newline (and a
// carriage return before it), and where the next line starts.
func lineAt(text string, pos int) (string, int) {
	i := strings.IndexByte(text[pos:], '\n')
	if i < 0 {
		return strings.TrimSuffix(text[pos:], "\r"), len(text)
	}
	return strings.TrimSuffix(text[pos:pos+i], "\r"), pos + i + 1
}
