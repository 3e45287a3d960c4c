// Every device- and process-scope metric, read through dlopen of libnvml-sim, compared with what the
// scenario says and with the simulator's own answer at the same scenario time.
#include "sources/nvml/device_reader.h"

#include <gtest/gtest.h>

#include <functional>
#include <regex>
#include <set>

#include "sim_support.h"
#include "sources/nvml/nvml_labels.h"
#include "sources/nvml/nvml_session.h"

namespace gpuwatch {
namespace {

constexpr const char* kScenario = R"(
node: {hostname: test-node, driver_version: 550.54.15, cuda_driver_version: "12.4", start: "2025-03-01T12:00:00Z"}
devices:
  - model: H200
    count: 2
    power_limit: 650W
    workload: {utilization: 50, memory: 4GiB}
processes:
  - {pid: 4242, gpu: 0, name: python3, cmdline: python3 train.py, memory: 10GiB, sm_util: 40}
  - {pid: 4343, gpu: 0, name: Xorg, type: graphics, memory: 1GiB, sm_util: 5}
)";

constexpr double kGiB = 1024.0 * 1024 * 1024;

const ProcessSample* find_process(const DeviceSnapshot& d, unsigned pid) {
  for (const auto& p : d.processes) {
    if (p.pid == pid) return &p;
  }
  return nullptr;
}

class DeviceReaderTest : public ::testing::Test {
 protected:
  test::SimScenario scenario_{kScenario};
  test::Sim sim_;
  test::TempDir proc_;
};

TEST_F(DeviceReaderTest, EveryMetricMatchesTheSimulatorAtTheSameScenarioTime) {
  sim_.write_proc_tree(proc_.path());
  sim_.advance_to(10);
  NvmlSession session(sim_.library(), proc_.path(), "");
  ASSERT_TRUE(session.ok()) << session.error();
  ASSERT_EQ(session.gpus().size(), 2U);
  auto& reader = session.gpus()[0]->gpu();
  DeviceSnapshot d;
  reader.read(sim_.ms_at(10), d);
  sim_.advance_to(11);  // GPM needs two samples more than 100 ms apart
  reader.read(sim_.ms_at(11), d);
  ASSERT_EQ(d.state, DeviceState::kOk);

  const auto& fn = sim_.fn();
  const nvmlDevice_t dev = sim_.gpu(0);
  auto expect = [&](Metric m, std::string_view l0, std::string_view l1, double want) {
    const Sample* s = d.find(m, l0, l1);
    ASSERT_NE(s, nullptr) << metric_def(m).name << "{" << l0 << "," << l1 << "} is missing";
    EXPECT_DOUBLE_EQ(s->value, want) << metric_def(m).name << "{" << l0 << "," << l1 << "}";
  };
  unsigned u = 0;
  unsigned long long ull = 0;

  // What the scenario itself says.
  expect(Metric::kMemoryTotal, {}, {}, 143771.0 * 1024 * 1024);  // a real H200: 143771 MiB
  expect(Metric::kPowerLimit, {}, {}, 650);
  expect(Metric::kUtilization, {}, {}, 0.5);
  expect(Metric::kTemperatureThreshold, "shutdown", {}, 92);
  expect(Metric::kTemperatureThreshold, "slowdown", {}, 89);
  expect(Metric::kTemperatureThreshold, "memory_max", {}, 95);
  expect(Metric::kTemperatureThreshold, "gpu_max", {}, 87);
  expect(Metric::kClockMax, "sm", {}, 1980e6);
  expect(Metric::kMigMode, {}, {}, 0);
  expect(Metric::kUp, {}, {}, 1);
  expect(Metric::kStale, {}, {}, 0);

  // What the simulator answers now, through its own functions.
  nvmlMemory_v2_t mem{};
  mem.version = nvmlMemory_v2;
  ASSERT_EQ(fn.nvmlDeviceGetMemoryInfo_v2(dev, &mem), NVML_SUCCESS);
  expect(Metric::kMemoryUsed, {}, {}, static_cast<double>(mem.used));
  expect(Metric::kMemoryFree, {}, {}, static_cast<double>(mem.free));
  expect(Metric::kMemoryReserved, {}, {}, static_cast<double>(mem.reserved));
  ASSERT_EQ(fn.nvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &u), NVML_SUCCESS);
  expect(Metric::kTemperature, {}, {}, u);
  nvmlFieldValue_t fields[3] = {};
  fields[0].fieldId = NVML_FI_DEV_MEMORY_TEMP;
  fields[1].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
  fields[1].scopeId = NVML_FIELD_SCOPE_ALL;
  fields[2].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX;
  fields[2].scopeId = NVML_FIELD_SCOPE_ALL;
  ASSERT_EQ(fn.nvmlDeviceGetFieldValues(dev, 3, fields), NVML_SUCCESS);
  expect(Metric::kMemoryTemperature, {}, {}, field_value_as_double(fields[0]));
  expect(Metric::kNvlinkTx, {}, {}, field_value_as_double(fields[1]) * 1024);
  expect(Metric::kNvlinkRx, {}, {}, field_value_as_double(fields[2]) * 1024);
  ASSERT_EQ(fn.nvmlDeviceGetPowerUsage(dev, &u), NVML_SUCCESS);
  expect(Metric::kPower, {}, {}, u / 1000.0);
  ASSERT_EQ(fn.nvmlDeviceGetTotalEnergyConsumption(dev, &ull), NVML_SUCCESS);
  expect(Metric::kEnergy, {}, {}, static_cast<double>(ull) / 1000.0);
  for (unsigned c = 0; c < nvml_labels::kClock.size(); ++c) {
    ASSERT_EQ(fn.nvmlDeviceGetClockInfo(dev, c, &u), NVML_SUCCESS);
    expect(Metric::kClock, nvml_labels::kClock[c], {}, u * 1e6);
    ASSERT_EQ(fn.nvmlDeviceGetMaxClockInfo(dev, c, &u), NVML_SUCCESS);
    expect(Metric::kClockMax, nvml_labels::kClock[c], {}, u * 1e6);
  }
  ASSERT_EQ(fn.nvmlDeviceGetCurrentClocksEventReasons(dev, &ull), NVML_SUCCESS);
  for (const auto& r : nvml_labels::kClockEventReasons) {
    expect(Metric::kClockEventActive, r.label, {}, (ull & r.bit) != 0 ? 1 : 0);
  }
  for (unsigned p = 0; p < 2; ++p) {
    nvmlViolationTime_t v{};
    ASSERT_EQ(fn.nvmlDeviceGetViolationStatus(dev, p, &v), NVML_SUCCESS);
    expect(Metric::kViolation, nvml_labels::kPolicy[p], {}, static_cast<double>(v.violationTime) * 1e-9);
  }
  int pstate = 0;
  ASSERT_EQ(fn.nvmlDeviceGetPerformanceState(dev, &pstate), NVML_SUCCESS);
  expect(Metric::kPerformanceState, {}, {}, pstate);
  ASSERT_EQ(fn.nvmlDeviceGetPcieThroughput(dev, NVML_PCIE_UTIL_TX_BYTES, &u), NVML_SUCCESS);
  expect(Metric::kPcieTx, {}, {}, u * 1024.0);
  ASSERT_EQ(fn.nvmlDeviceGetPcieThroughput(dev, NVML_PCIE_UTIL_RX_BYTES, &u), NVML_SUCCESS);
  expect(Metric::kPcieRx, {}, {}, u * 1024.0);
  ASSERT_EQ(fn.nvmlDeviceGetPcieReplayCounter(dev, &u), NVML_SUCCESS);
  expect(Metric::kPcieReplays, {}, {}, u);
  expect(Metric::kPcieLinkGeneration, {}, {}, 5);
  expect(Metric::kPcieLinkWidth, {}, {}, 16);
  expect(Metric::kPcieLinkMaxGeneration, {}, {}, 5);
  expect(Metric::kPcieLinkMaxWidth, {}, {}, 16);
  for (unsigned type = 0; type < 2; ++type) {
    for (unsigned counter = 0; counter < 2; ++counter) {
      ASSERT_EQ(fn.nvmlDeviceGetTotalEccErrors(dev, type, counter, &ull), NVML_SUCCESS);
      expect(Metric::kEccErrors, nvml_labels::kEccType[type], nvml_labels::kEccCounter[counter],
             static_cast<double>(ull));
    }
  }
  unsigned corr = 0, unc = 0, pending = 0, failure = 0;
  ASSERT_EQ(fn.nvmlDeviceGetRemappedRows(dev, &corr, &unc, &pending, &failure), NVML_SUCCESS);
  expect(Metric::kRemappedRows, "correctable", {}, corr);
  expect(Metric::kRemappedRows, "uncorrectable", {}, unc);
  expect(Metric::kRemappedRowsPending, {}, {}, pending);
  expect(Metric::kRemappedRowsFailure, {}, {}, failure);
  nvmlUtilization_t util{};
  ASSERT_EQ(fn.nvmlDeviceGetUtilizationRates(dev, &util), NVML_SUCCESS);
  expect(Metric::kMemoryUtilization, {}, {}, util.memory / 100.0);
  unsigned period = 0;
  ASSERT_EQ(fn.nvmlDeviceGetEncoderUtilization(dev, &u, &period), NVML_SUCCESS);
  expect(Metric::kEncoderUtilization, {}, {}, u / 100.0);
  ASSERT_EQ(fn.nvmlDeviceGetDecoderUtilization(dev, &u, &period), NVML_SUCCESS);
  expect(Metric::kDecoderUtilization, {}, {}, u / 100.0);
  for (unsigned link = 0; link < 18; ++link) {
    ASSERT_EQ(fn.nvmlDeviceGetNvLinkState(dev, link, &u), NVML_SUCCESS);
    expect(Metric::kNvlinkUp, nvml_labels::kLink[link], {}, u);
  }
  for (const char* type : {"crc_flit", "crc_data", "replay", "recovery"}) {
    ASSERT_NE(d.find(Metric::kNvlinkErrors, type), nullptr) << type;
  }
  for (Metric m : {Metric::kSmActive, Metric::kSmOccupancy, Metric::kGraphicsActive, Metric::kTensorActive,
                   Metric::kDramActive}) {
    const Sample* s = d.find(m);
    ASSERT_NE(s, nullptr) << metric_def(m).name;
    EXPECT_GE(s->value, 0.0);
    EXPECT_LE(s->value, 1.0);
  }

