package vault

import (
	"bytes"
	"path"
	"regexp"
	"strings"
	"sync"
)

// What a merge can leave in a vault that git or a sync tool (Syncthing,
// Obsidian Sync, Dropbox, iCloud) moves between machines: git's conflict
// markers in a note both sides changed, and the copies sync tools make of a
// file changed on two machines before they synced. Neither is an error for
// cortex: a note whose properties hold markers does not parse and is
// skipped like any unreadable note, one whose text holds them is indexed as
// it is, and a copy is a note like any other (known by an id of its own when
// it repeats its original's). cortex doctor lists them, each with the fix.

// ConflictHunk is one conflict git left in a file: the lines (1-based) of its
// "<<<<<<<" and ">>>>>>>" markers.
type ConflictHunk struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// markerLen is the length of git's conflict markers (its default
// conflict-marker-size).
const markerLen = 7

// isMarker reports whether line is a conflict marker of character c:
// exactly seven of them at the start of the line, then the end of the line
// or a space (git writes the side's name after "<<<<<<<" and ">>>>>>>",
// nothing after "=======").
func isMarker(line []byte, c byte) bool {
	line = bytes.TrimRight(line, "\r")
	if len(line) < markerLen {
		return false
	}
	for _, b := range line[:markerLen] {
		if b != c {
			return false
		}
	}
	rest := line[markerLen:]
	if c == '=' {
		return len(bytes.TrimSpace(rest)) == 0
	}
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t'
}

// anyMarker reports whether line is a marker of any kind.
func anyMarker(line []byte) bool {
	return isMarker(line, '<') || isMarker(line, '|') || isMarker(line, '=') || isMarker(line, '>')
}

// fence returns the fence a line opens or closes (its character and length:
// three or more backticks or tildes after at most three spaces), or 0.
func fence(line []byte) (byte, int) {
	t := bytes.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || t[0] != '`' && t[0] != '~' {
		return 0, 0
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return 0, 0
	}
	return t[0], n
}

// ConflictMarkers finds the conflicts a git merge left in a file: a
// "<<<<<<<" line, then "=======" (after a "|||||||" line in the diff3
// style), then ">>>>>>>", each at the start of its line. A "<<<<<<<" inside
// a fenced code block is text (a note about git), but once a conflict opens
// its lines are taken as they come, since the two sides may open and close
// fences differently. A lone "=======" (a heading's underline in markdown)
// is no conflict.
func ConflictMarkers(data []byte) []ConflictHunk {
	if !bytes.Contains(data, []byte("<<<<<<<")) {
		return nil
	}
	var hunks []ConflictHunk
	var fenceChar byte
	fenceLen := 0
	open, sep := 0, false // the line of the open "<<<<<<<", and whether "=======" followed
	for i, line := range bytes.Split(data, []byte("\n")) {
		n := i + 1
		if open > 0 {
			switch {
			case isMarker(line, '<'):
				open, sep = n, false // an earlier one never closed
			case isMarker(line, '='):
				sep = true
			case isMarker(line, '>') && sep:
				hunks = append(hunks, ConflictHunk{Start: open, End: n})
				open, sep = 0, false
			}
			continue
		}
		if c, l := fence(line); c != 0 {
			switch {
			case fenceChar == 0:
				fenceChar, fenceLen = c, l
			case c == fenceChar && l >= fenceLen && len(bytes.TrimSpace(line)) == l:
				fenceChar, fenceLen = 0, 0
			}
			continue
		}
		if fenceChar == 0 && isMarker(line, '<') {
			open, sep = n, false
		}
	}
	return hunks
}

// frontmatterMarker is the line (1-based, within text) of the first
// conflict marker in frontmatter text, or 0. Any marker counts there: no
// property line starts with seven of these characters.
func frontmatterMarker(text []byte) int {
	if !bytes.Contains(text, []byte("<<<<<<<")) && !bytes.Contains(text, []byte(">>>>>>>")) && !bytes.Contains(text, []byte("=======")) {
		return 0
	}
	for i, line := range bytes.Split(text, []byte("\n")) {
		if anyMarker(line) {
			return i + 1
		}
	}
	return 0
}

// conflictMsg is the ParseError of properties a merge left in conflict.
const conflictMsg = "holds git conflict markers (<<<<<<<, =======, >>>>>>>): a merge kept two versions of the properties; keep one, delete the marker lines"

