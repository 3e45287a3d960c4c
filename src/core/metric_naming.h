// Which names /metrics uses: gpuwatch's own (Prometheus conventions) or dcgm-exporter's, so dashboards and
// alerts written for dcgm-exporter keep working.
#pragma once

namespace gpuwatch {

enum class MetricNaming { kNative, kDcgm };

}  // namespace gpuwatch
