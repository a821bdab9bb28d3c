package vault

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConflictMarkers(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []ConflictHunk
	}{
		{name: "none", in: "# Title\n\ntext\n"},
		{name: "one hunk", in: "a\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> other\nb\n", want: []ConflictHunk{{Start: 2, End: 6}}},
		{name: "diff3 style", in: "<<<<<<< HEAD\nmine\n||||||| base\nold\n=======\ntheirs\n>>>>>>> other\n", want: []ConflictHunk{{Start: 1, End: 7}}},
		{name: "two hunks, CRLF", in: "<<<<<<< a\r\nx\r\n=======\r\ny\r\n>>>>>>> b\r\nz\r\n<<<<<<< a\r\n=======\r\n>>>>>>> b\r\n", want: []ConflictHunk{{Start: 1, End: 5}, {Start: 7, End: 9}}},
		{name: "inside a fence is text", in: "```\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n```\n"},
		{name: "after a closed fence", in: "~~~\ncode\n~~~\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n", want: []ConflictHunk{{Start: 4, End: 8}}},
		{name: "a setext underline alone", in: "Title\n=======\n\ntext\n"},
		{name: "never closed", in: "<<<<<<< HEAD\nx\n=======\ny\n"},
		{name: "no separator", in: "<<<<<<< HEAD\nx\n>>>>>>> b\n"},
		{name: "eight is not a marker", in: "<<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n"},
		{name: "indented is not a marker", in: " <<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n"},
		{name: "a reopened hunk counts from the last", in: "<<<<<<< a\n<<<<<<< b\nx\n=======\ny\n>>>>>>> c\n", want: []ConflictHunk{{Start: 2, End: 6}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ConflictMarkers([]byte(tt.in))
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ConflictMarkers (-want +got):\n%s", d)
			}
		})
	}
}

// TestParseNoteConflict: properties a merge left in conflict are a parse
// error naming the first marker's line and what to do; markers in the text
// are text.
func TestParseNoteConflict(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		wantLine int // 0: parses
	}{
		{name: "in the properties", in: "---\nid: a\n<<<<<<< HEAD\ntitle: one\n=======\ntitle: two\n>>>>>>> other\n---\nbody\n", wantLine: 3},
		{name: "around the opening", in: "<<<<<<< HEAD\n---\nid: a\n---\nmine\n=======\n---\nid: b\n---\ntheirs\n>>>>>>> other\n", wantLine: 1},
		{name: "the closing inside the hunk", in: "---\nid: a\ntitle: x\n<<<<<<< HEAD\n---\nmine\n=======\ntags: [b]\n---\ntheirs\n>>>>>>> other\n", wantLine: 4},
		{name: "only a separator in the properties", in: "---\nid: a\n=======\n---\nbody\n", wantLine: 3},
		{name: "in the body", in: "---\nid: a\n---\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> other\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseNote([]byte(tt.in))
			if tt.wantLine == 0 {
				if err != nil {
					t.Fatalf("ParseNote: %v, want no error", err)
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("ParseNote error = %v, want a *ParseError", err)
			}
			if pe.Line != tt.wantLine || !strings.Contains(pe.Msg, "conflict markers") {
				t.Errorf("ParseNote error = line %d %q, want line %d naming conflict markers", pe.Line, pe.Msg, tt.wantLine)
			}
		})
	}
}

func TestConflictCopyOf(t *testing.T) {
	tests := []struct {
		in   string
		want ConflictCopy
		ok   bool
	}{
		{in: "memories/p/note.sync-conflict-20240102-150405-ABCDEF7.md", want: ConflictCopy{Tool: "Syncthing", Original: "memories/p/note.md"}, ok: true},
		{in: "note.sync-conflict-20240102-150405.md", want: ConflictCopy{Tool: "Syncthing", Original: "note.md"}, ok: true},
		{in: "a/note (conflicted copy 2024-01-02).md", want: ConflictCopy{Tool: "Dropbox", Original: "a/note.md"}, ok: true},
		{in: "a/note (Ann's conflicted copy 2024-01-02) (1).md", want: ConflictCopy{Tool: "Dropbox", Original: "a/note.md"}, ok: true},
		{in: "note (conflicted copy 2024-01-02 150405).md", want: ConflictCopy{Tool: "Nextcloud", Original: "note.md"}, ok: true},
		{in: "note (Conflicted copy laptop 202401021504).md", want: ConflictCopy{Tool: "Obsidian Sync", Original: "note.md"}, ok: true},
		{in: "a/note 2.md", want: ConflictCopy{Tool: "iCloud", Original: "a/note.md", Numbered: true}, ok: true},
		{in: "a/note 12.md", want: ConflictCopy{Tool: "iCloud", Original: "a/note.md", Numbered: true}, ok: true},
		{in: "note_LOCAL_4242.md", want: ConflictCopy{Tool: "git mergetool", Original: "note.md"}, ok: true},
		{in: "a/note.md"},
		{in: "a/note 1.md"},
		{in: "a/chapter-2.md"},
		{in: "a/note (draft).md"},
		{in: "note.sync-conflict-2024.md"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ConflictCopyOf(tt.in)
			if ok != tt.ok {
				t.Fatalf("ConflictCopyOf(%q) ok = %v, want %v", tt.in, ok, tt.ok)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ConflictCopyOf(%q) (-want +got):\n%s", tt.in, d)
			}
		})
	}
}

