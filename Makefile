# loglab: `make run` serves the lab at http://localhost:8080 (PORT overrides),
# `make test` installs what the tests need and runs them all.

SHELL := /bin/bash
GO ?= go
PORT ?= 8080
SEEDS ?= 1000

GOROOT := $(shell $(GO) env GOROOT)
WASM_LIB := $(GOROOT)/lib/wasm
# The Go module expects exactly this playwright driver (playwright-go v0.5200.1).
PLAYWRIGHT_VERSION := 1.52.0
DRIVER_DIR := $(CURDIR)/.cache/playwright-driver-$(PLAYWRIGHT_VERSION)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build setup chromium driver generate check-generated vet static-deps wasm precompress precompress-fast run \
        test test-unit test-wasm e2e bench loadtest chaos fuzz fuzz-server sim

all: build

## build: the CLI and the WASM module
build: wasm
	@echo "loglab: building bin/loglab (the first build compiles the server's packages: about 40 s on 2 cores; then seconds)"
	$(GO) build -o bin/loglab ./server/cmd/loglab

## setup: what the e2e tests need; idempotent, and never downloads a browser
## from a CDN: Chromium comes from Debian, the driver from the npm registry.
setup: chromium driver

# fonts-wqy-microhei: the lessons and the chrome are also in Chinese, and a
# headless Chromium without a CJK font draws them as empty boxes.
chromium:
	@if command -v chromium >/dev/null && dpkg -s fonts-liberation fonts-dejavu-core fonts-wqy-microhei >/dev/null 2>&1; then \
	  echo "chromium: $$(chromium --version 2>/dev/null)"; \
	else \
	  $(SUDO) apt-get update && $(SUDO) apt-get install -y --no-install-recommends chromium fonts-liberation fonts-dejavu-core fonts-wqy-microhei; \
	fi

driver: $(DRIVER_DIR)/package/cli.js

$(DRIVER_DIR)/package/cli.js:
	rm -rf $(DRIVER_DIR).tmp && mkdir -p $(DRIVER_DIR).tmp
	cd $(DRIVER_DIR).tmp && npm pack --silent playwright-core@$(PLAYWRIGHT_VERSION) >/dev/null && \
	  tar xzf playwright-core-$(PLAYWRIGHT_VERSION).tgz && rm playwright-core-$(PLAYWRIGHT_VERSION).tgz
	ln -sf "$$(command -v node)" $(DRIVER_DIR).tmp/node
	rm -rf $(DRIVER_DIR) && mv $(DRIVER_DIR).tmp $(DRIVER_DIR)

## generate: regenerate the templ components' Go code and the command
## reference in docs/lab-language.md (both committed)
generate:
	$(GO) tool templ generate
	$(GO) generate ./internal/labdoc

## check-generated: fail when the committed *_templ.go files or the lab
## language's command reference are stale
check-generated:
	$(GO) test ./web ./internal/labdoc -run 'TestGeneratedCodeIsFresh|TestLabLanguageReferenceIsFresh' -count=1

vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./engine/... ./web/... ./wasm/...

## static-deps: the browser libraries the pages load (package.json pins
## them, package-lock.json their hashes), installed with `npm ci` and
## copied into static/vendor/; node_modules/ and static/vendor/ are not in git.
STATIC_DEPS := static/vendor/idiomorph.min.js
static-deps: $(STATIC_DEPS)

node_modules/.package-lock.json: package.json package-lock.json
	@echo "loglab: npm ci: the pages' browser libraries, pinned in package-lock.json (once)"
	npm ci --no-audit --no-fund --ignore-scripts
	@touch $@

static/vendor/idiomorph.min.js: node_modules/.package-lock.json
	@mkdir -p $(@D)
	cp node_modules/idiomorph/dist/idiomorph.min.js $@

## wasm: the browser lab's engine, and Go's JS loader beside it (and the
## pages' libraries: whatever builds the lab's page needs them too)
wasm: static-deps
	@echo "loglab: building static/loglab.wasm (the first build compiles Go's standard library for js/wasm too: about 30 s on 2 cores; then seconds)"
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags=-s -o static/loglab.wasm ./wasm
	cp -p $(WASM_LIB)/wasm_exec.js static/wasm_exec.js

