#include "alerting/builtin_runbooks.h"

#include <algorithm>

namespace gpuwatch::alerting {

std::optional<std::string_view> builtin_runbook(std::string_view alertname) {
  const auto all = builtin_runbooks();
  const auto it =
      std::lower_bound(all.begin(), all.end(), alertname,
                       [](const BuiltinRunbook& r, std::string_view name) { return r.alertname < name; });
  if (it == all.end() || it->alertname != alertname) return std::nullopt;
  return it->markdown;
}

}  // namespace gpuwatch::alerting
