# The two commands of the README: `make bench` runs the main job, `make test` passes the tests.
# Each one installs what is missing, configures, builds incrementally, then runs.

PRESET ?= release
BUILD_DIR := build/$(PRESET)
GEMMLAB := $(BUILD_DIR)/gemmlab
export PATH := $(PATH):/usr/local/cuda/bin

.PHONY: all deps configure build test bench verify probe overhead tune list clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja: | deps
	cmake --preset $(PRESET)

configure: $(BUILD_DIR)/build.ninja

build: deps configure
	cmake --build $(BUILD_DIR)

test: build
	ctest --preset $(PRESET) --output-on-failure -j2

# The GPU ladder beside cuBLAS; without a GPU (exit code 3) the CPU ladder of seed 000 §3.5.2.
bench: build
	@$(GEMMLAB) bench $(ARGS); rc=$$?; \
	if [ $$rc -eq 3 ]; then $(GEMMLAB) bench --device cpu; else exit $$rc; fi

verify: build
	$(GEMMLAB) verify $(ARGS)

probe: build
	$(GEMMLAB) probe $(ARGS)

overhead: build
	$(GEMMLAB) overhead $(ARGS)

# Measures auto's candidates on this GPU and writes the tune cache auto reads.
tune: build
	$(GEMMLAB) tune $(ARGS)

list: build
	@$(GEMMLAB) list

clean:
	rm -rf $(BUILD_DIR)