## precompress: .br (brotli quality 11) and .gz beside each static file, for
## the server to send as they are; skipped for files whose siblings are
## current. Quality 11 takes the 19 MB module to 3.25 MB on the wire in about
## a CPU-minute. `make bench` needs it; `make run` does it in the background.
## The tests serve the same files compressed on the fly.
PRECOMPRESS_FILES = $(sort static/loglab.wasm static/wasm_exec.js $(STATIC_DEPS) $(wildcard static/*.js static/*.css static/*.svg))
precompress: wasm
	@echo "loglab: brotli quality 11 of the static files (about a minute for a new loglab.wasm on 2 cores; nothing when current)"
	$(GO) run ./internal/precompress $(PRECOMPRESS_FILES)

## precompress-fast: .fast.br (brotli quality 6: the module to 3.8 MB in a
## second) and .gz, unless a current .br is there: what `make run` serves
## until quality 11 lands.
precompress-fast: wasm
	@echo "loglab: quick brotli (quality 6) of the static files: a few seconds"
	@$(GO) run ./internal/precompress -fast $(PRECOMPRESS_FILES)

## run: build everything and serve http://localhost:$(PORT). The server
## starts with the quick siblings; brotli quality 11 runs in the background
## (niced, a CPU-minute when the module changed) and the server sends its
## .br from the first request after it lands. Ctrl-C stops both.
run: build precompress-fast
	@echo "loglab: starting the server; brotli quality 11 goes on in the background"
	@nice -n 10 $(GO) run ./internal/precompress $(PRECOMPRESS_FILES) & \
	exec ./bin/loglab serve -addr :$(PORT) -static static -data-dir $(or $(DATA_DIR),data)

## test: everything, from a fresh clone
test: setup vet check-generated test-unit test-wasm e2e

## test-unit and test-wasm: a package's limit is for a test that hangs,
## set well above a loaded run (under node engine/cluster took 3 minutes
## on a quiet machine and passed go test's default 10 beside other work).
test-unit:
	$(GO) test -count=1 -timeout 30m $$($(GO) list ./... | grep -v /e2e)

## test-wasm: the engine's tests under node, as the browser runs them: what
## WASM must prove is that the engine behaves the same there (the lab's and
## the lessons' transcripts, the VOPR's determinism, the wasm driver). Not
## under node: the packages the browser never links (the hashicorp quorum for
## controllers in separate processes, the real file system), and tests whose
## logic the native run proves that simulate for tens of seconds (nativeOnly).
WASM_TESTED = $(shell $(GO) list ./engine/... ./lessons/... ./web/... ./wasm/... | grep -v -e /engine/kraft/quorum -e /engine/storage/osfs)
test-wasm:
	PATH="$(WASM_LIB):$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 -timeout 30m $(WASM_TESTED)

## e2e: the pages in headless Chromium (needs `make setup`). The package
## takes about 3 minutes (162 s) on a quiet 2-core machine, its tests side
## by side; run one after another they once passed go test's default
## 10-minute limit beside two CPU hogs, mid-test: the limit is for a test
## that hangs, so it is set well above a loaded run.
e2e: wasm driver
	LOGLAB_E2E_REQUIRED=1 PLAYWRIGHT_DRIVER_PATH=$(DRIVER_DIR) $(GO) test -count=1 -timeout 40m -v ./e2e/

## bench: benchmarks, reported as ratios against limits measured in the same
## run (append/raw: the log's append path vs a raw sequential write of the
## same bytes; slices/raw: reads through the log vs plain ReadAt; endpoint/bare and
## endpoint-cpu/copy-cpu: the record fetch endpoint vs a bare sendfile loop and a
## user-space copy, the servers' CPU measured in a child process); then the
## engine's replicated produce under node (as the browser runs it), and the
## browser lab's budgets in Chromium (e2e TestBudgets, which only runs here:
## the module's bytes on the wire, time to interactive, frame rate, command
## latency), printed as a table beside the budgets with the native and WASM
## produce figures of this run. docs/budgets.md explains each measure. It
## reports, never fails on a figure. It serves the precompressed module, so it
## needs `make precompress` (a CPU-minute of brotli once per module build).
BENCH_OUT := $(CURDIR)/.cache/bench
bench: precompress chromium driver
	@mkdir -p $(BENCH_OUT)
	set -o pipefail; $(GO) test -run '^$$' -bench . -benchmem $$($(GO) list ./... | grep -v /e2e) | tee $(BENCH_OUT)/native.txt
	set -o pipefail; PATH="$(WASM_LIB):$$PATH" GOOS=js GOARCH=wasm $(GO) test -run '^$$' -bench '^BenchmarkProduceReplicated$$' -benchtime 1x ./engine/lab | tee $(BENCH_OUT)/wasm.txt
	cd e2e && LOGLAB_BENCH=1 LOGLAB_BENCH_NATIVE=$(BENCH_OUT)/native.txt LOGLAB_BENCH_WASM=$(BENCH_OUT)/wasm.txt \
	  LOGLAB_E2E_REQUIRED=1 PLAYWRIGHT_DRIVER_PATH=$(DRIVER_DIR) $(GO) test -count=1 -run '^TestBudgets$$' -v -timeout 20m .

## loadtest: the workshop load check: an in-process server on loopback,
## 200 pages watching for 60 s while the instructor's cluster runs in real
## time with a producer and a consumer group and 20 participant clusters run
## small scripts; prints update latency p50/p99, bytes per update (wire and
## decoded), coalesced and dropped updates, heap per cluster, goroutines
## before and after. Fails on a page without updates, a server error or a
## goroutine leak, never on a latency. LOADTEST_FLAGS overrides the sizes.
LOADTEST_FLAGS ?= -clients 200 -participants 20 -duration 60s
loadtest:
	$(GO) run ./server/cmd/loglab loadtest $(LOADTEST_FLAGS)

## chaos: the hostile-room check (docs/workshop.md): an in-process server on
## loopback and its own data directory, attacked by a websocket flood from 40
## addresses that never reads, slow readers, ?since=0 loops and participants
## filling their budgets, while the instructor produces with acks=all. Prints
## the connections and descriptors at the peak, refusals by reason and the
## victim's latency per phase as a ratio; fails on an unanswered probe, a
## refusal without its reason, the victim refused, an acknowledged record lost
## or a goroutine leak, never on a latency. CHAOS_FLAGS overrides the sizes.
CHAOS_FLAGS ?=
chaos:
	$(GO) run ./server/cmd/loglab chaos $(CHAOS_FLAGS)

## fuzz: a short run of every fuzz target (FUZZTIME=30s for longer)
FUZZTIME ?= 10s
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzDecode -fuzztime $(FUZZTIME) ./engine/record/
	$(GO) test -run '^$$' -fuzz FuzzLog -fuzztime $(FUZZTIME) ./engine/dumplog/
	$(GO) test -run '^$$' -fuzz FuzzRun -fuzztime $(FUZZTIME) ./engine/lab/

## fuzz-server: the server's endpoints (HTTP and websocket) under random and
## mutated input for FUZZ_SERVER_TIME (10m); FUZZ_SERVER_SEED picks another
## sequence. It prints how many inputs it sent.
FUZZ_SERVER_TIME ?= 10m
fuzz-server:
	LOGLAB_FUZZ_DURATION=$(FUZZ_SERVER_TIME) LOGLAB_FUZZ_SEED=$(or $(FUZZ_SERVER_SEED),1) \
	  $(GO) test ./server -run '^TestFuzzServer$$' -count=1 -v -timeout 0

## sim: the VOPR, seeded random workloads with faults and the invariant
## checker on every event, over SEEDS seeds of STEPS workload steps (200);
## a failing seed prints its violations and the lab script that replays it
sim:
	$(GO) test ./engine/vopr -run '^TestVOPR$$' -count=1 -v -timeout 0 -seeds=$(SEEDS) -steps=$(or $(STEPS),200)
