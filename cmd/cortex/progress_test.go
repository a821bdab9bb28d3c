package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestProgressDraws: each call's output, at the given time (ms), redraws the
// line in place, no more than every progressRedraw, and clears it when a
// stage is done or the next one starts.
func TestProgressDraws(t *testing.T) {
	type call struct {
		ms          int
		stage       string
		done, total int
	}
	bar := func(stage string, pct, filled int, done, total int) string {
		return "\r" + stage + " " + strings.Repeat(" ", 3-len(strconv.Itoa(pct))) + strconv.Itoa(pct) + "% [" +
			strings.Repeat("=", filled) + strings.Repeat(" ", progressWidth-filled) + "] (" + strconv.Itoa(done) + "/" + strconv.Itoa(total) + ")"
	}
	blank := func(n int) string { return "\r" + strings.Repeat(" ", n) + "\r" }
	reading := bar("reading", 10, 3, 1, 10)
	for _, tc := range []struct {
		name  string
		calls []call
		want  []string
	}{
		{"first count drawn", []call{{0, "reading", 1, 10}}, []string{reading}},
		{"redraws throttled", []call{{0, "reading", 1, 10}, {10, "reading", 2, 10}, {70, "reading", 5, 10}},
			[]string{reading, "", bar("reading", 50, 15, 5, 10)}},
		{"done clears", []call{{0, "reading", 1, 10}, {10, "reading", 10, 10}, {20, "reading", 10, 10}},
			[]string{reading, blank(len(reading) - 1), ""}},
		{"next stage clears", []call{{0, "reading", 1, 10}, {10, "saving", 1, 2}},
			[]string{reading, blank(len(reading)-1) + bar("saving", 50, 15, 1, 2)}},
		{"shorter line blanks the rest", []call{{0, "reading", 10, 100}, {100, "reading", 11, 20}},
			[]string{bar("reading", 10, 3, 10, 100), bar("reading", 55, 16, 11, 20) + " "}},
		{"nothing to count", []call{{0, "scanning", 0, 0}}, []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			var now time.Time
			p := progressAt(&out, func() time.Time { return now })
			var got []string
			for _, c := range tc.calls {
				now = time.UnixMilli(int64(c.ms))
				out.Reset()
				p(c.stage, c.done, c.total)
				got = append(got, out.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
