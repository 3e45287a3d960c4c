#include "cli/top/agent_history.h"

#include <cmath>
#include <deque>
#include <limits>

namespace gpuwatch::top {
namespace {

std::deque<double>& series_of(GpuHistory& h, std::size_t which) {
  switch (which) {
    case 0:
      return h.utilization;
    case 1:
      return h.memory;
    case 2:
      return h.power;
    default:
      return h.temperature;
  }
}

}  // namespace

std::map<std::string, GpuHistory> history_from_agent(const std::array<nlohmann::json, 4>& answers,
                                                     double start, double step, std::size_t points) {
  std::map<std::string, GpuHistory> out;
  if (step <= 0) return out;
  for (std::size_t which = 0; which < answers.size(); ++which) {
    const nlohmann::json& a = answers[which];
    if (!a.is_object() || a.value("status", "") != "success") continue;
    for (const auto& s : a["data"]["result"]) {
      const auto uuid = s["metric"].find("uuid");
      if (uuid == s["metric"].end() || !uuid->is_string()) continue;
      std::deque<double>& series = series_of(out[uuid->get<std::string>()], which);
      series.assign(points, std::numeric_limits<double>::quiet_NaN());
      for (const auto& v : s["values"]) {
        const double at = std::round((v[0].get<double>() - start) / step);
        if (at < 0 || at >= static_cast<double>(points)) continue;
        series[static_cast<std::size_t>(at)] = std::stod(v[1].get<std::string>());
      }
    }
  }
  return out;
}

}  // namespace gpuwatch::top
