# gpuwatch: the two quick-start commands are `make demo` and `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)
# How many tests run at once (default: the cores). The tests mostly wait (agents' ticks, Prometheus, a
# browser): on 2 cores their CPU was about half their wall time at -j 2, so TEST_JOBS=4 is worth a try.
TEST_JOBS ?= $(JOBS)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUWATCH_WERROR=ON
DEMO_SCENARIO ?= scenarios/incidents-8xh200.yaml
DEMO_LISTEN ?= 127.0.0.1:19400
# The ASan + UBSan build (clang, libFuzzer) that reruns the unit tests and the fuzz targets.
SAN_BUILD ?= build-sanitize
SAN_FLAGS ?= -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Sanitize \
  -DGPUWATCH_SANITIZE=ON -DGPUWATCH_WERROR=ON
FUZZ_SECONDS ?= 900
# `make install`: where (PREFIX) and under which staging root (DESTDIR, for packagers); docs/install.md.
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: deps build sanitized test fuzz demo run bench bench-store bench-scrape install deb package format clean

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja: CMakeLists.txt
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

$(SAN_BUILD)/build.ninja: CMakeLists.txt
	cmake -S . -B $(SAN_BUILD) -G Ninja $(SAN_FLAGS)

# Only what runs under the sanitizers: the self-contained unit tests and the fuzz targets (tests/fuzz).
sanitized: deps $(SAN_BUILD)/build.ninja
	cmake --build $(SAN_BUILD) -j $(JOBS) --target sanitized

# Every test, then the unit tests again under ASan + UBSan and a short pass of each fuzz target.
test: build sanitized
	cd $(BUILD) && ctest --output-on-failure -j $(TEST_JOBS)
	cd $(SAN_BUILD) && ctest --output-on-failure -j $(TEST_JOBS) -L sanitize

# Each fuzz target for FUZZ_SECONDS (default 15 minutes), growing its corpus in the sanitizer build tree.
fuzz: sanitized
	@scripts/fuzz.sh $(SAN_BUILD) $(FUZZ_SECONDS)

# Runs the agent on a bundled simulated 8-GPU node and prints where to look.
demo: build
	@scripts/demo.sh $(BUILD) $(DEMO_SCENARIO) $(DEMO_LISTEN)

# Runs the agent on this machine's real GPUs (needs the NVIDIA driver's libnvidia-ml.so.1).
run: build
	$(BUILD)/gpuwatch agent --listen $(DEMO_LISTEN)

# Collection, serving and memory beside node_exporter, time to alert, the web dashboards, `gpuwatch top` beside
# nvtop, the SLO engine and fault-to-page beside Prometheus rules, and remote write beside Prometheus in agent
# mode. NVTOP=/path/to/nvtop (built from its source; no Debian package) puts top and the one-shot commands beside
# nvtop; without it they are measured alone and the scripts say so.
bench: build
	@NVTOP="$(NVTOP)" bench/oneshot.sh $(BUILD)
	@bench/run.sh $(BUILD)
	@bench/time_to_alert.sh $(BUILD)
	@bench/ui_bench.sh $(BUILD)
	@NVTOP="$(NVTOP)" bench/top_vs_nvtop.sh $(BUILD)
	@bench/slo/run.sh $(BUILD)
	@bench/slo/fault_to_page.sh $(BUILD)
	@bench/remote_write.sh $(BUILD)

# The history store beside Prometheus and VictoriaMetrics on identical data (about 15 minutes on 2 cores).
bench-store: build
	@bench/store_bench.sh $(BUILD)

# Scraping's cost per target and per sample beside Prometheus scraping the same simulated servers (~3 minutes).
bench-scrape: build
	@bench/scrape_bench.sh $(BUILD)

# The binary, the simulator (PREFIX/lib/gpuwatch/sim), scenarios, docs, the systemd unit and the config
# (/etc/gpuwatch with PREFIX=/usr, else PREFIX/etc/gpuwatch; an existing one is kept).
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

# The .deb, from the same install rules with PREFIX=/usr: $(BUILD)/packages/gpuwatch_VERSION_ARCH.deb.
deb: build
	cd $(BUILD) && cpack -G DEB

package: deb

format:
	@git ls-files '*.h' '*.cpp' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(SAN_BUILD)