  // Processes: memory from the scenario, names from the /proc tree, utilization from the samples.
  const ProcessSample* train = find_process(d, 4242);
  ASSERT_NE(train, nullptr);
  EXPECT_EQ(train->name, "python3");
  EXPECT_EQ(train->type, "compute");
  EXPECT_EQ(train->used_memory_bytes, 10 * kGiB);
  EXPECT_EQ(train->sm_utilization, 0.4);
  ASSERT_TRUE(train->memory_utilization.has_value());
  EXPECT_FALSE(train->gpu_instance_id.has_value());
  const ProcessSample* xorg = find_process(d, 4343);
  ASSERT_NE(xorg, nullptr);
  EXPECT_EQ(xorg->name, "Xorg");
  EXPECT_EQ(xorg->type, "graphics");
  EXPECT_EQ(xorg->used_memory_bytes, 1 * kGiB);
  EXPECT_EQ(xorg->sm_utilization, 0.05);
}

TEST_F(DeviceReaderTest, EveryCatalogueMetricOfDeviceAndProcessScopeIsRead) {
  sim_.advance_to(5);
  NvmlSession session(sim_.library(), proc_.path(), "");
  ASSERT_TRUE(session.ok()) << session.error();
  auto& reader = session.gpus()[0]->gpu();
  DeviceSnapshot d;
  reader.read(sim_.ms_at(5), d);
  sim_.advance_to(6);
  reader.read(sim_.ms_at(6), d);

  // The H200 has no fan and remaps rows instead of retiring pages, as the real card; XIDs and critical
  // events are counted by the collector's event thread, and AER counters come from sysfs (the host reader),
  // not from the NVML reader.
  const std::set<Metric> not_on_h200 = {Metric::kFanSpeed, Metric::kRetiredPages,
                                        Metric::kRetiredPagesPending};
  const std::set<Metric> from_elsewhere = {Metric::kXidErrors, Metric::kCriticalEvents,
                                           Metric::kPcieAerErrors};
  for (const auto& def : kMetricCatalogue) {
    if (from_elsewhere.contains(def.id)) continue;
    if (def.scope == MetricScope::kDevice) {
      const bool present = d.find(def.id) != nullptr;
      EXPECT_EQ(present, !not_on_h200.contains(def.id)) << def.name;
    } else if (def.scope == MetricScope::kProcess) {
      const ProcessSample* p = find_process(d, 4242);
      ASSERT_NE(p, nullptr);
      const bool present = def.id == Metric::kProcessMemoryUsed      ? p->used_memory_bytes.has_value()
                           : def.id == Metric::kProcessSmUtilization ? p->sm_utilization.has_value()
                                                                     : p->memory_utilization.has_value();
      EXPECT_TRUE(present) << def.name;
    }
  }
  EXPECT_NE(std::find(d.unsupported.begin(), d.unsupported.end(), "nvmlDeviceGetFanSpeed"),
            d.unsupported.end());
}

