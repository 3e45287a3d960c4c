// How often each group of NVML reads is made. A quantity is read no more often than it can change or than
// the driver refreshes it; between reads its last value is carried into every new snapshot.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace gpuwatch {

enum class ReadGroup : std::uint8_t {
  kIdentity,  // name, UUID, serial, bus id, VBIOS, NVLink presence: once per (re)initialisation
  kSlow,      // thresholds, max clocks, max PCIe link, MIG mode, aggregate ECC, retired pages, remapped rows,
              // NVLink fabric state
  kPower,     // power (the driver's own 1 s average), limit, energy, instantaneous power, NVLink link state
  kUtilization,  // utilization rates (sample period 1/6 s .. 1 s), encoder and decoder utilization
  kEveryTick,    // memory, temperatures, clocks, clock events, PCIe throughput (20 ms window), counters, GPM
  kProcesses,    // running processes and their utilization samples
};

struct ReadGroupSchedule {
  ReadGroup group;
  std::string_view name;
  std::int64_t min_interval_ms;  // 0: every tick; kOnce: only after (re)initialisation
};

inline constexpr std::int64_t kOnce = -1;

inline constexpr std::array kReadSchedule = {
    ReadGroupSchedule{ReadGroup::kIdentity, "identity", kOnce},
    ReadGroupSchedule{ReadGroup::kSlow, "slow", 30'000},
    ReadGroupSchedule{ReadGroup::kPower, "power", 1'000},
    ReadGroupSchedule{ReadGroup::kUtilization, "utilization", 167},
    ReadGroupSchedule{ReadGroup::kEveryTick, "every_tick", 0},
    ReadGroupSchedule{ReadGroup::kProcesses, "processes", 0},
};
inline constexpr std::size_t kReadGroupCount = kReadSchedule.size();

// Ticks are scheduled on exact multiples of the interval, but a late tick must not skip a due read.
inline constexpr std::int64_t kScheduleSlackMs = 5;

// True when `group`, last read at last_ms (or never: has_read false), is due at now_ms.
constexpr bool read_due(ReadGroup group, bool has_read, std::int64_t last_ms, std::int64_t now_ms) {
  const auto min_interval = kReadSchedule[static_cast<std::size_t>(group)].min_interval_ms;
  if (!has_read) return true;
  if (min_interval == kOnce) return false;
  return now_ms - last_ms + kScheduleSlackMs >= min_interval;
}

}  // namespace gpuwatch
