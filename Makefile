# schedlab — the two commands of README.md: `make run` and `make test`.
# Both install missing Debian packages first (as root), configure once and build incrementally.
PRESET ?= dev
BUILD_DIR := build/$(PRESET)
SCENARIO ?= resources/default.json

# poppler-utils: pdftoppm, with which tst_capture rasterizes the PDF captures to compare them
# with the PNG (the SVG is rasterized by QSvgRenderer).
PACKAGES := cmake ninja-build g++ make qt6-base-dev qt6-svg-dev libqcustomplot-dev \
            libboost-dev nlohmann-json3-dev libgl-dev clang-format xvfb xauth imagemagick dpkg-dev \
            poppler-utils

# `make fuzz` (docs/limits.md): clang + libFuzzer, the core only (no Qt needed).
FUZZ_PACKAGES := cmake ninja-build clang libclang-rt-14-dev libboost-dev nlohmann-json3-dev

# `make lab KERNEL=6.18.15 SCENARIO=scenarios/equal-hogs.json` (docs/real-kernels.md): the
# scenario on a Debian kernel under qemu, model beside real. Its tools are not in `make deps`.
LAB_PACKAGES := qemu-system-x86 busybox-static debian-archive-keyring
KERNEL ?= 6.18.15

.PHONY: all deps configure build run test bench package fuzz format check-format clean golden lab lab-deps

all: build

deps:
	@missing=$$(for p in $(PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q "install ok installed" || echo $$p; \
	  done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "Installing: $$missing"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "Missing packages. Run as root:"; \
	    echo "  apt-get install -y --no-install-recommends $$missing"; \
	    exit 1; \
	  fi; \
	fi

$(BUILD_DIR)/build.ninja: | deps
	cmake --preset $(PRESET)

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build --preset $(PRESET)

run: build
	$(BUILD_DIR)/bin/schedlab $(SCENARIO)

test: build
	ctest --preset $(PRESET)

# Rewrites the golden recordings (tests/golden/README.md) after an intended behaviour change.
golden: configure
	cmake --build --preset $(PRESET) --target tst_golden
	SCHEDLAB_GOLDEN_UPDATE=1 $(BUILD_DIR)/tests/tst_golden

bench: PRESET := release
bench:
	$(MAKE) PRESET=release build
	ctest --preset bench

lab-deps:
	$(MAKE) deps PACKAGES="$(LAB_PACKAGES)"

lab: configure lab-deps
	cmake --build --preset $(PRESET) --target schedlab-run schedlab-cli
	BUILD=$(CURDIR)/$(BUILD_DIR) lab/lab.sh $(KERNEL) \
	  $(if $(filter resources/default.json,$(SCENARIO)),scenarios/equal-hogs.json,$(SCENARIO))
# `make package`: a release build of the GUI and the CLI, packed by CPack into build/package/*.deb
# (install it with `apt install ./build/package/schedlab_*.deb`; cmake/Packaging.cmake).
package:
	$(MAKE) PRESET=package build
	cd build/package && cpack -G DEB
	@ls -1 build/package/*.deb

fuzz:
	$(MAKE) deps PACKAGES="$(FUZZ_PACKAGES)"
	test -f build/fuzz/build.ninja || cmake --preset fuzz
	cmake --build --preset fuzz
	ctest --preset fuzz

format:
	clang-format -i $$(git ls-files '*.h' '*.cpp')

check-format:
	clang-format --dry-run --Werror $$(git ls-files '*.h' '*.cpp')

clean:
	rm -rf build