TEST_F(DeviceReaderTest, IdentityAndNodeInfo) {
  NvmlSession session(sim_.library(), proc_.path(), "override-host");
  ASSERT_TRUE(session.ok()) << session.error();
  DeviceSnapshot d0;
  DeviceSnapshot d1;
  session.gpus()[0]->gpu().read(sim_.ms_at(0), d0);
  session.gpus()[1]->gpu().read(sim_.ms_at(0), d1);
  const auto& id = session.gpus()[1]->gpu().identity();
  EXPECT_EQ(d1.identity.uuid, id.uuid);
  EXPECT_EQ(id.index, 1U);
  EXPECT_EQ(id.name, "NVIDIA H200");
  EXPECT_TRUE(id.uuid.starts_with("GPU-")) << id.uuid;
  EXPECT_NE(id.uuid, d0.identity.uuid);
  EXPECT_TRUE(std::regex_match(id.pci_bus_id, std::regex("[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]")))
      << id.pci_bus_id;
  EXPECT_EQ(id.vbios_version, "96.00.AF.00.01");
  EXPECT_FALSE(id.serial.empty());
  EXPECT_FALSE(id.is_mig_instance);
  EXPECT_EQ(session.node().hostname, "override-host");
  EXPECT_EQ(session.node().driver_version, "550.54.15");
  EXPECT_EQ(session.node().cuda_driver_version, "12.4");
  EXPECT_EQ(session.node().nvml_library, test::sim_library_path());
  char direct[96] = {};
  ASSERT_EQ(sim_.fn().nvmlDeviceGetUUID(sim_.gpu(1), direct, sizeof direct), NVML_SUCCESS);
  EXPECT_EQ(id.uuid, direct);
}

