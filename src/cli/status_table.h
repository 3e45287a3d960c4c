// The human view of one snapshot for `gpuwatch status`: a table of GPUs, then their processes.
#pragma once

#include <string>

#include "core/snapshot.h"

namespace gpuwatch {

struct StatusTableStyle {
  bool colour = false;  // ANSI colours (on a terminal, unless NO_COLOR is set)
};

std::string render_status_table(const Snapshot& snapshot, const StatusTableStyle& style);

}  // namespace gpuwatch
