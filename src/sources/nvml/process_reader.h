// The processes running on one GPU: the compute and graphics lists (memory used), per-process utilization
// samples, and each process's name from <proc_root>/<pid>/comm (none with proc_root ""). Buffers are kept
// between ticks so a steady process list costs no allocation.
#pragma once

#include <string>
#include <vector>

#include "core/snapshot.h"
#include "sources/nvml/call_tracker.h"

namespace gpuwatch {

class ProcessReader {
 public:
  // process_info_size: NvmlLibrary::process_info_size(). read_utilization is false for MIG instances, which
  // NVML gives no per-process utilization for.
  ProcessReader(std::string proc_root, std::size_t process_info_size, bool read_utilization);

  // Replaces `out` with the processes running now.
  void read(const NvmlFunctions& fn, nvmlDevice_t device, CallTracker& calls,
            std::vector<ProcessSample>& out);

 private:
  using ListFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned*, nvmlProcessInfo_t*);
  // The INSUFFICIENT_SIZE dance: try the current buffer, grow with headroom when NVML asks for more.
  // Returns the number of entries in buffer_, or 0 on failure.
  unsigned read_list(NvmlSymbol sym, ListFn fn, nvmlDevice_t device, CallTracker& calls);
  void add_entries(unsigned count, const char* type, std::vector<ProcessSample>& out);
  void read_utilization(const NvmlFunctions& fn, nvmlDevice_t device, CallTracker& calls);
  const std::string& name_of(unsigned pid);

  struct Utilization {
    unsigned pid;
    unsigned long long timestamp;
    double sm;
    double memory;
  };
  struct Name {
    unsigned pid;
    std::string name;
  };

  std::string proc_root_;
  std::size_t entry_size_;
  bool read_utilization_;
  std::vector<unsigned long long> buffer_;  // entries of entry_size_ bytes; ull keeps them aligned
  std::vector<nvmlProcessUtilizationSample_t> utilization_buffer_;
  unsigned long long last_seen_timestamp_ = 0;
  std::vector<Utilization> utilization_;  // latest sample per pid
  std::vector<Name> names_;               // comm per pid, read once per process
};

}  // namespace gpuwatch
