# Two entry points for a fresh machine:
#   make demo   installs what is missing, builds (Release), simulates scenarios/quickstart.json
#   make test   installs what is missing, builds everything, runs every test with ctest
BUILD ?= build
JOBS ?= $(shell nproc)
# CUDA kernels and the NCCL provider: AUTO (when nvcc and NCCL are found), ON (fail when they are not; CI), OFF.
CUDA ?= AUTO
# Compiler warnings as errors (TRAINTWIN_WERROR): ON in CI (CI=true, as CI services set it), OFF locally; WERROR=ON|OFF
# overrides either.
WERROR ?= $(if $(filter true 1,$(CI)),ON,OFF)

.PHONY: demo test deps configure
demo: configure
	cmake --build $(BUILD) -j $(JOBS) --target traintwin
	./$(BUILD)/traintwin run scenarios/quickstart.json --out out/quickstart

test: configure
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DTRAINTWIN_CUDA=$(CUDA) -DTRAINTWIN_WERROR=$(WERROR)

deps:
	./scripts/install-deps.sh
