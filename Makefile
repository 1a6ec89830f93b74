# actbridge: `make demo` runs the bridge against the simulated robot over
# ROS 2 and needs Go alone (no apt, no root); `make demo ROS=1` runs it over
# ROS 1 with a rosmaster, `make test` runs the whole suite: those two
# install what they need and is missing first (scripts/deps.sh).
export PATH := $(PATH):/usr/local/go/bin
GO ?= go
# The ROS version of the demo: 2 (no rosmaster, localhost-only DDS) or 1.
ROS ?= 2
TEST_TIMEOUT ?= 15m

.PHONY: all deps debian13-root build demo demo-stop test lint fuzz bench release clean

all: build

deps:
	@scripts/deps.sh test

# The Debian 13 root the Fast DDS 3 test peers build and run in
# (docs/fastdds3.md): debootstrapped once per machine into the cache,
# nothing to do after.
debian13-root:
	@scripts/debian13-root.sh >/dev/null

build:
	$(GO) build -o bin/ ./cmd/...

# Only ROS 1 has packages to install; the ROS 2 demo checks Go alone.
demo:
	@scripts/deps.sh $(if $(filter 1,$(ROS)),ros1,demo)
	$(GO) build -o bin/ ./cmd/...
	@scripts/demo.sh --ros $(ROS)

demo-stop:
	@scripts/demo.sh stop

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# The whole suite: unit tests, tests against a real rosmaster/simrobot/
# Prometheus (each test starts and stops its own), and short fuzz runs.
# ACTBRIDGE_REQUIRE_DDS_PEERS turns a missing DDS package (or Debian 13
# root) into a failure instead of a skipped test.
test: export ACTBRIDGE_REQUIRE_DDS_PEERS = 1
test: deps debian13-root lint build
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./...
	@scripts/fuzz.sh 20000x

fuzz:
	@scripts/fuzz.sh $${FUZZTIME:-2m}

bench: deps build
	@scripts/bench.sh

# Static binaries for linux/amd64 and linux/arm64, stamped, with LICENSE,
# NOTICE, THIRD_PARTY_LICENSES and SHA256SUMS, into dist/.
release:
	@scripts/release.sh

clean:
	rm -rf bin .demo dist
