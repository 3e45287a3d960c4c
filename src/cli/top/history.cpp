#include "cli/top/history.h"

#include <cmath>
#include <limits>

#include "cli/gpu_readings.h"

namespace gpuwatch::top {
namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

double ratio(const std::optional<double>& value, const std::optional<double>& of) {
  if (!value || !of || *of <= 0) return kNone;
  return *value / *of;
}

void push(std::deque<double>& series, double v, std::size_t points) {
  series.push_back(v);
  while (series.size() > points) series.pop_front();
}

}  // namespace

void History::add(const TopFrame& frame) {
  if (!frame.snapshot || frame.snapshot->sequence == last_sequence_) return;
  last_sequence_ = frame.snapshot->sequence;
  if (frame.earlier) {
    for (const auto& [uuid, earlier] : *frame.earlier) {
      if (gpus_.count(uuid) != 0) continue;
      GpuHistory& h = gpus_[uuid];
      h = earlier;
      for (auto* series : {&h.utilization, &h.memory, &h.power, &h.temperature}) {
        while (series->size() > points_) series->pop_front();
      }
    }
  }
  for (const auto& d : frame.snapshot->devices) {
    // A stale GPU's values are its last read's: plotting them again would draw a flat line that never was.
    if (d.state != DeviceState::kOk) continue;
    const GpuReadings r = readings_of(d);
    GpuHistory& h = gpus_[d.identity.uuid];
    push(h.utilization, r.utilization.value_or(kNone), points_);
    push(h.memory, ratio(r.memory_used, r.memory_total), points_);
    push(h.power, ratio(r.power, r.power_limit), points_);
    push(h.temperature, r.temperature ? *r.temperature / 100.0 : kNone, points_);
  }
}

const GpuHistory& History::of(const std::string& uuid) const {
  const auto it = gpus_.find(uuid);
  return it == gpus_.end() ? none_ : it->second;
}

}  // namespace gpuwatch::top