// conflictCopyOfEveryPattern is ConflictCopyOf as it was before it looked
// at a name before trying the patterns: all four, in order.
func conflictCopyOfEveryPattern(p string) (ConflictCopy, bool) {
	dir, name := path.Split(p)
	if m := syncConflictRe().FindStringSubmatch(name); m != nil {
		return ConflictCopy{Tool: "Syncthing", Original: dir + m[1] + m[2]}, true
	}
	if c, ok := conflictedCopyOf(dir, name); ok {
		return c, true
	}
	if m := mergetoolRe().FindStringSubmatch(name); m != nil {
		return ConflictCopy{Tool: "git mergetool", Original: dir + m[1] + m[2]}, true
	}
	if m := numberedRe().FindStringSubmatch(name); m != nil {
		return ConflictCopy{Tool: "iCloud", Original: dir + m[1] + m[3], Numbered: true}, true
	}
	return ConflictCopy{}, false
}

// conflictCopyNames are names near the four patterns' edges, the seeds of
// FuzzConflictCopyOf.
var conflictCopyNames = []string{
	"note.md", "note", ".md", "a/.md", "note.", "note 2", "note 2.", "note 2.md.", "note 2.tar.gz", "note 02.md", "note 1.md", "note 10.md",
	" 2.md", "a/ 2.md", "note\n 2.md", "note 2 (1).md", "note (1).md", "note (conflicted copy).md", "note (CONFLICTED COPY 2024).md",
	"note (conflicted copy 2024) (12).md", "note (conflicted copy 2024) (x).md", "note (conflicted copy 2024)).md", "(conflicted copy).md",
	"note.sync-conflict-20240102-150405-ABC.md", "note.sync-conflict-20240102-150405 2.md", "note.sync-conflict-20240102-150405-ABC (conflicted copy 1).md",
	"note.sync-conflict-20240102-150405.md_LOCAL_1.md", "note_LOCAL_1.md", "note_BASE_1 2.md", "note_REMOTE_.md", "note_BACKUP_12.txt",
	"ünïcödé 3.md", "日本語 (conflicted copy 2024-01-02).md", "note 2.md\n", "a/b/c/note 2.md", "note.sync-conflict-20240102-150405.",
}

// checkAsEveryPattern fails t when ConflictCopyOf(p) differs from trying
// every pattern.
func checkAsEveryPattern(t *testing.T, p string) {
	t.Helper()
	want, wantOK := conflictCopyOfEveryPattern(p)
	got, ok := ConflictCopyOf(p)
	if ok != wantOK || got != want {
		t.Errorf("ConflictCopyOf(%q) = %+v, %v; every pattern tried gives %+v, %v", p, got, ok, want, wantOK)
	}
}

func TestConflictCopyOfAsEveryPattern(t *testing.T) {
	for _, name := range conflictCopyNames {
		checkAsEveryPattern(t, name)
		checkAsEveryPattern(t, "memories/p/"+name)
	}
}

// FuzzConflictCopyOf: looking at a name before trying the patterns finds
// the copies that trying every pattern finds.
func FuzzConflictCopyOf(f *testing.F) {
	for _, name := range conflictCopyNames {
		f.Add(name)
	}
	f.Fuzz(checkAsEveryPattern)
}

// TestScanSkipsIndexCopies: a sync tool's copy of the map of contents is
// derived like the map, never a note; a copy of a note is one.
func TestScanSkipsIndexCopies(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{
		IndexFile: "# map\n",
		"_index.sync-conflict-20240102-150405-ABCDEF7.md": "# map\n",
		"_index (conflicted copy 2024-01-02).md":          "# map\n",
		"_index 2.md":                                     "# map\n",
		"memories/p/n.md":                                 "---\nid: a\n---\ntext\n",
		"memories/p/n.sync-conflict-20240102-150405-X.md": "---\nid: a\n---\ntext 2\n",
	} {
		writeTestFile(t, root, name, text)
	}
	res, err := Scan(root, NoKnown{}, ScanOptions{StatNotes: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Changed {
		got = append(got, f.Path)
	}
	want := []string{"memories/p/n.md", "memories/p/n.sync-conflict-20240102-150405-X.md"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("notes found (-want +got):\n%s", d)
	}
}

func FuzzConflictMarkers(f *testing.F) {
	f.Add([]byte("<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n"))
	f.Add([]byte("```\n<<<<<<< HEAD\n```\n<<<<<<<\n=======\n>>>>>>>"))
	f.Add([]byte("---\n<<<<<<< a\nid: x\n=======\n>>>>>>> b\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := strings.Count(string(data), "\n") + 1
		last := 0
		for _, h := range ConflictMarkers(data) {
			if h.Start <= last || h.End <= h.Start || h.End > lines {
				t.Fatalf("hunk %+v after line %d of %d", h, last, lines)
			}
			last = h.End
		}
		_, _ = ParseNote(data)
		_, _ = ConflictCopyOf(string(data))
	})
}

func writeTestFile(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
