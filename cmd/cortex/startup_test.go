package main

import (
	"bytes"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// cortexModule is the import path prefix of cortex's own packages.
const cortexModule = "github.com/cortexmem/cortex"

// initBudget bounds what one cortex package may allocate when the program
// starts, in bytes. Every command pays for every linked package's
// initialisation, even `cortex version` or a hook that exits at once, so
// regular expressions, parsers and tables are built on first use
// (sync.OnceValue), not in package variables.
const initBudget = 8 << 10

// initBudgetExceptions are the packages that still build their tables when
// the program starts, each with a bound near what it allocates today, so that
// they do not grow unnoticed. Lower or remove an entry when its package
// builds them lazily.
var initBudgetExceptions = map[string]int{
	// Rule tables of string fragments (its expressions compile lazily).
	cortexModule + "/security": 64 << 10,
	// A crc64 table (32 KiB) built when the package loads.
	cortexModule + "/adapters/gemini": 40 << 10,
}

// notLinked are packages cortex must not link: their initialisation is
// expensive and what cortex needs of them is written in cortex.
var notLinked = []string{
	// Its linkify expressions alone cost about a millisecond at every start;
	// normalize parses task list items itself (normalize/meeting.go).
	"github.com/yuin/goldmark/extension",
	// Its tables of metric descriptions (0.15 ms); the heap profile reads
	// the heap's size with runtime.ReadMemStats (profile.go).
	"runtime/metrics",
	// Linked through bleve, which published its stats with it
	// (third_party/bleve-patches/0004-lazy-start-up.patch).
	"expvar",
	// bleve's other index type, with the protobuf runtime its rows use;
	// cortex opens only scorch indexes (the same patch).
	"github.com/blevesearch/bleve/v2/index/upsidedown",
	// The protobuf runtime (its detrand package reads the executable at
	// start-up) and the generated OTLP bindings: transcript/otlp decodes
	// OTLP with decoders of its own, held to the bindings by its tests.
	"google.golang.org/protobuf/internal/detrand",
	"go.opentelemetry.io/proto/otlp/common/v1",
	// The segment formats older bleve releases wrote: cortex's indexes are
	// all v17, the one v2.6.1 writes, so scorch registers only that one
	// (third_party/bleve-patches/0006-only-the-written-segment-format.patch).
	"github.com/blevesearch/zapx/v11",
	"github.com/blevesearch/zapx/v12",
	"github.com/blevesearch/zapx/v13",
	"github.com/blevesearch/zapx/v14",
	"github.com/blevesearch/zapx/v15",
	"github.com/blevesearch/zapx/v16",
	// A progress-bar library (with its colour and grapheme tables) for the
	// one line import draws; progress.go draws it.
	"github.com/schollz/progressbar/v3",
	"github.com/mitchellh/colorstring",
	// goldmark's root package makes a default Markdown with an HTML
	// renderer when it loads; cortex builds its parsers from the parser
	// package (importer/markdown.go, normalize/meeting.go).
	"github.com/yuin/goldmark",
	"github.com/yuin/goldmark/renderer/html",
	// Its type tables (0.15 ms); the MCP SDK used it only for pagination
	// cursors, now written without it
	// (third_party/go-sdk-patches/0001-cursor-without-gob.patch).
	"encoding/gob",
}

// libraryInitBudget bounds, in bytes, what a library's package allocates as
// the program starts, for libraries cortex patched to build their tables on
// first use.
var libraryInitBudget = map[string]int{
	// Its earth-diameter table (8 KiB) is built on first use (the bleve
	// patch 0004).
	"github.com/blevesearch/bleve/v2/geo": 4 << 10,
	// Its case-folding map and e-mail expression (139 KB) are built on first
	// use (third_party/goldmark-patches/0001-lazy-tables.patch).
	"github.com/yuin/goldmark/util": 2 << 10,
	// Its HTML expressions and block-tag map (110 KB), the same patch.
	"github.com/yuin/goldmark/parser": 4 << 10,
	// Its CRC-32C table (9 KB) is made on the first checksum
	// (third_party/snappy-patches/0001-lazy-crc-table.patch).
	"github.com/golang/snappy": 0,
	// zstd's and its Snappy reader's copies of that table, the same way
	// (third_party/compress-patches/0001-lazy-crc-tables.patch).
	"github.com/klauspost/compress/zstd":             1 << 10,
	"github.com/klauspost/compress/internal/snapref": 1 << 10,
	// Schema's field tables and the standard types' schemas (81 KB) are
	// built on first use (third_party/jsonschema-go-patches/0001-lazy-tables.patch).
	"github.com/google/jsonschema-go/jsonschema": 2 << 10,
	// Its default entropy, a seeded math/rand source (10 KB), is made on
	// first use (third_party/ulid-patches/0001-lazy-default-entropy.patch).
	"github.com/oklog/ulid/v2": 1 << 10,
	// Its OAuth discovery transport (a clone of http.DefaultTransport, 3 KB)
	// is made on first use (third_party/go-sdk-patches/0002-lazy-discovery-transport.patch).
	"github.com/modelcontextprotocol/go-sdk/oauthex": 256,
}

// initLine is one line of GODEBUG=inittrace=1: the package, then the bytes
// its initialisation allocated.
var initLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, [0-9.]+ ms clock, (\d+) bytes, \d+ allocs$`)

// TestStartupInitBudget runs the program with GODEBUG=inittrace=1 and checks
// what each of cortex's packages allocates while it initialises (bytes, not
// time: the count does not depend on the machine's load), and that the
// packages in notLinked are absent.
func TestStartupInitBudget(t *testing.T) {
	bin, env, _ := cortexBin(t)
	cmd := exec.Command(bin, "version")
	cmd.Env = append(env, "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cortex version: %v: %s", err, stderr.String())
	}
	allocated := map[string]int{}
	for _, line := range strings.Split(stderr.String(), "\n") {
		m := initLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[2])
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		allocated[m[1]] += n
	}
	if len(allocated) == 0 {
		t.Fatalf("GODEBUG=inittrace=1 printed no init lines:\n%s", stderr.String())
	}
	var over []string
	for pkg, budget := range libraryInitBudget {
		if n := allocated[pkg]; n > budget {
			over = append(over, pkg+": "+strconv.Itoa(n)+" bytes, budget "+strconv.Itoa(budget))
		}
	}
	for pkg, n := range allocated {
		// This package, run as cortex, also initialises its tests' own
		// variables; the real main's are two errors.
		if !strings.HasPrefix(pkg, cortexModule+"/") || pkg == cortexModule+"/cmd/cortex" {
			continue
		}
		budget, ok := initBudgetExceptions[pkg]
		if !ok {
			budget = initBudget
		}
		if n > budget {
			over = append(over, pkg+": "+strconv.Itoa(n)+" bytes, budget "+strconv.Itoa(budget))
		}
	}
	sort.Strings(over)
	for _, o := range over {
		t.Errorf("package initialisation allocates too much (build it on first use): %s", o)
	}
	for _, pkg := range notLinked {
		if _, ok := allocated[pkg]; ok {
			t.Errorf("%s is linked: every command pays for its initialisation", pkg)
		}
	}
}
