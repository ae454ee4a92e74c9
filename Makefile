# Two entry points for a fresh machine:
#   make demo   installs what is missing, builds (Release), runs scenarios/quickstart.json in simulation
#   make test   installs what is missing, builds, runs every test with ctest
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: demo test deps build
demo: build
	./$(BUILD)/traintwin run scenarios/quickstart.json --out out/quickstart

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

deps:
	./scripts/install-deps.sh
