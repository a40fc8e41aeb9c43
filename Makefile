# nsip-mcp: build, run and check.
GO        ?= go
SHELL     := /bin/bash
MODULE    := github.com/nsip-tools/nsip-mcp
BIN       := bin
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
# The release pipeline's tools, at fixed versions like staticcheck; go run
# keeps each built binary in the build cache, so only a first run compiles.
GORELEASER_VERSION := v2.15.1
GORELEASER := $(GO) run github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)
ACTIONLINT_VERSION := v1.7.12
ACTIONLINT := $(GO) run github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)
RELEASE_CONFIG := .ci/goreleaser.yaml
# make test builds the end-to-end tests (the TypeScript SDK client and
# headless Chromium) too; plain go test ./... leaves them out.
TAGS := e2e
# Packages whose statement coverage by their own tests (go test -cover,
# with TAGS) must stay at or above COVER_MIN percent: every package under
# gateway/ carries its own gate, its tests living beside its code.
COVER_PKGS  := nsip nsip/shape nsip/livecheck cache cache/recent gateway gateway/argcheck gateway/calllog gateway/elicit gateway/features \
               gateway/finite gateway/full gateway/health gateway/internal/jsonpool gateway/internal/snapshot gateway/lookup gateway/metrics gateway/outschema \
               gateway/nsiparg gateway/param gateway/passes gateway/session gateway/structured gateway/tasks gateway/toolerr \
               gateway/source gateway/toolcall gateway/tooldef gateway/toolsets gateway/upstream gateway/views
# Trees whose packages are gated as one: their statements covered by the
# tree's own tests (gateway/analysis: each analysis's tests run the shared
# packages beside it, and the frame's code is run by the analyses).
COVER_TREES := gateway/analysis
COVER_MIN   := 90
# Version, commit and commit time stamped into the binaries (.ci/version);
# VERSION=v1.2.3 on the command line overrides the first.
STAMP   := $(shell .ci/version 2>/dev/null)
VERSION ?= $(word 1,$(STAMP))
COMMIT  ?= $(word 2,$(STAMP))
DATE    ?= $(word 3,$(STAMP))
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)

.PHONY: all build run test vet lint cover e2e-deps bench stub clean

all: build

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/...

# Silent (no echoed commands) so that stdout carries only JSON-RPC; build
# errors go to stderr.
run:
	@$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/nsip-mcp
	@exec $(BIN)/nsip-mcp

# An offline first call: the stand-in NSIP and the server together, asking
# for one animal (LPN=... picks another) over stdio.
LPN ?= 6402382024NCS310
.PHONY: demo
demo: build
	@.ci/demo $(BIN) '$(LPN)'

# Release artifacts in dist/: static binaries for linux, darwin and windows
# on amd64 and arm64, a Claude Desktop bundle (.mcpb) for each, SHA256SUMS.
# TARGETS=linux/amd64 builds one.
TARGETS ?= linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64,windows/arm64
# The container image (cmd/nsip-mcp/Dockerfile): make dist's static binary
# on scratch, as the release builds it; it needs a Docker engine and fails
# without one. static-binary checks the binary the image holds (static,
# stamped) and the image's context with no engine, as CI does.
.PHONY: image static-binary
image:
	.ci/image

static-binary:
	.ci/static-binary

.PHONY: dist
dist:
	$(GO) run .ci/dist.go -out dist -targets '$(TARGETS)' -version '$(VERSION)' -commit '$(COMMIT)' -date '$(DATE)'

# The release pipeline (.github/workflows/release.yml, .ci/goreleaser.yaml).
# pin-check checks that the workflows run only what the commit names
# (.ci/pinned.go: actions by commit SHA, images by digest, no job-wide
# token): the standard library only, so make test runs it. release-check
# adds actionlint and GoReleaser's check of its configuration, with no
# Docker engine; their first run downloads about 250 modules and builds
# both tools, so it runs where releases are made (the release workflow's
# test job) and on demand, not in make test.
.PHONY: pin-check release-check release release-snapshot
pin-check:
	$(GO) run .ci/pinned.go
release-check: pin-check
	$(ACTIONLINT)
	$(GORELEASER) check --config $(RELEASE_CONFIG)

# What the workflow runs on a v* tag, with GITHUB_TOKEN set: a draft
# GitHub release of the binaries, bundles and SHA256SUMS.
RELEASE_NOTES ?=
release:
	$(GORELEASER) release --clean --config $(RELEASE_CONFIG) $(if $(RELEASE_NOTES),--release-notes '$(RELEASE_NOTES)')

