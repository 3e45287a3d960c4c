#include "query/labels_util.h"

#include <algorithm>

namespace gpuwatch::query {

void drop_metric_name(store::Labels& labels) {
  std::erase_if(labels, [](const auto& l) { return l.first == kMetricName; });
}

store::Labels keep_labels(const store::Labels& labels, std::span<const std::string> names) {
  store::Labels out;
  for (const auto& l : labels) {
    if (std::find(names.begin(), names.end(), l.first) != names.end()) out.push_back(l);
  }
  return out;
}

store::Labels remove_labels(const store::Labels& labels, std::span<const std::string> names) {
  store::Labels out;
  for (const auto& l : labels) {
    if (l.first == kMetricName) continue;
    if (std::find(names.begin(), names.end(), l.first) == names.end()) out.push_back(l);
  }
  return out;
}

void set_label(store::Labels& labels, const std::string& name, const std::string& value) {
  auto it = std::lower_bound(labels.begin(), labels.end(), name,
                             [](const auto& l, const std::string& n) { return l.first < n; });
  if (it != labels.end() && it->first == name) {
    if (value.empty()) {
      labels.erase(it);
    } else {
      it->second = value;
    }
  } else if (!value.empty()) {
    labels.insert(it, {name, value});
  }
}

bool is_label_name(std::string_view name) {
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (name.empty() || !letter(name[0])) return false;
  return std::all_of(name.begin() + 1, name.end(),
                     [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

std::string labels_key(const store::Labels& labels) {
  std::string key;
  for (const auto& [name, value] : labels) {
    key += name;
    key += '\xff';
    key += value;
    key += '\xfe';
  }
  return key;
}

}  // namespace gpuwatch::query
