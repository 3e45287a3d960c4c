#include "sources/nvml/process_reader.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/file_io.h"
#include "core/utf8.h"

namespace gpuwatch {
namespace {

constexpr unsigned kInitialEntries = 16;
constexpr int kMaxAttempts = 3;
// comm holds at most 15 bytes on Linux; a fake or odd /proc gets a little more room, not unbounded.
constexpr std::size_t kMaxProcessNameBytes =
    256;  // the list may grow between the two calls; give up after that

unsigned with_headroom(unsigned count) {
  return count + count / 4 + 8;
}

}  // namespace

ProcessReader::ProcessReader(std::string proc_root, std::size_t process_info_size, bool read_utilization)
    : proc_root_(std::move(proc_root)), entry_size_(process_info_size), read_utilization_(read_utilization) {
  buffer_.resize(kInitialEntries * entry_size_ / sizeof(unsigned long long));
  utilization_buffer_.resize(kInitialEntries);
}

unsigned ProcessReader::read_list(NvmlSymbol sym, ListFn fn, nvmlDevice_t device, CallTracker& calls) {
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    unsigned count = static_cast<unsigned>(buffer_.size() * sizeof(unsigned long long) / entry_size_);
    auto* entries = reinterpret_cast<nvmlProcessInfo_t*>(buffer_.data());
    const auto outcome = calls.call(sym, CallTracker::kNoVariant, fn, device, &count, entries);
    if (outcome == CallOutcome::kOk) return count;
    if (outcome != CallOutcome::kInsufficientSize) return 0;
    buffer_.resize((with_headroom(count) * entry_size_ + sizeof(unsigned long long) - 1) /
                   sizeof(unsigned long long));
  }
  return 0;
}

void ProcessReader::add_entries(unsigned count, const char* type, std::vector<ProcessSample>& out) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(buffer_.data());
  for (unsigned i = 0; i < count; ++i) {
    // Fields at the offsets both the 24- and 32-byte layouts share.
    const unsigned char* entry = bytes + i * entry_size_;
    unsigned pid = 0;
    unsigned long long used = 0;
    unsigned gi = 0;
    unsigned ci = 0;
    std::memcpy(&pid, entry + offsetof(nvmlProcessInfo_t, pid), sizeof pid);
    std::memcpy(&used, entry + offsetof(nvmlProcessInfo_t, usedGpuMemory), sizeof used);
    std::memcpy(&gi, entry + offsetof(nvmlProcessInfo_t, gpuInstanceId), sizeof gi);
    std::memcpy(&ci, entry + offsetof(nvmlProcessInfo_t, computeInstanceId), sizeof ci);

    auto existing =
        std::find_if(out.begin(), out.end(), [pid](const ProcessSample& p) { return p.pid == pid; });
    if (existing != out.end()) {
      // The same process holds compute and graphics contexts; NVML reports its whole memory in both lists.
      existing->type = "compute,graphics";
      continue;
    }
    ProcessSample& p = out.emplace_back();
    p.pid = pid;
    p.type = type;
    if (used != NVML_VALUE_NOT_AVAILABLE_ULL) p.used_memory_bytes = static_cast<double>(used);
    if (gi != NVML_INVALID_INSTANCE_ID) p.gpu_instance_id = gi;
    if (ci != NVML_INVALID_INSTANCE_ID) p.compute_instance_id = ci;
  }
}

void ProcessReader::read_utilization(const NvmlFunctions& fn, nvmlDevice_t device, CallTracker& calls) {
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    unsigned count = static_cast<unsigned>(utilization_buffer_.size());
    const auto outcome = calls.call(NvmlSymbol::nvmlDeviceGetProcessUtilization, CallTracker::kNoVariant,
                                    fn.nvmlDeviceGetProcessUtilization, device, utilization_buffer_.data(),
                                    &count, last_seen_timestamp_);
    if (outcome == CallOutcome::kInsufficientSize) {
      utilization_buffer_.resize(with_headroom(count));
      continue;
    }
    if (outcome != CallOutcome::kOk) return;  // kNotFound: no sample newer than the last one seen
    for (unsigned i = 0; i < count && i < utilization_buffer_.size(); ++i) {
      const auto& s = utilization_buffer_[i];
      last_seen_timestamp_ = std::max(last_seen_timestamp_, s.timeStamp);
      auto it = std::find_if(utilization_.begin(), utilization_.end(),
                             [&](const Utilization& u) { return u.pid == s.pid; });
      if (it == utilization_.end()) {
        utilization_.push_back({s.pid, 0, 0, 0});
        it = utilization_.end() - 1;
      }
      if (s.timeStamp >= it->timestamp) {
        *it = {s.pid, s.timeStamp, s.smUtil / 100.0, s.memUtil / 100.0};
      }
    }
    return;
  }
}

const std::string& ProcessReader::name_of(unsigned pid) {
  for (const auto& n : names_) {
    if (n.pid == pid) return n.name;
  }
  std::string name;
  if (!proc_root_.empty()) {
    if (auto comm = read_file(proc_root_ + "/" + std::to_string(pid) + "/comm")) {
      name = std::move(*comm);
      name.resize(std::min(name.find('\n'), name.size()));
    }
  }
  // Any local user can name a process with any bytes; the name goes into labels and JSON.
  names_.push_back({pid, to_valid_utf8(name, kMaxProcessNameBytes)});
  return names_.back().name;
}

void ProcessReader::read(const NvmlFunctions& fn, nvmlDevice_t device, CallTracker& calls,
                         std::vector<ProcessSample>& out) {
  out.clear();
  out.reserve(names_.size());  // names_ holds one entry per process of the last read: usually the same list
  if (const unsigned n = read_list(NvmlSymbol::nvmlDeviceGetComputeRunningProcesses_v3,
                                   fn.nvmlDeviceGetComputeRunningProcesses_v3, device, calls)) {
    add_entries(n, "compute", out);
  }
  if (calls.lost()) return;
  if (const unsigned n = read_list(NvmlSymbol::nvmlDeviceGetGraphicsRunningProcesses_v3,
                                   fn.nvmlDeviceGetGraphicsRunningProcesses_v3, device, calls)) {
    add_entries(n, "graphics", out);
  }
  if (calls.lost()) return;
  if (read_utilization_) read_utilization(fn, device, calls);

  // Forget processes that are gone, so a reused pid gets its own name and no stale utilization.
  auto running = [&](unsigned pid) {
    return std::any_of(out.begin(), out.end(), [pid](const ProcessSample& p) { return p.pid == pid; });
  };
  std::erase_if(names_, [&](const Name& n) { return !running(n.pid); });
  std::erase_if(utilization_, [&](const Utilization& u) { return !running(u.pid); });

  for (auto& p : out) {
    p.name = name_of(p.pid);
    for (const auto& u : utilization_) {
      if (u.pid == p.pid) {
        p.sm_utilization = u.sm;
        p.memory_utilization = u.memory;
      }
    }
  }
}

}  // namespace gpuwatch
