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

.PHONY: demo test golden regress-baseline deps configure
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
