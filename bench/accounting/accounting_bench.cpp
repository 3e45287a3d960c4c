// What naming workloads and accounting cost per tick at 8 GPUs and 1,000 processes (docs/benchmarks.md):
// the collector's add_workload_names (kubelet allocations, cgroup jobs, job mapping onto every GPU and
// process) and the accounting sink's work (the ledger's charge and its counter families), on a snapshot as
// the collector publishes it. And the cost report over 30 days of the ledger's counters at one sample a
// minute (what the store keeps after downsampling), from memory: the store's decoding is not in it (the
// `gpuwatch report --data-dir` figure of bench/cost_report.sh has it).
#include <benchmark/benchmark.h>

#include "accounting/cost_report.h"
#include "accounting/ledger.h"
#include "collector/workload_names.h"
#include "query/memory_series_source.h"

namespace gpuwatch {
namespace {

constexpr unsigned kGpus = 8;
constexpr unsigned kProcesses = 1000;

struct Node {
  Snapshot snapshot;
  HostSnapshot host;
};

Node make_node() {
  Node n;
  auto pods = std::make_shared<kubelet::PodResourcesReading>();
  auto workloads = std::make_shared<std::map<unsigned, procfs::Workload>>();
  for (unsigned g = 0; g < kGpus; ++g) {
    DeviceSnapshot d;
    d.identity.index = g;
    d.identity.uuid = "GPU-0000000" + std::to_string(g);
    d.identity.name = "NVIDIA H200";
    d.samples.push_back(Sample(Metric::kUtilization, g % 2 ? 0.8 : 0.01));
    d.samples.push_back(Sample(Metric::kEnergy, 1e9));
    // Half the GPUs in pods, the other half running batch jobs' processes.
    if (g < kGpus / 2)
      pods->allocations.push_back({"nvidia.com/gpu", d.identity.uuid, "team-" + std::to_string(g % 3),
                                   "pod-" + std::to_string(g), "worker"});
    for (unsigned i = 0; i < kProcesses / kGpus; ++i) {
      ProcessSample p;
      p.pid = 100000 + g * 1000 + i;
      p.name = "python3";
      p.user = "user" + std::to_string(i % 16);
      p.used_memory_bytes = 1e9;
      p.sm_utilization = 0.1;
      d.processes.push_back(p);
      if (g >= kGpus / 2) (*workloads)[p.pid] = {"", "", std::to_string(4000 + i % 8), ""};
    }
    n.snapshot.devices.push_back(std::move(d));
  }
  n.host.pod_resources = pods;
  n.host.workloads = workloads;
  return n;
}

accounting::LedgerOptions ledger_options() {
  accounting::LedgerOptions o;
  o.settings.gpu_hour_prices = {{"H200", 4.0}};
  o.settings.energy_price_per_kwh = 0.15;
  o.settings.teams = {{"a", "namespace", "team-0"}, {"b", "namespace", "team-1"}, {"c", "user", "user3"}};
  return o;
}

void BM_WorkloadNames(benchmark::State& state) {
  Node n = make_node();
  for (auto _ : state) {
    add_workload_names(n.host, n.snapshot);
    benchmark::DoNotOptimize(n.snapshot.devices.data());
  }
}
BENCHMARK(BM_WorkloadNames);

void BM_AccountingTick(benchmark::State& state) {
  Node n = make_node();
  add_workload_names(n.host, n.snapshot);
  accounting::Ledger ledger(ledger_options());
  std::int64_t t = 0;
  for (auto _ : state) {
    n.snapshot.timestamp_ms = t += 1000;
    ledger.add(n.snapshot);
    auto families = ledger.families();
    benchmark::DoNotOptimize(families.data());
  }
  state.counters["workloads"] = static_cast<double>(ledger.workloads().size());
}
BENCHMARK(BM_AccountingTick);

// 30 days of counters, a sample a minute, as the history keeps them.
const query::MemorySeriesSource& thirty_days() {
  static const query::MemorySeriesSource history = [] {
    query::MemorySeriesSource h;
    Node n = make_node();
    add_workload_names(n.host, n.snapshot);
    accounting::Ledger ledger(ledger_options());
    for (std::int64_t minute = 0; minute <= 30LL * 24 * 60; ++minute) {
      const std::int64_t t = minute * 60'000;
      n.snapshot.timestamp_ms = t;
      ledger.add(n.snapshot);
      for (const auto& f : ledger.families()) {
        for (const auto& s : f.series) {
          Labels labels{{"__name__", std::string(f.name)}};
          for (const auto& [k, v] : s.labels) labels.emplace_back(std::string(k), v);
          h.add(labels, t, s.value);
        }
      }
      for (const auto& d : n.snapshot.devices)
        h.add({{"__name__", "gpu_utilization_ratio"},
               {"gpu", std::to_string(d.identity.index)},
               {"uuid", d.identity.uuid}},
              t, d.samples[0].value);
    }
    return h;
  }();
  return history;
}

void BM_CostReport30Days(benchmark::State& state) {
  const auto& history = thirty_days();
  const std::int64_t end = 30LL * 86'400'000;
  for (auto _ : state) {
    auto report = accounting::build_cost_report(history, 0, end);
    benchmark::DoNotOptimize(report.gpus.data());
  }
}
BENCHMARK(BM_CostReport30Days)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpuwatch

BENCHMARK_MAIN();