# The same release built into dist/ and not published, with server.json;
# the image is left to make image.
release-snapshot:
	$(GORELEASER) release --snapshot --clean --skip=publish --config $(RELEASE_CONFIG)
	$(GO) run .ci/dist.go -registry -out dist -version "v$$(grep -o '"version": *"[^"]*"' dist/metadata.json | head -1 | cut -d'"' -f4)"

stub: build
	./$(BIN)/nsip-stub

vet:
	$(GO) vet -tags $(TAGS) ./...

lint: vet
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt would change:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(STATICCHECK) -tags $(TAGS) ./...

# The checks are independent of one another, so make test runs them side
# by side (-j), each one's output printed together when it ends (-O): npm's
# installs and the views' build then overlap the race run, and the two
# cores stay busy while that run's last packages finish. go vet still runs
# before staticcheck (lint: vet), which reuses what it compiled, and
# e2e-deps before the race run (cover: e2e-deps), whose end-to-end tests
# need what it installs.
test:
	+@$(MAKE) --no-print-directory -j4 -O lint pin-check views-check cover

# The MCP Apps views (gateway/views): make views rebuilds dist/ from src/
# (and the web app, app/webapp.html, from src/webapp/) with npm and
# esbuild; the built pages are committed and embedded, so go build needs
# no Node. views-check builds them afresh in a temporary folder and fails
# when that differs from the committed dist/ or app/, or when the views'
# own tests (npm test) fail.
.PHONY: views views-check
views:
	cd gateway/views && npm ci --no-audit --no-fund --loglevel=error && npm run build

views-check:
	.ci/views-check

# npm ci for the TypeScript SDK client and apt for Chromium, only when missing.
e2e-deps:
	.ci/e2e-deps

# The race builds of the module's packages, compiled while e2e-deps
# installs (make test runs them side by side); .ci/race-cover then finds
# them built.
.PHONY: race-build
race-build:
	$(GO) build -race -tags $(TAGS) ./...

cover: e2e-deps race-build
	@# Each package's tests run once, under -race, and those of
	@# COVER_PKGS with -cover too (.ci/race-cover); the gates read the
	@# figures from bin/test.out.
	GO="$(GO)" TAGS="$(TAGS)" COVER_PKGS="$(COVER_PKGS)" COVER_TREES="$(COVER_TREES)" .ci/race-cover $(BIN)
	@for p in $(COVER_PKGS); do \
	  pct=$$(awk -v pkg="$(MODULE)/$$p" '$$1=="ok" && $$2==pkg {for(i=1;i<=NF;i++) if($$i=="coverage:") print $$(i+1)}' $(BIN)/test.out | tr -d '%'); \
	  [ -n "$$pct" ] || { echo "coverage: no figure for ./$$p"; exit 1; }; \
	  awk -v p="$$pct" -v m=$(COVER_MIN) 'BEGIN{exit !(p+0 >= m)}' || { echo "coverage: ./$$p at $$pct% is below $(COVER_MIN)%"; exit 1; }; \
	  echo "coverage: ./$$p $$pct% (gate $(COVER_MIN)%)"; \
	done
	@for t in $(COVER_TREES); do \
	  f=$(BIN)/$$(echo $$t | tr / -).cover; \
	  pct=$$($(GO) tool cover -func=$$f | awk '$$1=="total:" {print $$NF}' | tr -d '%'); \
	  [ -n "$$pct" ] || { echo "coverage: no figure for ./$$t/..."; exit 1; }; \
	  awk -v p="$$pct" -v m=$(COVER_MIN) 'BEGIN{exit !(p+0 >= m)}' || { echo "coverage: ./$$t/... at $$pct% is below $(COVER_MIN)%"; exit 1; }; \
	  echo "coverage: ./$$t/... $$pct% (gate $(COVER_MIN)%, the tree by its own tests)"; \
	done

# Every benchmark once, about 75 s on two cores; BENCHTIME=3s or BENCHCOUNT=5
# in the environment give steadier figures at the cost of time.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $${BENCHTIME:-1s} -count $${BENCHCOUNT:-1} ./...

# Every fuzz target in turn for FUZZTIME each (go test -fuzz takes one
# target per package); FUZZ=regexp picks some. A failure prints the input
# file that broke it.
FUZZTIME ?= 15s
.PHONY: fuzz
fuzz:
	GO="$(GO)" FUZZTIME="$(FUZZTIME)" FUZZ="$(FUZZ)" .ci/fuzz

# A short load run: 200 WebSocket sessions for 20 s against nsip-mcp and the
# stand-in upstream (50 ms per answer), both started by nsip-load on loopback.
.PHONY: load
load: build
	./$(BIN)/nsip-load --spawn --server-bin $(BIN)/nsip-mcp --transport websocket --sessions 200 --duration 20s --latency 50ms

clean:
	rm -rf $(BIN) dist coverage.out
