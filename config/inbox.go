package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cortexmem/cortex/memories"
)

// InboxFile is the inbox section of the config file.
//
//	inbox:
//	  keep_processed: 14d   # how long normalize keeps consumed events in inbox/processed/; 0 removes them at once
type InboxFile struct {
	KeepProcessed string `yaml:"keep_processed"`
}

// DefaultKeepProcessed is how long consumed events stay in processed/.
const DefaultKeepProcessed = 14 * 24 * time.Hour

// maxKeep bounds keep_processed: ten years.
const maxKeep = 10 * 365 * 24 * time.Hour

// keepProcessed reads inbox.keep_processed: a duration such as 14d, 36h or
// 90m; 0 removes processed events in the pass that consumed them.
func keepProcessed(configFile string, f InboxFile) (time.Duration, error) {
	s := strings.TrimSpace(f.KeepProcessed)
	if s == "" {
		return DefaultKeepProcessed, nil
	}
	bad := &memories.ArgError{Arg: configFile + ": inbox.keep_processed",
		Rule: fmt.Sprintf("%q is not a duration such as 14d, 36h or 0 (remove processed events at once)", f.KeepProcessed)}
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n < 0 || n*24 > maxKeep.Hours() {
			return 0, bad
		}
		d = time.Duration(n * float64(24*time.Hour))
	} else if s == "0" {
		d = 0
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil || d < 0 || d > maxKeep {
			return 0, bad
		}
	}
	return d, nil
}