// ConflictCopy is a file a sync tool made when a note changed on two
// machines before they synced: the other machine's version, beside the
// note.
type ConflictCopy struct {
	// Tool is the sync tool whose naming the copy has.
	Tool string `json:"tool"`
	// Original is the path of the note it is a copy of: same folder, the
	// name without the tool's addition.
	Original string `json:"original"`
	// Numbered is set for a name that only a number sets apart ("note
	// 2.md", as iCloud names its copies): it is a copy only if it holds its
	// original's id, which the caller checks.
	Numbered bool `json:"-"`
}

// The names sync tools give their copies.
var (
	// Syncthing: "note.sync-conflict-20240102-150405-ABCDEF7.md"; Obsidian
	// Sync's documented form is the same without the device.
	syncConflictRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.+)\.sync-conflict-\d{8}-\d{6}(?:-[A-Za-z0-9]+)?(\.[^.]+)$`)
	})
	// Dropbox: "note (conflicted copy 2024-01-02).md", "note (Ann's
	// conflicted copy 2024-01-02).md"; Nextcloud and ownCloud: "note
	// (conflicted copy 2024-01-02 150405).md"; Obsidian Sync: "note
	// (Conflicted copy laptop 202401021504).md". Dropbox may add " (1)".
	conflictedCopyRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.+?) \(([^()]*?)((?i:conflicted copy))([^()]*)\)(?: \(\d+\))?(\.[^.]+)$`)
	})
	// iCloud Drive: "note 2.md" beside "note.md".
	numberedRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.+) ([2-9]|[1-9]\d+)(\.[^.]+)$`) })
	// What git mergetool leaves when it is stopped: "note_LOCAL_12345.md".
	mergetoolRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.+)_(?:BACKUP|BASE|LOCAL|REMOTE)_\d+(\.[^.]+)$`) })
)

// ConflictCopyOf tells whether the note at p (a path with forward slashes)
// is named as a sync tool names its conflict copies, and of which note.
//
// Every name a rebuild reads is asked, and most are no copy: each pattern is
// tried only when the name has what it cannot match without. All four end
// in an extension after the name's last dot; the character before that dot
// is a digit for git mergetool's and iCloud's, ")" for Dropbox's and its
// kin's. Running the four patterns on every name was 1.3% of a rebuild's
// CPU at 100,000 notes.
func ConflictCopyOf(p string) (ConflictCopy, bool) {
	dir, name := path.Split(p)
	dot := strings.LastIndexByte(name, '.')
	if dot < 1 {
		return ConflictCopy{}, false
	}
	before := name[dot-1]
	if strings.Contains(name, ".sync-conflict-") {
		if m := syncConflictRe().FindStringSubmatch(name); m != nil {
			return ConflictCopy{Tool: "Syncthing", Original: dir + m[1] + m[2]}, true
		}
	}
	if before == ')' {
		return conflictedCopyOf(dir, name)
	}
	if before < '0' || before > '9' {
		return ConflictCopy{}, false
	}
	if m := mergetoolRe().FindStringSubmatch(name); m != nil {
		return ConflictCopy{Tool: "git mergetool", Original: dir + m[1] + m[2]}, true
	}
	if m := numberedRe().FindStringSubmatch(name); m != nil {
		return ConflictCopy{Tool: "iCloud", Original: dir + m[1] + m[3], Numbered: true}, true
	}
	return ConflictCopy{}, false
}

// conflictedCopyOf is ConflictCopyOf for a name that may be Dropbox's,
// Nextcloud's or Obsidian Sync's copy.
func conflictedCopyOf(dir, name string) (ConflictCopy, bool) {
	if m := conflictedCopyRe().FindStringSubmatch(name); m != nil {
		tool := "Dropbox"
		switch {
		case m[2] == "" && m[3] == "Conflicted copy":
			tool = "Obsidian Sync"
		case strings.Contains(strings.TrimSpace(m[4]), " "):
			tool = "Nextcloud" // a date and a time
		}
		return ConflictCopy{Tool: tool, Original: dir + m[1] + m[5]}, true
	}
	return ConflictCopy{}, false
}

// IsIndexCopy reports whether name, a file at the top of the cortex folder,
// is a sync tool's copy of the map of contents: derived like the map, it is
// never a note.
func IsIndexCopy(name string) bool {
	c, ok := ConflictCopyOf(name)
	return ok && c.Original == IndexFile
}
