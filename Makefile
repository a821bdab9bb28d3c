# cortex — see README.md. Every target works on a fresh clone with Go installed.

GO       ?= go
BIN      ?= bin/cortex
SIZES    ?= 10000,40000
SHAPES   ?= synthetic,real
RUNS     ?= 40
FUZZTIME ?= 30s
# Go minimises each new input for up to a minute by default, and fuzzing
# stops meanwhile (with one worker it looks like a stall at 0 execs/s).
FUZZMINIMIZE ?= 5s
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: all build demo test test-short race bench bench-100k bench-transcripts timing bulk eval-stable fuzz lint cross bleve-check clean

all: build

# Without cgo: nothing in cortex needs it (only the net package would use the
# C resolver), and a static binary starts about a millisecond sooner, which
# every hook and command pays. The binary is linked beside its place and
# copied there: the linker writes through a memory map, and on Linux the
# file then stays in the page cache in small pages until they are evicted,
# while a copy's are large ones the kernel maps a block at a time. Each
# start of the copy took 1.0-1.7 ms less processor time (same bytes, run
# alternately with the linker's file on a loaded 2-core VM, Linux 6.18).
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN).link ./cmd/cortex
	cp $(BIN).link $(BIN).tmp && mv $(BIN).tmp $(BIN) && rm $(BIN).link

demo: build
	./$(BIN) demo

# The README's test command: unit, golden, fuzz-seed, end-to-end and process tests.
test:
	$(GO) test -count=1 ./...

test-short:
	$(GO) test -short -count=1 ./...

# The race detector over the short tests of every package except those
# whose code starts no goroutine (no go statement, which
# TestRaceRunSkipsOnlySequentialCode checks): the agents' transcript
# adapters, single-goroutine parsers whose tests were about 15% of the race
# run's time, and the safety scan (its tests start none either), whose tests
# took 520 s under the race detector on a 2-core VM (26 s without). make test
# runs them; the packages that call them concurrently (store, memories) are
# raced. RACE_SKIP is a list of patterns (grep's and Go's regular
# expressions alike) matched against the import paths.
RACE_SKIP = /adapters/ /security$$
race:
	$(GO) test -race -short -count=1 $$($(GO) list ./... | grep -v $(foreach p,$(RACE_SKIP),-e '$(p)'))

# The benchmark harness: synthetic and real-shaped vaults (one project folder
# of documentation-length notes in many languages), whole-process and
# in-process timings.
bench: build timing
	$(GO) run ./cmd/cortex-bench -bin ./$(BIN) -sizes $(SIZES) -shape $(SHAPES) -runs $(RUNS)

# Timing guards kept out of the normal test run (they measure time), and the
# microbenchmarks of the scan and the dedup fingerprints.
timing:
	CORTEX_TIMING=1 $(GO) test -count=1 -run 'TimeLinear' ./security
	$(GO) test -run '^$$' -bench . -benchtime 1s ./security ./dedup ./transcript/... ./adapters/... ./pipeline ./scribe

# A git pull changing 2,000 notes of 10,000, seen by the next command (minutes:
# three indexes of 10,000 notes are built).
bulk:
	CORTEX_BULK=1 $(GO) test -count=1 -run 'TestPullSeenByTheNextCommand' ./store

# cortex eval's per-query answers are a function of the dataset: two runs
# over the conversations' dev set must print the same bytes (each run builds
# its own index, whose segments fall as its batches and merges do).
EVAL_SET ?= fixtures/eval/conversations/dev-turns.json
eval-stable: build
	./$(BIN) eval --json --per-query $(EVAL_SET) > bin/eval-1.json
	./$(BIN) eval --json --per-query $(EVAL_SET) > bin/eval-2.json
	cmp bin/eval-1.json bin/eval-2.json

bench-100k: build
	$(GO) run ./cmd/cortex-bench -bin ./$(BIN) -sizes 100000 -shape $(SHAPES) -runs 20 -saves 50

# Transcript search on a synthetic corpus of agents' sessions (TRANSCRIPTS
# messages): building the index, searching it next to rg over the same files,
# re-indexing a session that grew. Needs about 1.5 GB of temporary disk at
# 200000; rg is timed when it is installed.
TRANSCRIPTS ?= 200000
bench-transcripts: build
	$(GO) run ./cmd/cortex-bench -bin ./$(BIN) -sizes '' -transcripts $(TRANSCRIPTS) -runs $(RUNS)

# Every fuzz target for FUZZTIME each (go test runs one target at a time).
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$f"; \
			$(GO) test $$pkg -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE); \
		done; \
	done

lint: bleve-check cross
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '^third_party/'))" || (gofmt -l $$(git ls-files '*.go' | grep -v '^third_party/'); exit 1)
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

# cortex is used on macOS and Windows too: the code and its tests must
# build there (a syscall only Linux has broke the macOS build once).
cross:
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) vet ./...
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/cortex
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/cortex-bench

# third_party/bleve must be the pinned release plus third_party/bleve-patches,
# nothing else, and each other vendored module (third_party/NAME) its release
# plus third_party/NAME-patches. Fetches the releases into the module cache
# (go.mod's replace directives keep go mod download from doing it).
VENDORED = goldmark snappy jsonschema-go compress go-sdk ulid zapx
bleve-check:
	GO=$(GO) sh third_party/update-bleve.sh --check
	@set -e; for m in $(VENDORED); do GO=$(GO) sh third_party/update-bleve.sh --module $$m --check; done

clean:
	rm -rf bin
