# The two commands of the README: `make bench` runs the main job, `make test` passes the tests.
# Each one checks its dependencies (scripts/install-deps.sh: installs what is missing where apt
# works, else says how to get it), configures, builds incrementally, then runs.
# bench, verify, probe, overhead and tune need only the build's dependencies and build only the
# gemmlab tool; test also needs GoogleTest and builds everything.

PRESET ?= release
BUILD_DIR := build/$(PRESET)
GEMMLAB := $(BUILD_DIR)/gemmlab
export PATH := $(PATH):/usr/local/cuda/bin
# CLI11 and nlohmann-json unpacked by scripts/fetch-header-deps.sh (a machine without apt).
ifneq ($(wildcard build/deps/usr),)
export CMAKE_PREFIX_PATH := $(CURDIR)/build/deps/usr$(if $(CMAKE_PREFIX_PATH),:$(CMAKE_PREFIX_PATH))
endif
# The presets ask for Ninja; Make builds too where Ninja is absent.
GENERATOR := $(if $(shell command -v ninja 2>/dev/null),,-G "Unix Makefiles")
CONFIGURED := $(BUILD_DIR)/CMakeCache.txt

# `make bench` with no ARGS: float and BF16 at three sizes, every rung that takes the type, each
# row checked, then timed at least 5 times and 50 ms: sized to finish within a minute on an H100
# (scripts/check-fresh-bench.sh prints how long it took).
BENCH_DEFAULT := --dtype f32,bf16 --sizes 1024,2048,4096 --reps 5 --min-time 50

.PHONY: all deps deps-test configure build build-tool test bench verify probe overhead tune list clean

all: build

deps:
	@scripts/install-deps.sh build

deps-test:
	@scripts/install-deps.sh test

$(CONFIGURED):
	cmake --preset $(PRESET) $(GENERATOR)

configure: deps $(CONFIGURED)

# Everything: the library, the tool, the tests, the Python module and the BLAS where found.
build: deps $(CONFIGURED)
	cmake --build $(BUILD_DIR)

# The library and the gemmlab tool alone: what the jobs below run.
build-tool: deps $(CONFIGURED)
	cmake --build $(BUILD_DIR) --target gemmlab_cli

# Configures again: a build folder first configured without GoogleTest gets its tests now.
test: deps-test
	cmake --preset $(PRESET) $(GENERATOR)
	cmake --build $(BUILD_DIR)
	ctest --preset $(PRESET) --output-on-failure -j2

# The GPU ladder beside cuBLAS; without a GPU (exit code 3) the CPU blocking ladder.
bench: build-tool
	@$(GEMMLAB) bench $(if $(ARGS),$(ARGS),$(BENCH_DEFAULT)); rc=$$?; \
	if [ $$rc -eq 3 ]; then $(GEMMLAB) bench --device cpu; else exit $$rc; fi

verify: build-tool
	$(GEMMLAB) verify $(ARGS)

probe: build-tool
	$(GEMMLAB) probe $(ARGS)

overhead: build-tool
	$(GEMMLAB) overhead $(ARGS)

# Measures auto's candidates on this GPU and writes the tune cache auto reads.
tune: build-tool
	$(GEMMLAB) tune $(ARGS)

list: build-tool
	@$(GEMMLAB) list

clean:
	rm -rf $(BUILD_DIR)
