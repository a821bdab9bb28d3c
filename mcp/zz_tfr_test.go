//go:build unix

package mcp

import (
	"os"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

func init() {
	if os.Getenv("TFR") != "" {
		scorch.DefaultFieldTFRCacheThreshold = 64
	}
}
