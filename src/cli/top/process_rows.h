// The process table of `gpuwatch top`: every GPU process of the frame with who runs it and where (container,
// pod, Slurm job), filtered and sorted as the view says.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/top/frame.h"
#include "cli/top/view_state.h"

namespace gpuwatch::top {

struct ProcessRow {
  std::string gpu;         // as status names it: "3", or "0/1/0" for a MIG instance
  unsigned gpu_order = 0;  // the device's place in the snapshot, for sorting by GPU
  unsigned pid = 0;
  std::string user;  // "-" when unknown
  std::string type;  // "compute", "graphics"
  std::optional<double> memory_bytes;
  std::optional<double> sm;  // share of the GPU's SMs, 0..1
  std::string workload;      // "pod <uid>", "job <id>", "ctr <id>", or ""
  std::string command;       // the command line, else the process name
};

// A GPU by its index; a MIG instance as <its GPU's index>/<GPU instance>/<compute instance>, so that it reads
// as part of the GPU it is drawn under.
std::string device_label(const Snapshot& snapshot, const DeviceSnapshot& device);

// "pod 1b2c...", "job 4242", "ctr containerd://ab12..."; "" when the process runs in no workload.
std::string workload_text(const ProcessSample& p);

std::vector<ProcessRow> process_rows(const TopFrame& frame, const ViewState& view);

}  // namespace gpuwatch::top
