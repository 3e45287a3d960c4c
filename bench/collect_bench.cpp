// Collection cost: runs the Collector on libnvml-sim in lockstep mode (the collector's clock moves scenario
// time, so N ticks of scenario time take only as long as the work) and prints one JSON object with the cost
// per GPU per tick measured two ways in the same run:
//   - process CPU time around the tick loop (every thread: collector, device workers, event thread);
//   - wall time inside NVML calls (CollectorStats::nvml_time, timed around each call; the simulator's own
//     computation counts there, as the real driver's would);
// and their difference, the agent's own work. Also the process RSS after the run.
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "collector/collector.h"

namespace {

using Nanos = std::chrono::nanoseconds;

Nanos process_cpu_clock() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + Nanos(ts.tv_nsec);
}

Nanos rusage_cpu() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto tv = [](const timeval& t) {
    return std::chrono::seconds(t.tv_sec) + std::chrono::microseconds(t.tv_usec);
  };
  return tv(ru.ru_utime) + tv(ru.ru_stime);
}

// A "VmRSS:   1234 kB" line of /proc/self/status, in KiB; -1 when absent.
long status_kib(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::strtol(line.c_str() + field.size() + 1, nullptr, 10);
  }
  return -1;
}

double micros(Nanos n) {
  return std::chrono::duration<double, std::micro>(n).count();
}

struct Options {
  std::string nvml_library;
  std::string scenario;
  std::string proc_root = "/proc";
  std::uint64_t ticks = 600;
  unsigned interval_ms = 1000;
};

nlohmann::json run(const Options& o) {
  // The simulator reads these at nvmlInit, which the collector's constructor triggers through its clock.
  ::setenv("GPUWATCH_SIM_SCENARIO", o.scenario.c_str(), 1);
  ::setenv("GPUWATCH_SIM_MODE", "lockstep", 1);
  // Lockstep never runs past the wall clock: start far enough back for every tick to run at full speed.
  const auto span_s = static_cast<long long>(o.ticks * o.interval_ms / 1000) + 60;
  ::setenv("GPUWATCH_SIM_EPOCH", std::to_string(static_cast<long long>(std::time(nullptr)) - span_s).c_str(), 0);

  gpuwatch::CollectorOptions options;
  options.nvml_library = o.nvml_library;
  options.interval = std::chrono::milliseconds(o.interval_ms);
  options.proc_root = o.proc_root;
  options.hostname = "bench-node";
  gpuwatch::Collector collector(options);
  if (std::string(collector.clock().domain()) != "scenario-lockstep") {
    throw std::runtime_error(std::string("expected the simulator's lockstep clock, got ") +
                             collector.clock().domain() + " (is " + o.nvml_library + " libnvml-sim?)");
  }
  const std::int64_t interval = options.effective_interval().count();

  // The first tick opens the NVML session and enumerates devices: a start-up cost, reported on its own.
  auto& clock = collector.clock();
  std::int64_t next = clock.now_ms();
  const auto startup_cpu_start = process_cpu_clock();
  collector.tick();
  const auto startup_cpu = process_cpu_clock() - startup_cpu_start;
  const auto first = collector.latest();
  if (!first->source_error.empty()) throw std::runtime_error("collector: " + first->source_error);
  std::size_t gpus = 0;
  std::size_t processes = 0;
  for (const auto& d : first->devices) {
    if (d.identity.is_mig_instance) continue;
    ++gpus;
    processes += d.processes.size();
  }
  if (gpus == 0) throw std::runtime_error("the simulator reported no GPU");

  const auto before = collector.stats();
  const auto cpu_start = process_cpu_clock();
  const auto rusage_start = rusage_cpu();
  const auto wall_start = std::chrono::steady_clock::now();
  for (std::uint64_t i = 0; i < o.ticks; ++i) {
    next += interval;
    clock.sleep_until_ms(next);  // lockstep: moves scenario time and returns at once
    collector.tick();
  }
  const auto wall = std::chrono::steady_clock::now() - wall_start;
  const auto cpu = process_cpu_clock() - cpu_start;
  const auto cpu_rusage = rusage_cpu() - rusage_start;
  const auto after = collector.stats();

  const auto reads = after.device_reads - before.device_reads;
  const double gpu_ticks = static_cast<double>(o.ticks) * static_cast<double>(gpus);
  const auto nvml = after.nvml_time - before.nvml_time;
  const auto collector_cpu = after.cpu_time - before.cpu_time;
  const auto per = [&](Nanos n) { return micros(n) / gpu_ticks; };

  nlohmann::json j;
  j["benchmark"] = "collect";
  j["scenario"] = o.scenario;
  j["clock"] = clock.domain();
  j["interval_ms"] = interval;
  j["ticks"] = o.ticks;
  j["scenario_seconds"] = static_cast<double>(o.ticks * interval) / 1000.0;
  j["gpus"] = gpus;
  j["processes"] = processes;
  j["device_reads"] = reads;
  j["missed_reads"] = static_cast<std::int64_t>(o.ticks * gpus) - static_cast<std::int64_t>(reads);
  j["wall_seconds"] = std::chrono::duration<double>(wall).count();
  j["startup_cpu_ms"] = micros(startup_cpu) / 1000.0;
  j["process_cpu_us_per_gpu_tick"] = per(cpu);
  j["rusage_cpu_us_per_gpu_tick"] = per(cpu_rusage);
  j["collector_cpu_us_per_gpu_tick"] = per(collector_cpu);
  j["nvml_us_per_gpu_tick"] = per(nvml);
  j["agent_us_per_gpu_tick"] = per(cpu) - per(nvml);
  j["agent_target_us_per_gpu_tick"] = 20;
  j["vm_rss_kib"] = status_kib("VmRSS");
  j["vm_hwm_kib"] = status_kib("VmHWM");
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"gpuwatch collection cost on libnvml-sim (lockstep)"};
  app.add_option("--nvml-library,--nvml-lib", o.nvml_library,
                 "libnvml-sim (<build>/sim-lib/libnvidia-ml.so.1)")
      ->required();
  app.add_option("--scenario,--sim-scenario", o.scenario, "scenario file")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--proc-root", o.proc_root, "the /proc tree to attribute processes from")
      ->check(CLI::ExistingDirectory);
  app.add_option("--ticks", o.ticks, "ticks to measure")->check(CLI::Range(1, 10'000'000));
  app.add_option("--interval-ms", o.interval_ms, "scenario time between ticks")
      ->check(CLI::Range(10, 3'600'000));
  CLI11_PARSE(app, argc, argv);
  try {
    std::cout << run(o).dump(2) << '\n';
  } catch (const std::exception& e) {
    std::cerr << "collect_bench: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
