# Targets for everyday work. CI runs .ci/run, which needs nothing but Go.
GO       ?= go
FUZZTIME ?= 30s
FUZZMINTIME ?= 5s
BENCH    ?= .
PKGS     ?= ./...

.PHONY: all fmt vet test test-long test-race fuzz bench golden darwincheck ci

all: vet test

fmt:
	gofmt -w .

vet:
	$(GO) vet ./...

# The quick cases (under a minute on two cores); test-long adds the long
# cases CI runs (internal/longtest).
test:
	$(GO) test ./...

test-long:
	MEMPLAN_LONG_TESTS=1 $(GO) test ./...

# The packages that run work concurrently; those that do not exist yet are skipped.
test-race:
	@pkgs=""; for p in ./exec/... ./profile/... ./planner/...; do \
		if [ -n "$$($(GO) list $$p 2>/dev/null)" ]; then pkgs="$$pkgs $$p"; fi; \
	done; \
	if [ -n "$$pkgs" ]; then echo "$(GO) test -race$$pkgs"; $(GO) test -race $$pkgs; fi

# Every native fuzz target in every package, FUZZTIME each.
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
		for f in $$($(GO) test -list 'Fuzz.*' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$f ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) $$pkg; \
		done; \
	done

bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem $(PKGS)

# Rewrite golden files: go test -run Golden -update in every package whose
# tests define the -update flag (passing -update to the others would fail).
golden:
	@set -e; for d in $$(grep -rl --include='*_test.go' 'flag.Bool("update"' . | xargs -r -n1 dirname | sort -u); do \
		echo "$(GO) test $$d -run Golden -update"; $(GO) test $$d -run Golden -update; \
	done

darwincheck:
	@if [ -d exec/metal ]; then $(GO) run ./internal/tools/darwincheck ./exec/metal; \
	else echo "no exec/metal yet"; fi

ci:
	./.ci/run
