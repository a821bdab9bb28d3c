//  Copyright (c) 2014 Couchbase, Inc.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
// 		http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package bleve

import (
	"io"
	"log"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/upsidedown/store/gtreap"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search/highlight/highlighter/html"
	index "github.com/blevesearch/bleve_index_api"
)

type configuration struct {
	Cache                  *registry.Cache
	DefaultHighlighter     string
	DefaultKVStore         string
	DefaultMemKVStore      string
	DefaultIndexType       string
	SlowSearchLogThreshold time.Duration

	// cortex: the analysis queue starts its workers when an index is
	// first opened, not when the package loads (queue).
	queueMu       sync.Mutex
	analysisQueue *index.AnalysisQueue
}

func (c *configuration) SetAnalysisQueueSize(n int) {
	c.queueMu.Lock()
	defer c.queueMu.Unlock()
	if c.analysisQueue != nil {
		c.analysisQueue.Close()
	}
	c.analysisQueue = index.NewAnalysisQueue(n)
}

// queue returns the analysis queue, started with its default four workers
// on first use.
func (c *configuration) queue() *index.AnalysisQueue {
	c.queueMu.Lock()
	defer c.queueMu.Unlock()
	if c.analysisQueue == nil {
		c.analysisQueue = index.NewAnalysisQueue(4)
	}
	return c.analysisQueue
}

func (c *configuration) Shutdown() {
	c.SetAnalysisQueueSize(0)
}

func newConfiguration() *configuration {
	return &configuration{
		Cache: registry.NewCache(),
	}
}

// Config contains library level configuration
var Config *configuration

func init() {
	// build the default configuration
	Config = newConfiguration()

	// set the default highlighter
	Config.DefaultHighlighter = html.Name

	// default kv store
	Config.DefaultKVStore = ""

	// default mem only kv store
	Config.DefaultMemKVStore = gtreap.Name

	// default index
	Config.DefaultIndexType = scorch.Name

	// cortex: the stats are no longer published with expvar, whose
	// initialisation every process linking bleve paid.
	indexStats = NewIndexStats()

	initDisk()
}

var logger = log.New(io.Discard, "bleve", log.LstdFlags)

// SetLog sets the logger used for logging
// by default log messages are sent to io.Discard
func SetLog(l *log.Logger) {
	logger = l
}
