// The series vocabulary's helpers (series.h): label normalisation and rendering.
#include "core/series.h"

#include <algorithm>

#include "core/exposition_escaping.h"

namespace gpuwatch {

std::string normalize_labels(Labels& labels) {
  std::erase_if(labels, [](const auto& l) { return l.second.empty(); });
  std::sort(labels.begin(), labels.end());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i].first.empty()) return "empty label name";
    if (i > 0 && labels[i].first == labels[i - 1].first)
      return "duplicate label name \"" + labels[i].first + "\"";
  }
  return "";
}

const std::string& label_value(const Labels& labels, std::string_view name) {
  static const std::string kEmpty;
  for (const auto& [n, v] : labels) {
    if (n == name) return v;
  }
  return kEmpty;
}

std::string labels_to_string(const Labels& labels) {
  std::string out = label_value(labels, "__name__");
  out += '{';
  bool first = true;
  for (const auto& [n, v] : labels) {
    if (n == "__name__") continue;
    if (!first) out += ", ";
    first = false;
    out += n;
    out += "=\"";
    append_escaped_label_value(out, v);
    out += '"';
  }
  out += '}';
  return out;
}

}  // namespace gpuwatch
