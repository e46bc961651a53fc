# bridgescope: `make demo` runs the main job end to end, `make test` runs the tests.
SWIFT ?= swift
BIN := .build/debug/bridgescope

.PHONY: setup build test demo bench bench-json bench-server rules-doc clean

setup:
	@tools/setup.sh --with-browser

build: setup
	$(SWIFT) build

test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test

demo: build
	@tools/demo.sh

bench: bench-json bench-server

bench-json: setup
	@tools/bench/json-bench.sh

bench-server: setup
	@tools/bench/server/run.sh

rules-doc: build
	$(BIN) rules --markdown > docs/RULES.md

clean:
	rm -rf .build
