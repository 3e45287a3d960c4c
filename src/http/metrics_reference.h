// docs/metrics.md, generated from the tables that drive the renderers (metric catalogue, dcgm mapping, JSON
// schema) so the reference cannot drift from what /metrics serves. A test compares the committed file.
#pragma once

#include <string>

namespace gpuwatch {

std::string metrics_reference_markdown();

}  // namespace gpuwatch
