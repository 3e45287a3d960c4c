// What the user chose to see: the process table's order and filter, the help, the plots. Changed only by
// keys (keys.h), read by the renderer.
#pragma once

#include <string>

namespace gpuwatch::top {

enum class ProcessSort { kMemory, kSm, kPid, kUser, kGpu, kCommand };

// "GPU MEM", "SM", ...: the column header the sort is by.
const char* sort_column(ProcessSort sort);

struct ViewState {
  ProcessSort sort = ProcessSort::kMemory;
  bool descending = true;       // the largest first (the most recent pid, the last name, for text columns)
  std::string filter;           // processes whose user, command, workload or GPU holds it (any case)
  bool editing_filter = false;  // typing after "/": Enter applies, Esc drops
  std::string filter_draft;
  bool help = false;
  bool plots = true;
  bool quit = false;
};

}  // namespace gpuwatch::top
