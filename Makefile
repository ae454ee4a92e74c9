# Two entry points for a fresh machine:
#   make demo   installs what is missing, builds (Release), simulates scenarios/quickstart.json
#   make test   installs what is missing, builds everything, runs every test with ctest
# and two for a change that moves decisions or work on purpose:
#   make golden builds traintwin, rewrites tests/golden/*.decisions.txt from every bundled scenario (review: git diff)
#   make regress-baseline builds the benchmarks, rewrites bench/baselines.json's work counters (review: git diff)
BUILD ?= build
JOBS ?= $(shell nproc)
# CUDA kernels and the NCCL provider: AUTO (when nvcc and NCCL are found), ON (fail when they are not; CI), OFF.
CUDA ?= AUTO
# Compiler warnings as errors (TRAINTWIN_WERROR): ON in CI (.ci/run passes WERROR=ON; CI=true does too), OFF locally.
WERROR ?= $(if $(filter true 1,$(CI)),ON,OFF)

.PHONY: demo test golden regress-baseline deps configure asan fuzz
demo: configure
	cmake --build $(BUILD) -j $(JOBS) --target traintwin
	./$(BUILD)/traintwin run scenarios/quickstart.json --out out/quickstart

test: configure
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

golden:
	cmake --build $(BUILD) -j $(JOBS) --target traintwin
	./scripts/update-golden.sh $(BUILD)/traintwin

regress-baseline: configure
	cmake --build $(BUILD) -j $(JOBS)
	./$(BUILD)/bench_regress --update

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DTRAINTWIN_CUDA=$(CUDA) -DTRAINTWIN_WERROR=$(WERROR)

deps:
	./scripts/install-deps.sh

# Reliability (docs/reliability.md):
#   make asan   builds everything with ASan+UBSan in build-asan (gcc, CUDA off, no jemalloc, SimGrid on thread
#               contexts) and runs the whole suite there
#   make fuzz   builds the libFuzzer targets (clang) in build-fuzz and runs each for FUZZ_TIME seconds
ASAN_BUILD ?= build-asan
FUZZ_TIME ?= 60
asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Release -DTRAINTWIN_CUDA=OFF -DTRAINTWIN_WERROR=$(WERROR) \
	      -DTRAINTWIN_SANITIZE=address,undefined
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

fuzz: deps
	./scripts/fuzz.sh --time $(FUZZ_TIME) --jobs $(JOBS)
