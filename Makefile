# bridgescope: `make demo` runs the main job end to end, `make test` runs the tests.
SWIFT ?= swift
BIN := .build/debug/bridgescope

.PHONY: setup build release test demo webkit bench-fuzz-webview bench-webkit bench bench-json bench-server bench-record bench-replay bench-fuzz bench-analyze fuzz-nightly rules-doc clean bench-cdp bench-otlp bench-otlp-memory bench-fleet soak

setup:
	@tools/setup.sh --with-browser --with-webkit

# bridgescope-webkit (docs/WEBKIT.md): a nested package, so that GTK and WebKit stay out
# of the bridgescope binary and out of `make release`.
WEBKIT_BIN := tools/webkit/.build/debug/bridgescope-webkit
webkit:
	@tools/setup.sh --with-webkit
	$(SWIFT) build --package-path tools/webkit
	@echo "bridgescope-webkit: $(WEBKIT_BIN)"

build: setup
	$(SWIFT) build

# The WebKit shell's tests (Tests/bridgescopeTests/WebKit*) fail rather than skip when
# BRIDGESCOPE_REQUIRE_WEBKIT is set and the shell is not built; the tests that need
# Chromium or node (the JavaScript tests among them: JavaScriptSuiteTests runs
# `node --test` on tools/taps/js/test and tools/hosts/node) fail rather than skip when
# BRIDGESCOPE_REQUIRE_BROWSER is set and they are missing.
test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) build --package-path tools/webkit
	BRIDGESCOPE_REQUIRE_WEBKIT=1 BRIDGESCOPE_REQUIRE_BROWSER=1 $(SWIFT) test

# The binary to install and to time: a release build with the Swift runtime and
# Foundation linked in (no libswiftCore.so to find at start, direct calls into the
# runtime); its own build folder, so that a plain `swift build -c release` does not
# rebuild it from scratch (docs/PERFORMANCE.md, "A self-contained release binary").
RELEASE_BIN := .build/static/release/bridgescope
# Only the build's packages (no Chromium: `record --launch` finds it at run time).
release:
	@tools/setup.sh
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path .build/static --product bridgescope
	@echo "release binary: $(RELEASE_BIN)"

demo: build webkit
	@tools/demo.sh

bench: bench-json bench-server bench-record bench-replay bench-fuzz bench-analyze bench-cdp bench-otlp bench-fleet bench-webkit

bench-json: setup
	@tools/bench/json-bench.sh

bench-server: setup
	@tools/bench/server/run.sh --clients 16 --pipeline 8 --rounds 5 --seconds 4
	@tools/bench/server/run.sh --clients 16 --pipeline 1 --rounds 5 --seconds 4

bench-record: setup
	@tools/bench/record/run.sh

bench-replay: setup
	@tools/bench/replay/replay-bench.sh

bench-analyze: setup
	@tools/bench/analyze/run.sh

bench-otlp: setup
	@tools/bench/otlp/run.sh

# Peak RSS of export --otlp at 600,000 and 6,000,000 messages (several minutes).
bench-otlp-memory: setup
	@tools/bench/otlp/memory.sh

# Soak test of the host and the recording proxy (tools/soak/run.sh): make soak DURATION=30m.
DURATION ?= 30m
soak: setup
	@tools/soak/run.sh --duration $(DURATION)

bench-fleet: setup
	@tools/bench/fleet/run.sh

bench-fuzz-webview: setup
	@tools/bench/fuzz/webview.sh

bench-fuzz: setup
	@tools/bench/fuzz/run.sh

fuzz-nightly: setup
	@tools/nightly-fuzz.sh

rules-doc: build
	$(BIN) rules --markdown > docs/RULES.md

clean:
	rm -rf .build

bench-cdp: setup
	@tools/bench/record/cdp.sh

bench-webkit: setup
	@tools/bench/webkit/run.sh

.PHONY: bench-webkit-record
bench-webkit-record: setup
	@tools/bench/record/webkit.sh
