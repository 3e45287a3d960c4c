// The ledger: each interval charged to the state the snapshot before it saw, split between a GPU's
// workloads, priced by model, bounded; and the cost report's counter increases over a window.
#include <gtest/gtest.h>

#include "accounting/cost_report.h"
#include "accounting/cost_report_json.h"
#include "accounting/ledger.h"
#include "query/memory_series_source.h"

namespace gpuwatch::accounting {
namespace {

constexpr std::size_t kActive = 0, kIdleHeld = 1, kUnallocated = 2, kUnavailable = 3;

DeviceSnapshot gpu(unsigned index, double utilization) {
  DeviceSnapshot d;
  d.identity.index = index;
  d.identity.uuid = "GPU-" + std::to_string(index);
  d.identity.name = "NVIDIA H200";
  d.samples.push_back(Sample(Metric::kUtilization, utilization));
  return d;
}

ProcessSample process(unsigned pid, std::string user) {
  ProcessSample p;
  p.pid = pid;
  p.user = std::move(user);
  p.used_memory_bytes = 1e9;
  return p;
}

// The collector's next snapshot (its sequence one more than the last one's).
Snapshot at(std::int64_t t_ms, std::vector<DeviceSnapshot> devices) {
  static std::uint64_t sequence = 0;
  Snapshot s;
  s.sequence = ++sequence;
  s.timestamp_ms = t_ms;
  s.devices = std::move(devices);
  return s;
}

LedgerOptions options() {
  LedgerOptions o;
  o.settings.gpu_hour_prices = {{"H200", 4.0}, {"*", 1.0}};
  o.settings.teams = {{"research", "namespace", "research"}, {"physics", "user", "carol"}};
  return o;
}

TEST(GpuState, ClassifiesByUtilizationHoldersAndReadability) {
  auto d = gpu(0, 0.5);
  EXPECT_EQ(classify(d, 0.05), GpuState::kActive);
  d = gpu(0, 0.01);
  EXPECT_EQ(classify(d, 0.05), GpuState::kUnallocated);
  d.holders.push_back({"research", "eval", "eval", ""});
  EXPECT_EQ(classify(d, 0.05), GpuState::kIdleHeld);
  d.holders.clear();
  d.processes.push_back(process(1, "bob"));
  EXPECT_EQ(classify(d, 0.05), GpuState::kIdleHeld);
  d.state = DeviceState::kLost;
  EXPECT_EQ(classify(d, 0.05), GpuState::kUnavailable);
}

TEST(Ledger, ChargesEachIntervalToTheStateBeforeIt) {
  Ledger ledger(options());
  auto held = gpu(0, 0.9);
  held.holders.push_back({"research", "train-0", "trainer", ""});
  auto idle = gpu(0, 0.0);
  idle.holders = held.holders;
  // Active at 0 and 60 s, idle from 120 s: 120 s active, 60 s idle-held by 180 s.
  ledger.add(at(0, {held}));
  ledger.add(at(60'000, {held}));
  ledger.add(at(120'000, {idle}));
  ledger.add(at(180'000, {idle}));
  const auto& g = ledger.gpus().at("GPU-0");
  EXPECT_EQ(g.totals[kActive].seconds, 120);
  EXPECT_EQ(g.totals[kIdleHeld].seconds, 60);
  EXPECT_DOUBLE_EQ(g.totals[kActive].cost, 120.0 / 3600 * 4);
  ASSERT_EQ(ledger.workloads().size(), 1u);
  const auto& [w, t] = *ledger.workloads().begin();
  EXPECT_EQ(w.pod, "train-0");
  EXPECT_EQ(w.team, "research");
  EXPECT_EQ(t.active.seconds, 120);
  EXPECT_EQ(t.idle_held.seconds, 60);
}

TEST(Ledger, SplitsASharedGpuAndSkipsLongGaps) {
  Ledger ledger(options());
  auto shared = gpu(1, 0.5);
  shared.processes = {process(1, "alice"), process(2, "carol")};
  ledger.add(at(0, {shared, gpu(2, 0), gpu(3, 0)}));
  auto lost = gpu(3, 0);
  lost.state = DeviceState::kLost;
  ledger.add(at(60'000, {shared, gpu(2, 0), lost}));
  ledger.add(at(120'000, {shared, gpu(2, 0), lost}));
  ledger.add(at(120'000 + 6 * 60'000, {shared, gpu(2, 0), lost}));  // a 6-minute gap: not charged
  EXPECT_EQ(ledger.gpus().at("GPU-1").totals[kActive].seconds, 120);
  EXPECT_EQ(ledger.gpus().at("GPU-2").totals[kUnallocated].seconds, 120);
  EXPECT_EQ(ledger.gpus().at("GPU-3").totals[kUnallocated].seconds, 60);
  EXPECT_EQ(ledger.gpus().at("GPU-3").totals[kUnavailable].seconds, 60);
  ASSERT_EQ(ledger.workloads().size(), 2u);
  for (const auto& [w, t] : ledger.workloads()) {
    EXPECT_EQ(t.active.seconds, 60) << w.user;
    EXPECT_EQ(w.team, w.user == "carol" ? "physics" : "");
  }
}

TEST(Ledger, TeamsBySlurmAccount) {
  auto o = options();
  o.settings.teams.insert(o.settings.teams.begin(), {"hpc", "slurm_account", "physics"});
  Ledger ledger(o);
  auto d = gpu(0, 0.5);
  auto job = process(1, "dave");
  job.slurm_job = "77";
  job.slurm_account = "physics";
  auto unread = process(2, "dave");  // the same job, its environment not readable: the job keeps its account
  unread.slurm_job = "77";
  auto other = process(3, "erin");
  other.slurm_job = "78";
  other.slurm_account = "chemistry";
  d.processes = {unread, job, other};
  ledger.add(at(0, {d}));
  ledger.add(at(60'000, {d}));
  ASSERT_EQ(ledger.workloads().size(), 2u);
  for (const auto& [w, t] : ledger.workloads()) {
    EXPECT_EQ(w.team, w.slurm_job == "77" ? "hpc" : "") << w.slurm_job;
    EXPECT_EQ(t.active.seconds, 30) << w.slurm_job;
  }
}

TEST(Ledger, ChargesMaintenanceAsUnavailable) {
  auto o = options();
  // GPU-1 is in maintenance from minute 1 to minute 3, whatever it reads.
  o.in_maintenance = [](const DeviceIdentity& id, std::int64_t now_ms) {
    return id.uuid == "GPU-1" && now_ms >= 60'000 && now_ms < 180'000;
  };
  Ledger ledger(o);
  auto busy = gpu(1, 0.9);
  busy.processes = {process(1, "alice")};
  for (std::int64_t t = 0; t <= 240'000; t += 60'000) ledger.add(at(t, {busy, gpu(2, 0.9)}));
  const auto& g1 = ledger.gpus().at("GPU-1").totals;
  EXPECT_EQ(g1[kActive].seconds, 120);
  EXPECT_EQ(g1[kUnavailable].seconds, 120);
  EXPECT_EQ(g1[kUnavailable].cost, 120 / 3600.0 * 4.0);
  EXPECT_EQ(ledger.gpus().at("GPU-2").totals[kActive].seconds, 240);
  // Maintenance time is nobody's: alice is charged only the active minutes.
  ASSERT_EQ(ledger.workloads().size(), 1u);
  EXPECT_EQ(ledger.workloads().begin()->second.active.seconds, 120);
}

TEST(Ledger, ChargesTheTimeOfSnapshotsItsQueueDropped) {
  Ledger ledger(options());
  ledger.add(at(0, {gpu(0, 0.5)}));
  Snapshot later = at(10 * 60'000, {gpu(0, 0.5)});
  later.sequence += 9;  // nine snapshots between them never reached the sink
  ledger.add(later);
  EXPECT_EQ(ledger.gpus().at("GPU-0").totals[kActive].seconds, 600);
}

TEST(Ledger, BoundsItsWorkloadsAndForgetsTheGone) {
  auto o = options();
  o.max_workloads = 2;
  o.workload_expiry = std::chrono::minutes(10);
  Ledger ledger(o);
  auto d = gpu(0, 0.5);
  d.processes = {process(1, "a"), process(2, "b"), process(3, "c")};
  ledger.add(at(0, {d}));
  ledger.add(at(60'000, {d}));
  ASSERT_EQ(ledger.workloads().size(), 3u);  // two, and "other"
  bool other = false;
  for (const auto& [w, t] : ledger.workloads()) other = other || w.pod == "other";
  EXPECT_TRUE(other);
  ledger.add(at(120'000, {gpu(0, 0)}));
  ledger.add(at(120'000 + 11 * 60'000, {gpu(0, 0)}));
  EXPECT_TRUE(ledger.workloads().empty());
}

TEST(Ledger, AMigGpuIsAccountedByItsInstancesAtAShareOfItsPrice) {
  Ledger ledger(options());
  auto parent = gpu(0, 0);
  parent.identity.name = "NVIDIA H200";
  DeviceSnapshot a, b;
  for (auto* inst : {&a, &b}) {
    inst->identity.is_mig_instance = true;
    inst->identity.parent_uuid = parent.identity.uuid;
    inst->identity.name = "NVIDIA H200 MIG 3g.71gb";
  }
  a.identity.uuid = "MIG-a";
  a.identity.gpu_instance_id = 1;
  b.identity.uuid = "MIG-b";
  b.identity.gpu_instance_id = 2;
  a.processes.push_back(process(1, "x"));
  a.processes.back().sm_utilization = 0.8;
  ledger.add(at(0, {parent, a, b}));
  ledger.add(at(3'600'000 / 60, {parent, a, b}));
  EXPECT_FALSE(ledger.gpus().contains(parent.identity.uuid));
  EXPECT_EQ(ledger.gpus().at("MIG-a").totals[kActive].seconds, 60);
  EXPECT_EQ(ledger.gpus().at("MIG-b").totals[kUnallocated].seconds, 60);
  EXPECT_DOUBLE_EQ(ledger.gpus().at("MIG-a").totals[kActive].cost, 60.0 / 3600 * 2);
}

TEST(Ledger, PricesMeasuredEnergy) {
  auto o = options();
  o.settings.energy_price_per_kwh = 0.5;
  Ledger ledger(o);
  auto d0 = gpu(0, 0.5);
  d0.samples.push_back(Sample(Metric::kEnergy, 1e6));
  auto d1 = gpu(0, 0.5);
  d1.samples.push_back(Sample(Metric::kEnergy, 1e6 + 3.6e6));  // one kWh in the minute
  ledger.add(at(0, {d0}));
  ledger.add(at(60'000, {d1}));
  EXPECT_DOUBLE_EQ(ledger.gpus().at("GPU-0").totals[kActive].cost, 60.0 / 3600 * 4 + 0.5);
}

TEST(AccountingSettings, PricesByModelThenTheNode) {
  AccountingSettings s;
  s.gpu_hour_prices = {{"*", 1.0}, {"H200", 4.0}, {"A100", 2.0}};
  EXPECT_EQ(s.price_of("NVIDIA H200"), 4.0);
  EXPECT_EQ(s.price_of("NVIDIA A100-SXM4-80GB"), 1.0);  // "A100" is not its last word
  EXPECT_EQ(s.price_of("A100"), 2.0);
  EXPECT_EQ(s.price_of("NVIDIA L4"), 1.0);
}

TEST(CostReport, CounterIncreaseOverAWindow) {
  const std::vector<Point> points = {{0, 0}, {60, 60}, {120, 120}, {180, 30}, {240, 90}};
  EXPECT_EQ(counter_increase(points, 0, 240), 60 + 60 + 30 + 60);  // a reset at 180 counts from 0
  EXPECT_EQ(counter_increase(points, 60, 120), 60);
  EXPECT_EQ(counter_increase(points, 90, 240), 60 + 30 + 60);  // from the value before the window
  // Born in the window: from 0.
  EXPECT_EQ(counter_increase(std::vector<Point>{{100, 5}, {160, 65}}, 0, 200), 65);
}

// What the history would hold: the ledger's families after each snapshot, at its time.
void record(query::MemorySeriesSource& history, const Ledger& ledger, std::int64_t t) {
  for (const auto& family : ledger.families()) {
    for (const auto& series : family.series) {
      Labels labels{{"__name__", std::string(family.name)}};
      for (const auto& [name, value] : series.labels) labels.emplace_back(std::string(name), value);
      history.add(labels, t, series.value);
    }
  }
}

TEST(CostReport, IsTheLedgersIncreaseOverTheWindowBesideOpenCosts) {
  Ledger ledger(options());
  query::MemorySeriesSource history;
  auto held = gpu(0, 0.9);
  held.holders.push_back({"research", "train-0", "trainer", ""});
  auto idle = held;
  idle.samples = {Sample(Metric::kUtilization, 0.0)};
  for (int minute = 0; minute <= 120; ++minute) {
    const std::int64_t t = minute * 60'000LL;
    ledger.add(at(t, {minute < 90 ? held : idle, gpu(1, 0)}));
    record(history, ledger, t);
  }
  const auto r = build_cost_report(history, 0, 120 * 60'000LL);
  EXPECT_DOUBLE_EQ(r.node.hours[kActive], 1.5);
  EXPECT_DOUBLE_EQ(r.node.hours[kIdleHeld], 0.5);
  EXPECT_DOUBLE_EQ(r.node.hours[kUnallocated], 2.0);
  EXPECT_NEAR(r.node.cost[kActive], 6.0, 1e-9);
  EXPECT_NEAR(r.node.cost[kUnallocated], 8.0, 1e-9);
  EXPECT_DOUBLE_EQ(r.opencost.allocated_hours, 2.0);
  EXPECT_NEAR(r.opencost.allocated_cost, 8.0, 1e-9);
  EXPECT_DOUBLE_EQ(r.opencost.idle_hours, 2.0);
  ASSERT_EQ(r.teams.size(), 1u);
  EXPECT_EQ(r.teams[0].name, "research");
  EXPECT_NEAR(r.teams[0].idle_held_cost, 2.0, 1e-9);
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].name(), "research/train-0/trainer");
  // A later window: only what was charged in it.
  const auto late = build_cost_report(history, 60 * 60'000LL, 120 * 60'000LL);
  EXPECT_DOUBLE_EQ(late.node.hours[kActive], 0.5);
  EXPECT_DOUBLE_EQ(late.node.hours[kIdleHeld], 0.5);
}

// Per namespace: the pods of a namespace together, whatever their teams; a job has no namespace.
TEST(CostReport, SumsThePodsOfEachNamespace) {
  Ledger ledger(options());
  query::MemorySeriesSource history;
  auto train = gpu(0, 0.9);
  train.holders.push_back({"research", "train-0", "trainer", ""});
  auto eval = gpu(1, 0.0);
  eval.holders.push_back({"research", "eval-0", "eval", ""});
  auto notebook = gpu(2, 0.0);
  notebook.holders.push_back({"vision", "nb", "jupyter", ""});
  auto job = gpu(3, 0.0);
  job.holders.push_back({"", "", "", "4242"});
  for (int minute = 0; minute <= 60; ++minute) {
    const std::int64_t t = minute * 60'000LL;
    ledger.add(at(t, {train, eval, notebook, job}));
    record(history, ledger, t);
  }
  const auto r = build_cost_report(history, 0, 60 * 60'000LL);
  ASSERT_EQ(r.namespaces.size(), 2u);
  EXPECT_EQ(r.namespaces[0].name, "research");  // idle-held cost 4 each: a tie keeps the names in order
  EXPECT_DOUBLE_EQ(r.namespaces[0].active_hours, 1.0);
  EXPECT_DOUBLE_EQ(r.namespaces[0].idle_held_hours, 1.0);
  EXPECT_NEAR(r.namespaces[0].active_cost + r.namespaces[0].idle_held_cost, 8.0, 1e-9);
  EXPECT_EQ(r.namespaces[1].name, "vision");
  EXPECT_DOUBLE_EQ(r.namespaces[1].idle_held_hours, 1.0);
  // The JSON carries them, and reads them back.
  const auto back = cost_report_from_json(to_json(r));
  ASSERT_EQ(back.namespaces.size(), 2u);
  EXPECT_EQ(back.namespaces[1].name, "vision");
  EXPECT_DOUBLE_EQ(back.namespaces[0].idle_held_hours, 1.0);
  EXPECT_EQ(to_json(r)["namespaces"][0]["namespace"], "research");
}

}  // namespace
}  // namespace gpuwatch::accounting
