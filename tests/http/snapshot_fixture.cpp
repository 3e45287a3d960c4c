#include "snapshot_fixture.h"

#include <string>

namespace gpuwatch::testing {
namespace {

void add(DeviceSnapshot& d, Metric m, double v, std::string l0 = {}, std::string l1 = {}) {
  d.samples.push_back(Sample{m, v, {std::move(l0), std::move(l1), ""}});
}

}  // namespace

DeviceSnapshot full_h200(unsigned index) {
  DeviceSnapshot d;
  const double i = index;
  d.identity.index = index;
  d.identity.uuid = "GPU-5f8b2c1e-0000-4a6b-9c3d-00000000000" + std::to_string(index);
  d.identity.name = "NVIDIA H200";
  d.identity.serial = "165432100000" + std::to_string(index);
  d.identity.pci_bus_id = "0000:" + std::string(index % 2 ? "4c" : "1b") + ":00." + std::to_string(index / 2);
  d.identity.vbios_version = "96.00.99.00.01";
  d.last_read_ms = 1'764'400'000'000;
  add(d, Metric::kUtilization, 0.87 - 0.1 * i);
  add(d, Metric::kMemoryUtilization, 0.42);
  add(d, Metric::kMemoryTotal, 150754820096);
  add(d, Metric::kMemoryUsed, 96636764160 + 1048576 * i);
  add(d, Metric::kMemoryFree, 150754820096 - 96636764160 - 1048576 * i - 566231040);
  add(d, Metric::kMemoryReserved, 566231040);
  add(d, Metric::kTemperature, 54 + i);
  add(d, Metric::kMemoryTemperature, 61);
  add(d, Metric::kTemperatureThreshold, 92, "shutdown");
  add(d, Metric::kTemperatureThreshold, 89, "slowdown");
  add(d, Metric::kTemperatureThreshold, 87, "gpu_max");
  add(d, Metric::kTemperatureThreshold, 95, "memory_max");
  add(d, Metric::kPower, 512.25 + i);
  add(d, Metric::kPowerInstant, 530.5);
  add(d, Metric::kPowerLimit, 700);
  add(d, Metric::kEnergy, 123456.789 * (i + 1));
  for (const char* clock : {"graphics", "sm", "memory", "video"}) {
    const bool mem = std::string(clock) == "memory";
    add(d, Metric::kClock, mem ? 3.2e9 : 1.98e9, clock);
    add(d, Metric::kClockMax, mem ? 3.2e9 : 1.98e9, clock);
  }
  for (const char* reason :
       {"gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown", "sync_boost",
        "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "display_clock_setting"}) {
    add(d, Metric::kClockEventActive, std::string(reason) == "sw_power_cap" ? 1 : 0, reason);
  }
  add(d, Metric::kViolation, 12.5, "power");
  add(d, Metric::kViolation, 0, "thermal");
  add(d, Metric::kPerformanceState, 0);
  add(d, Metric::kPcieTx, 1.2e9);
  add(d, Metric::kPcieRx, 3.4e9);
  add(d, Metric::kPcieReplays, 0);
  add(d, Metric::kPcieLinkGeneration, 5);
  add(d, Metric::kPcieLinkWidth, 16);
  add(d, Metric::kPcieLinkMaxGeneration, 5);
  add(d, Metric::kPcieLinkMaxWidth, 16);
  for (const char* type : {"corrected", "uncorrected"}) {
    for (const char* counter : {"volatile", "aggregate"}) {
      add(d, Metric::kEccErrors, std::string(type) == "corrected" ? 3 : 0, type, counter);
    }
  }
  add(d, Metric::kRemappedRows, 2, "correctable");
  add(d, Metric::kRemappedRows, 0, "uncorrectable");
  add(d, Metric::kRemappedRowsPending, 0);
  add(d, Metric::kRemappedRowsFailure, 0);
  add(d, Metric::kEncoderUtilization, 0);
  add(d, Metric::kDecoderUtilization, 0.05);
  for (int link = 0; link < 18; ++link) add(d, Metric::kNvlinkUp, 1, std::to_string(link));
  add(d, Metric::kNvlinkTx, 9.87654321e12);
  add(d, Metric::kNvlinkRx, 1.23456789e12);
  for (const char* type : {"crc_flit", "crc_data", "replay", "recovery"})
    add(d, Metric::kNvlinkErrors, 0, type);
  add(d, Metric::kMigMode, 0);
  add(d, Metric::kSmActive, 0.81);
  add(d, Metric::kSmOccupancy, 0.35);
  add(d, Metric::kGraphicsActive, 0.86);
  add(d, Metric::kTensorActive, 0.44);
  add(d, Metric::kDramActive, 0.38);
  add(d, Metric::kCriticalEvents, 0, "double_bit_ecc");
  // H200 SXM modules have no fan of their own, and retired pages are pre-Ampere.
  d.unsupported = {"nvmlDeviceGetFanSpeed_v2", "nvmlDeviceGetRetiredPages"};
  return d;
}

Snapshot h200_node(std::uint64_t sequence) {
  Snapshot s;
  s.sequence = sequence;
  s.timestamp_ms = 1'764'400'000'000;
  s.node = {"gpu-node-07", "550.54.15", "12.550.54.15", "12.4", "libnvidia-ml.so.1"};
  for (unsigned i = 0; i < 4; ++i) s.devices.push_back(full_h200(i));

  auto& gpu0 = s.devices[0];
  gpu0.processes.push_back({4242, "python3", "compute", 85899345920.0, 0.8, 0.4, std::nullopt, std::nullopt,
                            1000, "alice", "python3 train.py --config configs/llama-70b.yaml --epochs 3", "",
                            "", "", "", "", "", ""});
  // A uid the passwd file does not name shows as the number; a command line not read is "".
  gpu0.processes.push_back({4343, "we\"ird\\name\nx", "graphics", 1073741824.0, std::nullopt, std::nullopt,
                            std::nullopt, std::nullopt, 1001, "1001", "", "", "", "", "", "", "", ""});
  auto& gpu1 = s.devices[1];
  gpu1.xid_counts = {{31, 2}, {79, 1}};
  gpu1.last_xid = 79;
  s.devices[2].state = DeviceState::kStale;
  s.devices[3].state = DeviceState::kLost;

  s.collector_errors[{s.devices[2].identity.uuid, "nvmlDeviceGetTemperature", 15}] = 3;
  s.collector_errors[{"", "nvmlSystemGetDriverVersion", 999}] = 1;
  s.collection_seconds = 0.0123;
  s.ticks = 42;
  return s;
}

}  // namespace gpuwatch::testing