TEST_F(DeviceReaderTest, NotSupportedCallsAreRecordedOnceAndNeverMadeAgain) {
  NvmlSession session(sim_.library(), proc_.path(), "");
  auto& reader = session.gpus()[0]->gpu();
  DeviceSnapshot d;
  for (int second = 0; second < 3; ++second) {
    sim_.advance_to(second);
    reader.read(sim_.ms_at(second), d);
  }
  EXPECT_EQ(reader.calls().call_count(NvmlSymbol::nvmlDeviceGetFanSpeed), 1U);
  EXPECT_EQ(std::count(d.unsupported.begin(), d.unsupported.end(), "nvmlDeviceGetFanSpeed"), 1);
  EXPECT_EQ(d.find(Metric::kFanSpeed), nullptr);
  // Supported calls go on being made every tick.
  EXPECT_EQ(reader.calls().call_count(NvmlSymbol::nvmlDeviceGetTemperature), 3U);
}

TEST_F(DeviceReaderTest, EachGroupIsReadOnItsScheduleAndKeepsItsValueBetweenReads) {
  NvmlSession session(sim_.library(), proc_.path(), "");
  auto& reader = session.gpus()[0]->gpu();
  auto& calls = reader.calls();
  DeviceSnapshot d;
  auto read_at = [&](double seconds) {
    sim_.advance_to(seconds);
    reader.read(sim_.ms_at(seconds), d);
  };
  read_at(1.0);
  EXPECT_EQ(calls.call_count(NvmlSymbol::nvmlDeviceGetPowerUsage), 1U);
  EXPECT_EQ(calls.call_count(NvmlSymbol::nvmlDeviceGetUtilizationRates), 1U);
  EXPECT_EQ(calls.call_count(NvmlSymbol::nvmlDeviceGetTemperatureThreshold), 4U);
  EXPECT_EQ(calls.call_count(NvmlSymbol::nvmlDeviceGetPcieThroughput), 2U);
  const double power_at_1s = d.find(Metric::kPower)->value;

  read_at(1.1);  // power (1 s) and utilization (1/6 s) are not due; PCIe throughput is read every tick
  EXPECT_EQ(calls.call_count(NvmlSymbol::nvmlDeviceGetPowerUsage), 1U);
  EXPECT_EQ(calls.call_count(NvmlSymbol::nvmlDeviceGetUtilizationRates), 1U);
  EXPECT_EQ(calls.call_count(NvmlSymbol::nvmlDeviceGetPcieThroughput), 4U);
  ASSERT_NE(d.find(Metric::kPower), nullptr) << "a value not due keeps its last value";
  EXPECT_EQ(d.find(Metric::kPower)->value, power_at_1s);
  // ... and the time it was read, so history does not store it again as a new sample.
  EXPECT_EQ(d.find(Metric::kPower)->read_ms, sim_.ms_at(1.0));
  ASSERT_NE(d.find(Metric::kPcieRx), nullptr);
  EXPECT_EQ(d.find(Metric::kPcieRx)->read_ms, sim_.ms_at(1.1));
  ASSERT_NE(d.find(Metric::kUtilization), nullptr);

  read_at(1.2);
  EXPECT_EQ(calls.call_count(NvmlSymbol::nvmlDeviceGetUtilizationRates), 2U);
  read_at(2.0);
  EXPECT_EQ(calls.call_count(NvmlSymbol::nvmlDeviceGetPowerUsage), 2U);
  EXPECT_EQ(calls.call_count(NvmlSymbol::nvmlDeviceGetTemperatureThreshold), 4U);
  read_at(31.0);
  EXPECT_EQ(calls.call_count(NvmlSymbol::nvmlDeviceGetTemperatureThreshold), 8U);
  ASSERT_NE(d.find(Metric::kTemperatureThreshold, "shutdown"), nullptr);
}

// Strings from the library and from /proc can hold any bytes (a scenario here, a driver or a local user in
// production); what the readers keep is valid UTF-8, so labels and JSON can rely on it.
TEST(OutsideText, HostnameAndProcessNamesAreMadeValid) {
  test::SimScenario scenario(
      "node: {hostname: \"node\xff\xfe\", driver_version: 550.54.15}\n"
      "devices:\n  - model: H200\n"
      "processes:\n  - {pid: 77, gpu: 0, name: \"py\xff\xfethon\", memory: 1GiB}\n");
  test::Sim sim;
  test::TempDir proc;
  sim.write_proc_tree(proc.path());
  NvmlSession session(sim.library(), proc.path(), "");
  ASSERT_TRUE(session.ok()) << session.error();
  EXPECT_EQ(session.node().hostname, "node\xEF\xBF\xBD\xEF\xBF\xBD");
  DeviceSnapshot d;
  session.gpus()[0]->gpu().read(sim.ms_at(0), d);
  const ProcessSample* p = find_process(d, 77);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->name, "py\xEF\xBF\xBD\xEF\xBF\xBDthon");
}

}  // namespace
}  // namespace gpuwatch
