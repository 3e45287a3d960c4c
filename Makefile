# gpuwatch: the two quick-start commands are `make demo` and `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUWATCH_WERROR=ON
DEMO_SCENARIO ?= scenarios/incidents-8xh200.yaml
DEMO_LISTEN ?= 127.0.0.1:19400

.PHONY: deps build test demo run bench bench-store format clean

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja: CMakeLists.txt
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Runs the agent on a bundled simulated 8-GPU node and prints where to look.
demo: build
	@scripts/demo.sh $(BUILD) $(DEMO_SCENARIO) $(DEMO_LISTEN)

# Runs the agent on this machine's real GPUs (needs the NVIDIA driver's libnvidia-ml.so.1).
run: build
	$(BUILD)/gpuwatch agent --listen $(DEMO_LISTEN)

bench: build
	@bench/run.sh $(BUILD)
	@bench/time_to_alert.sh $(BUILD)

# The history store beside Prometheus and VictoriaMetrics on identical data (about 15 minutes on 2 cores).
bench-store: build
	@bench/store_bench.sh $(BUILD)

format:
	@git ls-files '*.h' '*.cpp' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
