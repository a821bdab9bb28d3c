package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progressRedraw is the least time between two redraws of a stage's bar:
// a terminal does not need more, and an import reports every note.
const progressRedraw = 65 * time.Millisecond

// progressWidth is the width of the bar itself, in cells.
const progressWidth = 30

// progress draws a bar per stage on a terminal: one line,
// "reading  40% [============                  ] (4/10)", redrawn in place
// at most every progressRedraw, and cleared when the stage is done or the
// next one starts. (cortex drew it with a
// progress-bar library before; its initialisation was paid by every
// command, for a line only import draws.)
func progress(w io.Writer) func(stage string, done, total int) {
	return progressAt(w, time.Now)
}

// progressAt is progress with a clock, for tests.
func progressAt(w io.Writer, now func() time.Time) func(stage string, done, total int) {
	var current string
	var drawn int // width of the line on the terminal, 0 when cleared
	var last time.Time
	erase := func() {
		if drawn > 0 {
			fmt.Fprint(w, "\r"+strings.Repeat(" ", drawn)+"\r")
			drawn = 0
		}
	}
	return func(stage string, done, total int) {
		if stage != current {
			erase()
			current = stage
		}
		if done >= total {
			erase()
			return
		}
		t := now()
		if drawn > 0 && t.Sub(last) < progressRedraw {
			return
		}
		last = t
		line := progressLine(stage, done, total)
		n := len([]rune(line))
		if n < drawn {
			// A shorter line would leave the end of the longer one.
			line += strings.Repeat(" ", drawn-n)
			n = drawn
		}
		fmt.Fprint(w, "\r"+line)
		drawn = n
	}
}

// progressLine is the bar of done out of total.
func progressLine(stage string, done, total int) string {
	frac := 1.0
	if total > 0 {
		frac = float64(min(max(done, 0), total)) / float64(total)
	}
	filled := int(frac * progressWidth)
	return fmt.Sprintf("%s %3d%% [%s%s] (%d/%d)", stage, int(frac*100),
		strings.Repeat("=", filled), strings.Repeat(" ", progressWidth-filled), done, total)
}
