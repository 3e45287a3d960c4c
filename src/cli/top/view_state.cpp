#include "cli/top/view_state.h"

namespace gpuwatch::top {

const char* sort_column(ProcessSort sort) {
  switch (sort) {
    case ProcessSort::kMemory:
      return "GPU MEM";
    case ProcessSort::kSm:
      return "SM";
    case ProcessSort::kPid:
      return "PID";
    case ProcessSort::kUser:
      return "USER";
    case ProcessSort::kGpu:
      return "GPU";
    case ProcessSort::kCommand:
      return "COMMAND";
  }
  return "";
}

}  // namespace gpuwatch::top
