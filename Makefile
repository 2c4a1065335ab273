# SPDX-License-Identifier: MIT
# The two commands a new user runs (README.md): `make demo` and `make test`. Everything else is
# CMake; this file only installs what is missing, configures, builds and runs.
BUILD_DIR   ?= build
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build test demo install clean

all: build

deps:
	@sh scripts/deps.sh

build: deps
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

demo: build
	@sh examples/demo.sh $(BUILD_DIR)

install: build
	cmake --install $(BUILD_DIR) --prefix $(or $(PREFIX),/usr/local)

clean:
	rm -rf $(BUILD_DIR)
