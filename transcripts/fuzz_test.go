package transcripts

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/adapters"
	"github.com/cortexmem/cortex/transcript"
)

// FuzzManifest reads arbitrary bytes as a manifest: an error or a manifest
// that writes back to what it reads, never a panic.
func FuzzManifest(f *testing.F) {
	m := newManifest()
	m.Synced = 1795320425605000000 // Unix nanoseconds have 19 digits
	m.Files["/a\tb\n.jsonl"] = &fileEntry{Path: "/a\tb\n.jsonl", Tool: "claude-code", Size: 10, MTime: 5, HeadLen: 10, Head: "ab",
		Offset: 10, Line: 1, Mark: "cd", Tail: true, Docs: 2, Messages: 3, State: "k-10.json", Err: "bad \"x\""}
	f.Add(m.encode())
	f.Add([]byte(manifestMagic + "\t1\tx\t0\n"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseManifest(data, false)
		if err != nil {
			return
		}
		again, err := parseManifest(m.encode(), false)
		if err != nil {
			t.Fatalf("a manifest read back fails: %v", err)
		}
		if !bytes.Equal(again.encode(), m.encode()) {
			t.Fatalf("a manifest does not write back to itself")
		}
	})
}

// FuzzExchanges reads arbitrary bytes as each tool's transcript, whole and
// from every record boundary a first read stopped at, into exchanges: never
// a panic; ids unique; texts valid UTF-8 within their bounds.
func FuzzExchanges(f *testing.F) {
	for _, rel := range []string{"claude-code/hand-made/rewind_fork.jsonl", "codex/hand-made/rollback_compaction.jsonl",
		"gemini-cli/hand-made/lww_rewind.jsonl", "claude-code/2.1.197/e2_after_compact.jsonl"} {
		data, err := os.ReadFile(filepath.Join(fixtureRoot, rel))
		if err != nil {
			f.Fatal(err)
		}
		// Small seeds: the fuzzer minimises every new input it keeps, which
		// takes long on big ones.
		data = data[:min(len(data), 3<<10)]
		f.Add(data, uint(len(data)/2))
	}
	// Redaction has its own tests; an upper-casing redactor still changes
	// every text, as redaction may.
	red := strings.ToUpper
	f.Fuzz(func(t *testing.T, data []byte, cut uint) {
		for _, ad := range adapters.All() {
			// A whole read.
			b := newBuilder("f.jsonl", "k", ad.Source(), red, true)
			_, err := transcript.Read(ad, bytes.NewReader(data), transcript.Start(ad, "f.jsonl"), true, func(e transcript.Event) error {
				return b.add(&e)
			})
			if err != nil {
				t.Fatalf("%s: %v", ad.Source(), err)
			}
			checkExchanges(t, b)
			// A read stopped at a boundary, then resumed.
			c := int(cut % uint(len(data)+1))
			b1 := newBuilder("f.jsonl", "k", ad.Source(), red, true)
			pos, err := transcript.Read(ad, bytes.NewReader(data[:c]), transcript.Start(ad, "f.jsonl"), false, func(e transcript.Event) error {
				return b1.add(&e)
			})
			if err != nil {
				t.Fatalf("%s: %v", ad.Source(), err)
			}
			b2 := newBuilder("f.jsonl", "k", ad.Source(), red, false)
			b2.restore(b1.openExchanges())
			_, err = transcript.Read(ad, bytes.NewReader(data[pos.Offset:]), pos, true, func(e transcript.Event) error {
				return b2.add(&e)
			})
			if err != nil && err != errNeedFull {
				t.Fatalf("%s resumed: %v", ad.Source(), err)
			}
			checkExchanges(t, b2)
		}
	})
}

func checkExchanges(t *testing.T, b *builder) {
	t.Helper()
	seen := map[string]bool{}
	for _, x := range b.exchanges {
		if seen[x.ID] {
			t.Fatalf("id %s twice", x.ID)
		}
		seen[x.ID] = true
		d := x.doc("f.jsonl", func(s string) string { return s })
		for _, s := range append([]string{d.User, d.Reply, d.Session}, append(d.Paths, d.Commands...)...) {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 in %q", s)
			}
		}
		if len(d.User) > maxUser+len("…") || len(d.Reply) > maxReply+64*2+len("…")*2 {
			t.Fatalf("exchange over its bounds: user %d, reply %d bytes", len(d.User), len(d.Reply))
		}
	}
}

