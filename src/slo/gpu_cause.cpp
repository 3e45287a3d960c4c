#include "slo/gpu_cause.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>

#include "core/rfc3339.h"

namespace gpuwatch::slo {
namespace {

constexpr std::int64_t kAfterSlackMs = 60'000;  // a cause seen up to a minute late still counts as before

std::string label(const alerting::Alert& a, const std::string& name) {
  const auto it = a.labels.find(name);
  return it == a.labels.end() ? "" : it->second;
}

}  // namespace

std::vector<GpuCause> rank_gpu_causes(const std::set<std::string>& gpus,
                                      std::span<const alerting::Alert> alerts, std::int64_t burn_began_ms) {
  struct Ranked {
    GpuCause cause;
    bool later = false;
    std::int64_t distance = 0;
    bool ticket = false;
    bool measured = false;
  };
  std::vector<Ranked> ranked;
  for (const auto& a : alerts) {
    if (a.labels.count("slo") > 0) continue;
    if (!a.active() && a.resolved_at_ms < burn_began_ms) continue;  // over before the burn began
    const std::string gpu = label(a, "gpu");
    if (gpu.empty() || gpus.count(gpu) == 0) continue;
    Ranked r;
    r.cause = {gpu, label(a, "uuid"), a.alertname(), a.active_at_ms,
               a.annotations.count("description") ? a.annotations.at("description") : ""};
    r.later = a.active_at_ms > burn_began_ms + kAfterSlackMs;
    r.distance = std::llabs(a.active_at_ms - burn_began_ms);
    r.ticket = label(a, "severity") != "page";
    r.measured = label(a, "measured") == "true";
    r.cause.is_measured = r.measured;
    ranked.push_back(std::move(r));
  }
  std::sort(ranked.begin(), ranked.end(), [](const Ranked& x, const Ranked& y) {
    return std::tie(x.later, x.distance, x.ticket, x.measured, x.cause.gpu, x.cause.alertname) <
           std::tie(y.later, y.distance, y.ticket, y.measured, y.cause.gpu, y.cause.alertname);
  });
  std::vector<GpuCause> out;
  for (auto& r : ranked) out.push_back(std::move(r.cause));
  return out;
}

std::string describe_causes(const std::vector<GpuCause>& causes) {
  if (causes.empty()) return "no GPU cause found";
  std::string out;
  for (const auto& c : causes) {
    if (!out.empty()) out += "; ";
    out += "gpu=\"" + c.gpu + "\"";
    if (!c.uuid.empty()) out += " uuid=" + c.uuid;
    out += " " + c.alertname + " since " + format_rfc3339_ms(c.began_ms);
    if (!c.measured.empty()) out += ": " + c.measured;
  }
  return out;
}

}  // namespace gpuwatch::slo
