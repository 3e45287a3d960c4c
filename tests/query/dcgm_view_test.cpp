// The dcgm view over native history: dcgm-exporter's names, units and labels made at selection time from
// the native series and the identity families, as /metrics?naming=dcgm renders them; and the target labels
// (instance, job) a scraping Prometheus would add.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <map>
#include <memory>
#include <set>

#include "query/dcgm_series_source.h"
#include "query/engine.h"
#include "query/memory_series_source.h"
#include "query/target_labels_source.h"

namespace gpuwatch::query {
namespace {

using store::LabelMatcher;
using store::Labels;
using Op = LabelMatcher::Op;

constexpr double kStaleMarker = std::bit_cast<double>(std::uint64_t{0x7ff0000000000002ULL});

// Two H200s and a MIG instance on the second, sampled at 0, 1 and 2 s; the driver is upgraded at 2 s.
std::shared_ptr<MemorySeriesSource> node() {
  auto s = std::make_shared<MemorySeriesSource>();
  const Labels gpu0{{"gpu", "0"}, {"uuid", "GPU-a"}};
  const Labels gpu1{{"gpu", "1"}, {"uuid", "GPU-b"}};
  const Labels mig{{"gpu", "0"}, {"uuid", "MIG-c"}, {"gpu_instance_id", "1"}, {"compute_instance_id", "0"}};
  const auto with = [](Labels l, std::string name, Labels extra = {}) {
    l.emplace_back("__name__", std::move(name));
    for (auto& e : extra) l.push_back(std::move(e));
    return l;
  };
  for (std::int64_t t = 0; t <= 2000; t += 1000) {
    const double k = static_cast<double>(t / 1000);
    s->add(with(gpu0, "gpu_temperature_celsius"), t, 40.4 + k);
    s->add(with(gpu1, "gpu_temperature_celsius"), t, 60.6);
    s->add(with(mig, "gpu_memory_used_bytes"), t, 3 * 1048576.0);
    s->add(with(gpu0, "gpu_memory_used_bytes"), t, 1.6 * 1048576);
    s->add(with(gpu0, "gpu_clock_hertz", {{"clock", "sm"}}), t, 1980e6);
    s->add(with(gpu0, "gpu_clock_hertz", {{"clock", "memory"}}), t, 2619e6);
    s->add(with(gpu0, "gpu_utilization_ratio"), t, 0.874);
    s->add(with(gpu0, "gpu_nvlink_tx_bytes_total"), t, 100 * (k + 1));
    s->add(with(gpu0, "gpu_nvlink_rx_bytes_total"), t, 10 * (k + 1));
    s->add(with(gpu0, "gpu_info", {{"name", "NVIDIA H200"}, {"pci_bus_id", "0000:1b:00.0"}}), t, 1);
    s->add(with(gpu1, "gpu_info", {{"name", "NVIDIA H200"}, {"pci_bus_id", "0000:4c:00.0"}}), t, 1);
    s->add(with(mig, "gpu_info", {{"name", "NVIDIA H200 MIG 1g.18gb"}, {"pci_bus_id", "0000:4c:00.0"}}), t,
           1);
    s->add({{"__name__", "gpu_driver_info"},
            {"driver_version", t < 2000 ? "550.54.15" : "570.86.10"},
            {"nvml_version", "12.x"}},
           t, 1);
  }
  s->add(with(gpu0, "gpu_xid_errors_total", {{"xid", "79"}}), 1000, 1);
  return s;
}

DcgmSeriesSource view(std::string hostname_label = "Hostname") {
  DcgmViewOptions o;
  o.hostname_label = std::move(hostname_label);
  o.hostname = [] { return std::string("gpu-node-07"); };
  return DcgmSeriesSource(node(), o);
}

std::vector<store::SeriesPoints> select(const store::SeriesSource& s, std::vector<LabelMatcher> m,
                                        std::int64_t min_t = 0, std::int64_t max_t = 1000) {
  return s.select(m, min_t, max_t);
}

LabelMatcher name_is(std::string name) {
  return {"__name__", Op::kEqual, std::move(name)};
}

TEST(DcgmView, DcgmNamesAnswerFromNativeSeriesWithDcgmUnitsAndLabels) {
  const auto v = view();
  const auto temp = select(v, {name_is("DCGM_FI_DEV_GPU_TEMP"), {"gpu", Op::kEqual, "0"}}, 0, 1000);
  ASSERT_EQ(temp.size(), 1u);
  EXPECT_EQ(temp[0].labels, (Labels{{"DCGM_FI_DRIVER_VERSION", "550.54.15"},
                                    {"Hostname", "gpu-node-07"},
                                    {"UUID", "GPU-a"},
                                    {"__name__", "DCGM_FI_DEV_GPU_TEMP"},
                                    {"device", "nvidia0"},
                                    {"gpu", "0"},
                                    {"modelName", "NVIDIA H200"},
                                    {"pci_bus_id", "00000000:1B:00.0"}}));
  ASSERT_EQ(temp[0].points.size(), 2u);
  EXPECT_EQ(temp[0].points[0].value, 40);  // rounded, as dcgm reports an integer
  EXPECT_EQ(temp[0].points[1].value, 41);
  EXPECT_EQ(temp[0].points[1].t_ms, 1000);

  const auto clock = select(v, {name_is("DCGM_FI_DEV_SM_CLOCK")});
  ASSERT_EQ(clock.size(), 1u);
  EXPECT_EQ(clock[0].points[0].value, 1980);  // MHz, from clock="sm" only
  EXPECT_EQ(store::label_value(clock[0].labels, "clock"), "");
  EXPECT_EQ(select(v, {name_is("DCGM_FI_DEV_MEM_CLOCK")})[0].points[0].value, 2619);
  EXPECT_EQ(select(v, {name_is("DCGM_FI_DEV_GPU_UTIL")})[0].points[0].value, 87);  // %
  // tx + rx, at the times both were read.
  const auto nvlink = select(v, {name_is("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL")});
  ASSERT_EQ(nvlink.size(), 1u);
  EXPECT_EQ(nvlink[0].points.back().value, 220);
}

TEST(DcgmView, AMigInstanceCarriesItsGpusUuidAndInstanceId) {
  const auto fb = select(view(), {name_is("DCGM_FI_DEV_FB_USED"), {"GPU_I_ID", Op::kEqual, "1"}}, 0, 1000);
  ASSERT_EQ(fb.size(), 1u);
  EXPECT_EQ(store::label_value(fb[0].labels, "UUID"), "GPU-b");  // the parent, found by its bus id
  EXPECT_EQ(store::label_value(fb[0].labels, "modelName"), "NVIDIA H200 MIG 1g.18gb");
  EXPECT_EQ(store::label_value(fb[0].labels, "pci_bus_id"), "00000000:4C:00.0");
  EXPECT_EQ(fb[0].points[0].value, 3);  // MiB
}

TEST(DcgmView, ADriverUpgradeWithinTheRangeStartsANewSeries) {
  const auto temp = select(view(), {name_is("DCGM_FI_DEV_GPU_TEMP"), {"gpu", Op::kEqual, "1"}}, 0, 2000);
  ASSERT_EQ(temp.size(), 2u);
  EXPECT_EQ(store::label_value(temp[0].labels, "DCGM_FI_DRIVER_VERSION"), "550.54.15");
  EXPECT_EQ(temp[0].points.size(), 2u);
  EXPECT_EQ(store::label_value(temp[1].labels, "DCGM_FI_DRIVER_VERSION"), "570.86.10");
  ASSERT_EQ(temp[1].points.size(), 1u);
  EXPECT_EQ(temp[1].points[0].t_ms, 2000);
  // The label sets without the points: both identities the range saw.
  const std::vector<LabelMatcher> m{name_is("DCGM_FI_DEV_GPU_TEMP"), {"gpu", Op::kEqual, "1"}};
  EXPECT_EQ(view().series(m, 0, 2000).size(), 2u);
  EXPECT_EQ(view().series(m, 0, 1000).size(), 1u);
}

TEST(DcgmView, MatchersOnDcgmLabelsAndNamesByRegex) {
  const auto v = view();
  EXPECT_EQ(
      select(v, {name_is("DCGM_FI_DEV_GPU_TEMP"), {"modelName", Op::kEqual, "NVIDIA H200"}}, 0, 1000).size(),
      2u);
  EXPECT_EQ(select(v, {name_is("DCGM_FI_DEV_GPU_TEMP"), {"device", Op::kEqual, "nvidia1"}}, 0, 1000).size(),
            1u);
  EXPECT_TRUE(select(v, {name_is("DCGM_FI_DEV_GPU_TEMP"), {"uuid", Op::kEqual, "GPU-a"}}).empty());
  // A regex over names takes native and dcgm series alike.
  const auto temps = select(v, {{"__name__", Op::kRegexMatch, ".*TEMP.*|gpu_temperature_celsius"}}, 0, 1000);
  EXPECT_EQ(temps.size(), 4u);
  // Native selectors are untouched.
  const auto native = select(v, {name_is("gpu_temperature_celsius"), {"gpu", Op::kEqual, "0"}});
  ASSERT_EQ(native.size(), 1u);
  EXPECT_EQ(native[0].points[0].value, 40.4);
}

TEST(DcgmView, TheLastXidIsNotAnsweredFromHistory) {
  EXPECT_TRUE(select(view(), {name_is("DCGM_FI_DEV_XID_ERRORS")}, 0, 2000).empty());
  std::set<std::string> names;
  for (const auto& l : view().series(std::vector<LabelMatcher>{{"__name__", Op::kRegexMatch, ".+"}}, 0, 2000))
    names.insert(store::label_value(l, "__name__"));
  EXPECT_TRUE(names.contains("DCGM_FI_DEV_GPU_TEMP"));
  EXPECT_TRUE(names.contains("DCGM_FI_DEV_FB_USED"));
  EXPECT_TRUE(names.contains("gpu_temperature_celsius"));
  EXPECT_FALSE(names.contains("DCGM_FI_DEV_XID_ERRORS"));
  EXPECT_FALSE(names.contains("DCGM_FI_DEV_POWER_USAGE"));  // no gpu_power_watts in this history
}

TEST(DcgmView, HostnameLabelIsSpelledAsConfigured) {
  const auto temp = select(view("hostname"), {name_is("DCGM_FI_DEV_GPU_TEMP"), {"gpu", Op::kEqual, "0"}});
  ASSERT_EQ(temp.size(), 1u);
  EXPECT_EQ(store::label_value(temp[0].labels, "hostname"), "gpu-node-07");
  EXPECT_EQ(store::label_value(temp[0].labels, "Hostname"), "");
}

TEST(DcgmView, StaleMarkersPassThrough) {
  auto s = std::make_shared<MemorySeriesSource>();
  s->add({{"__name__", "gpu_temperature_celsius"}, {"gpu", "0"}, {"uuid", "GPU-a"}}, 0, 50.2);
  s->add({{"__name__", "gpu_temperature_celsius"}, {"gpu", "0"}, {"uuid", "GPU-a"}}, 1000, kStaleMarker);
  const DcgmSeriesSource v(s, {});
  const auto temp = select(v, {name_is("DCGM_FI_DEV_GPU_TEMP")});
  ASSERT_EQ(temp.size(), 1u);
  ASSERT_EQ(temp[0].points.size(), 2u);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(temp[0].points[1].value), 0x7ff0000000000002ULL);
  // The engine sees the series end there.
  EXPECT_TRUE(instant_query(v, "DCGM_FI_DEV_GPU_TEMP", 1500).value.vector.empty());
  EXPECT_EQ(instant_query(v, "DCGM_FI_DEV_GPU_TEMP", 500).value.vector.size(), 1u);
}

TEST(DcgmView, QueriesCombineDcgmAndNativeNames) {
  const auto v = view();
  const auto r =
      instant_query(v, "DCGM_FI_DEV_SM_CLOCK * 1000000 == on(gpu) gpu_clock_hertz{clock=\"sm\"}", 1000);
  EXPECT_EQ(r.value.vector.size(), 1u);
}

// The GPU's pod from the history's gpu_allocation_info at each point's time, as /metrics?naming=dcgm labels
// it then: GPU 0 is a pod's at 0 and 1 s and nobody's at 2 s; GPU 1 is time-sliced between two pods (no
// labels); the MIG instance is a pod's.
TEST(DcgmView, AGpusSeriesCarryThePodItWasAllocatedToThen) {
  auto history = node();
  const Labels trainer{{"__name__", "gpu_allocation_info"}, {"gpu", "0"},       {"uuid", "GPU-a"},
                       {"namespace", "research"},           {"pod", "train-0"}, {"container", "trainer"}};
  history->add(trainer, 0, 1);
  history->add(trainer, 1000, 1);
  history->add(trainer, 2000, kStaleMarker);  // the pod went: the history's staleness marker
  for (std::int64_t t = 0; t <= 2000; t += 1000) {
    for (const char* pod : {"nb-1", "nb-2"}) {
      history->add({{"__name__", "gpu_allocation_info"},
                    {"gpu", "1"},
                    {"uuid", "GPU-b"},
                    {"namespace", "vision"},
                    {"pod", pod},
                    {"container", "jupyter"}},
                   t, 1);
    }
    history->add({{"__name__", "gpu_allocation_info"},
                  {"gpu", "0"},
                  {"uuid", "MIG-c"},
                  {"gpu_instance_id", "1"},
                  {"compute_instance_id", "0"},
                  {"namespace", "vision"},
                  {"pod", "mig-pod"},
                  {"container", "c"}},
                 t, 1);
  }
  DcgmViewOptions o;
  o.hostname = [] { return std::string("gpu-node-07"); };
  const DcgmSeriesSource v(history, o);

  const auto temp = v.select(std::vector<LabelMatcher>{name_is("DCGM_FI_DEV_GPU_TEMP")}, 0, 2000);
  ASSERT_EQ(temp.size(),
            4u);  // GPU 0 with its pod (0, 1 s), GPU 0 without (2 s), GPU 1, the two driver versions
  std::map<std::pair<std::string, std::string>, std::vector<std::int64_t>> times;  // (gpu, pod) -> t
  for (const auto& s : temp) {
    EXPECT_EQ(store::label_value(s.labels, "namespace").empty(), store::label_value(s.labels, "pod").empty());
    for (const auto& p : s.points)
      times[{store::label_value(s.labels, "gpu"), store::label_value(s.labels, "pod")}].push_back(p.t_ms);
  }
  EXPECT_EQ(times[std::make_pair(std::string("0"), std::string("train-0"))],
            (std::vector<std::int64_t>{0, 1000}));
  EXPECT_EQ(times[std::make_pair(std::string("0"), std::string(""))], (std::vector<std::int64_t>{2000}));
  EXPECT_EQ(times[std::make_pair(std::string("1"), std::string(""))],
            (std::vector<std::int64_t>{0, 1000, 2000}));
  for (const auto& s : temp) {
    if (store::label_value(s.labels, "pod") == "train-0") {
      EXPECT_EQ(store::label_value(s.labels, "namespace"), "research");
      EXPECT_EQ(store::label_value(s.labels, "container"), "trainer");
    }
  }
  const auto fb = v.select(
      std::vector<LabelMatcher>{name_is("DCGM_FI_DEV_FB_USED"), {"GPU_I_ID", Op::kEqual, "1"}}, 0, 1000);
  ASSERT_EQ(fb.size(), 1u);
  EXPECT_EQ(store::label_value(fb[0].labels, "pod"), "mig-pod");
  // A selector on the pod label, and the series API: the same series.
  const auto train = v.select(
      std::vector<LabelMatcher>{name_is("DCGM_FI_DEV_GPU_UTIL"), {"pod", Op::kEqual, "train-0"}}, 0, 2000);
  ASSERT_EQ(train.size(), 1u);
  EXPECT_EQ(train[0].points.size(), 2u);
  const auto listed = v.series(std::vector<LabelMatcher>{name_is("DCGM_FI_DEV_GPU_TEMP")}, 0, 2000);
  EXPECT_EQ(listed.size(), temp.size());
}

TEST(TargetLabels, EverySeriesGetsTheTargetsLabelsUnlessItHasItsOwn) {
  auto s = std::make_shared<MemorySeriesSource>();
  s->add({{"__name__", "gpu_up"}, {"gpu", "0"}}, 0, 1);
  s->add({{"__name__", "gpu_up"}, {"gpu", "1"}, {"instance", "other:9400"}, {"job", "dcgm"}}, 0, 1);
  const TargetLabelsSource t(s, {{"job", "gpuwatch"}, {"instance", "node7:19400"}});
  const auto all = t.select(std::vector<LabelMatcher>{name_is("gpu_up")}, 0, 0);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].labels,
            (Labels{{"__name__", "gpu_up"}, {"gpu", "0"}, {"instance", "node7:19400"}, {"job", "gpuwatch"}}));
  EXPECT_EQ(store::label_value(all[1].labels, "instance"), "other:9400");

  const auto only = [&](std::vector<LabelMatcher> m) { return t.select(m, 0, 0); };
  EXPECT_EQ(only({{"instance", Op::kEqual, "node7:19400"}}).size(), 1u);
  EXPECT_EQ(only({name_is("gpu_up"), {"instance", Op::kRegexMatch, "node7:19400|other:9400"}}).size(), 2u);
  EXPECT_EQ(only({name_is("gpu_up"), {"instance", Op::kEqual, "other:9400"}}).size(), 1u);
  EXPECT_EQ(only({name_is("gpu_up"), {"job", Op::kNotEqual, "gpuwatch"}}).size(), 1u);
  EXPECT_TRUE(only({name_is("gpu_up"), {"instance", Op::kEqual, ""}}).empty());
  EXPECT_EQ(t.series(std::vector<LabelMatcher>{{"job", Op::kEqual, "gpuwatch"}}, 0, 0).size(), 1u);
}

}  // namespace
}  // namespace gpuwatch::query
