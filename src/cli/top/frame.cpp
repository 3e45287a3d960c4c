#include "cli/top/frame.h"

#include <algorithm>
#include <tuple>

namespace gpuwatch::top {

void sort_alerts(std::vector<TopAlert>& alerts) {
  std::stable_sort(alerts.begin(), alerts.end(), [](const TopAlert& a, const TopAlert& b) {
    return std::make_tuple(a.state != "firing", a.severity != "page", a.active_since_ms) <
           std::make_tuple(b.state != "firing", b.severity != "page", b.active_since_ms);
  });
}

}  // namespace gpuwatch::top
