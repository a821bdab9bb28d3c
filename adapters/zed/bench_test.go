package zed

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
	"github.com/cortexmem/cortex/transcript/transcripttest"
	"github.com/cortexmem/cortex/transcript/zstd"
)

// benchIDs are the ids of the hand-made threads: their own, their
// messages', their tool calls'.
var benchIDs = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|toolu_`)

// benchBlob is a compressed thread in a row line.
var benchBlob = regexp.MustCompile(`"\$blob":"([A-Za-z0-9+/=]*)"`)

// syntheticRows builds row lines of at least size bytes: the hand-made
// rows as Load gives them, repeated, each copy with fresh ids everywhere —
// the threads', and inside each thread (decompressed, renamed and
// compressed again) its messages' and tool calls' — so that no copy reads
// as an update of another thread or repeats its events' ids, as no two
// threads of a real database do. It returns the lines and their count.
func syntheticRows(tb testing.TB, size int) ([]byte, int) {
	tb.Helper()
	base := rowFixtures(tb)[0].Data
	// The rows split around their compressed threads (decoded once).
	type piece struct {
		text   []byte // text of the row line, or a thread's JSON
		thread bool
	}
	var pieces []piece
	last := 0
	for _, m := range benchBlob.FindAllSubmatchIndex(base, -1) {
		raw, err := base64.StdEncoding.DecodeString(string(base[m[2]:m[3]]))
		if err != nil {
			continue
		}
		thread, err := zstd.Decode(raw)
		if err != nil {
			continue // the damaged row stays as it is
		}
		pieces = append(pieces, piece{text: base[last:m[2]]}, piece{text: thread, thread: true})
		last = m[3]
	}
	pieces = append(pieces, piece{text: base[last:]})
	ids := map[string]bool{}
	for _, id := range benchIDs.FindAll(base, -1) {
		ids[string(id)] = true
	}
	for _, p := range pieces {
		for _, id := range benchIDs.FindAll(p.text, -1) {
			ids[string(id)] = true
		}
	}
	var out bytes.Buffer
	for n := 0; out.Len() < size; n++ {
		var pairs []string
		for id := range ids {
			pairs = append(pairs, id, fmt.Sprintf("%d-%s", n, id))
		}
		r := strings.NewReplacer(pairs...)
		for _, p := range pieces {
			text := r.Replace(string(p.text))
			if p.thread {
				text = base64.StdEncoding.EncodeToString(zstd.Encode([]byte(text)))
			}
			out.WriteString(text)
		}
	}
	return out.Bytes(), bytes.Count(out.Bytes(), []byte("\n"))
}

// BenchmarkParse measures reading the rows of a large threads database
// (see syntheticRows). go test ./adapters/zed -run '^$' -bench Parse -cpu 1
// reports MB/s (of row lines, the threads compressed as Zed stores them)
// and records/s (rows: whole threads).
// It also reports json-MB/s: the same time per byte of the threads
// decompressed (the hand-made threads are small: their rows are hardly
// smaller than their JSON, where a long real thread compresses several
// times).
func BenchmarkParse(b *testing.B) {
	data, records := syntheticRows(b, 32<<20)
	threads := 0
	for _, line := range bytes.Split(data, []byte("\n")) {
		if l, ok := sqlitedb.ParseLine(line); ok {
			if t, err := decodeThread(rawjson.AsString(l.Values.Get("data_type")), l.Values.Get("data")); err == nil {
				threads += len(t)
			}
		}
	}
	transcripttest.BenchParse(b, New(), data, records)
	b.ReportMetric(float64(threads)*float64(b.N)/b.Elapsed().Seconds()/1e6, "json-MB/s")
}
