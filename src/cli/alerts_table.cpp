#include "cli/alerts_table.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <tuple>
#include <vector>

#include "cli/text_table.h"

namespace gpuwatch {
namespace {

std::string label(const nlohmann::json& a, const char* name) {
  const auto labels = a.find("labels");
  if (labels == a.end() || !labels->is_object()) return "-";
  const auto v = labels->find(name);
  return v != labels->end() && v->is_string() ? v->get<std::string>() : "-";
}

std::string text(const nlohmann::json& a, const char* name) {
  const auto v = a.find(name);
  return v != a.end() && v->is_string() ? v->get<std::string>() : "";
}

// Pages first; then the GPU as a number ("3" before "12"; a MIG "1/2/0" by its GPU), node-wide last.
auto order_key(const nlohmann::json& a) {
  const std::string gpu = label(a, "gpu");
  unsigned index = std::numeric_limits<unsigned>::max();
  std::from_chars(gpu.data(), gpu.data() + gpu.size(), index);
  return std::make_tuple(label(a, "severity") == "page" ? 0 : 1, index, gpu, label(a, "alertname"));
}

}  // namespace

std::string render_alerts_table(const nlohmann::json& alerts) {
  std::vector<const nlohmann::json*> sorted;
  if (alerts.is_array()) {
    for (const auto& a : alerts)
      if (a.is_object()) sorted.push_back(&a);  // anything else is not an alert: left out
  }
  std::stable_sort(sorted.begin(), sorted.end(), [](const nlohmann::json* x, const nlohmann::json* y) {
    return order_key(*x) < order_key(*y);
  });
  TextTable table({"STATE", "SEVERITY", "ALERT", "GPU", "SINCE", "SUMMARY"});
  bool any_muted = false;
  for (const nlohmann::json* a : sorted) {
    std::string state = text(*a, "state");
    if (const auto muted = a->find("muted"); muted != a->end() && muted->is_boolean() && muted->get<bool>()) {
      state += "*";
      any_muted = true;
    }
    const auto annotations = a->find("annotations");
    std::string summary;
    if (annotations != a->end() && annotations->is_object()) summary = text(*annotations, "summary");
    table.add({state, label(*a, "severity"), label(*a, "alertname"), label(*a, "gpu"), text(*a, "activeAt"),
               summary});
  }
  std::string out = table.render(false);
  if (any_muted) out += "* muted by a silence or an inhibition\n";
  return out;
}

}  // namespace gpuwatch
