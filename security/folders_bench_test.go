package security

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// folderTexts reads the markdown files under the folders listed in
// SECURITY_BENCH_DIRS (separated by the path list separator), every step-th
// file of each folder in walk order. It skips the test when none is named:
// real notes are not part of the repository.
func folderTexts(tb testing.TB, step int) []string {
	tb.Helper()
	dirs := os.Getenv("SECURITY_BENCH_DIRS")
	if dirs == "" {
		tb.Skip("SECURITY_BENCH_DIRS names no folders of markdown")
	}
	var texts []string
	for _, dir := range filepath.SplitList(dirs) {
		i := 0
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			i++
			if (i-1)%step != 0 {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			texts = append(texts, string(b))
			return nil
		})
		if err != nil {
			tb.Fatalf("reading %s: %v", dir, err)
		}
	}
	if len(texts) == 0 {
		tb.Fatalf("no markdown under %s", dirs)
	}
	return texts
}

// BenchmarkScanFolders scans a sample of the notes of the folders named by
// SECURITY_BENCH_DIRS, one op being the whole sample.
func BenchmarkScanFolders(b *testing.B) {
	texts := folderTexts(b, 3)
	n := 0
	for _, s := range texts {
		Scan(s)
		n += len(s)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		for _, s := range texts {
			Scan(s)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}