func TestManifestRoundTrip(t *testing.T) {
	m := newManifest()
	m.Synced = 1795320425605123456
	for i, p := range []string{"/home/me/.claude/projects/-x/a.jsonl", "/with\ttab/b.jsonl", `"quoted".jsonl`, "/ünïcödé/日本.jsonl", `/back\slash.jsonl`} {
		m.Files[p] = &fileEntry{Path: p, Tool: "codex", Size: int64(100 + i), MTime: 1795320425605123456 + int64(i), HeadLen: 100, Head: "0123abcd",
			Offset: int64(90 + i), Line: 7, Mark: "ffee", Tail: i%2 == 0, Docs: i, Messages: 3 * i, State: fmt.Sprintf("k-%d.json", i)}
	}
	m.Files["/bad.jsonl"] = &fileEntry{Path: "/bad.jsonl", Tool: "claude-code", Err: "open: permission denied\nsecond line"}
	got, err := parseManifest(m.encode(), false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, got, cmp.AllowUnexported(manifest{})); diff != "" {
		t.Errorf("(-written +read)\n%s", diff)
	}
	for _, bad := range []string{"", "cortex-transcripts\t1\tx\n", "cortex-transcripts\t2\tx\t0\n", "cortex-transcripts\t1\tx\t0\n/a\tcodex\n",
		"cortex-transcripts\t1\tx\t0\n/a\tcodex\tNaN\t0\t0\th\t0\t0\t0\tm\t0\t0\t-\t\t\n",
		// The version before the head: rebuilt.
		"cortex-transcripts\t1\tx\t0\n/a\tcodex\t1\t0\t0\th\t0\t0\t0\tm\t0\t0\t-\t\t\n",
		// Counts or a head length that do not fit the lines.
		"cortex-transcripts\t2\tx\t0\t1\t0\t0\n",
		"cortex-transcripts\t2\tx\t0\t0\t0\t5\n",
		"cortex-transcripts\t2\tx\t0\t1\t0\t3\n/a\tcodex\t1\t0\t0\th\t0\t0\t0\tm\t0\t0\t-\t\t\n",
	} {
		if _, err := parseManifest([]byte(bad), false); err == nil {
			t.Errorf("%q read without error", bad)
		}
	}
}

// TestManifestHead: the head of a manifest holds the transcripts written
// lately and the unreadable ones, and the counts of all; reading it alone
// reads nothing else of the file.
func TestManifestHead(t *testing.T) {
	synced := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC).UnixNano()
	m := newManifest()
	m.Synced = synced
	add := func(p string, age time.Duration, docs int, err string) {
		m.Files[p] = &fileEntry{Path: p, Tool: "codex", Size: 10, MTime: synced - int64(age), HeadLen: 10, Head: "ab", Offset: 10,
			Line: 1, Mark: "cd", Docs: docs, Messages: 2 * docs, Err: err}
	}
	add("/old/a.jsonl", 90*24*time.Hour, 3, "")
	add("/old/b.jsonl", 5*24*time.Hour, 4, "")
	add("/new/c.jsonl", time.Hour, 5, "")
	add("/new/d.jsonl", 2*24*time.Hour, 6, "")
	add("/bad/e.jsonl", 90*24*time.Hour, 0, "permission denied")
	dir := t.TempDir()
	if err := m.save(dir); err != nil {
		t.Fatal(err)
	}
	head, err := loadManifestHead(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for p := range head.Files {
		got = append(got, p)
	}
	slices.Sort(got)
	if diff := cmp.Diff([]string{"/bad/e.jsonl", "/new/c.jsonl", "/new/d.jsonl"}, got); diff != "" {
		t.Errorf("head (-want +got)\n%s", diff)
	}
	if r, d := head.counts(); r != 4 || d != 18 {
		t.Errorf("head counts %d transcripts, %d documents; want 4, 18", r, d)
	}
	// Whatever follows the head is not read.
	data, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := headLength(data)
	if err := os.WriteFile(filepath.Join(dir, manifestFile), append(data[:n:n], "garbage"...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadManifestHead(dir); err != nil {
		t.Errorf("the head is not read alone: %v", err)
	}
	if _, err := loadManifest(dir); err == nil {
		t.Errorf("a damaged manifest read whole without error")
	}
	// A head cut short is an error.
	if err := os.WriteFile(filepath.Join(dir, manifestFile), data[:n-3], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadManifestHead(dir); err == nil {
		t.Errorf("a manifest cut inside its head read without error")
	}
}
