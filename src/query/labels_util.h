// Label-set helpers the evaluator needs on its hot paths: dropping __name__, keeping or removing names,
// hashing a label set, and a key that identifies the labels two series are matched or grouped on.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/series.h"

namespace gpuwatch::query {

inline constexpr std::string_view kMetricName = "__name__";

void drop_metric_name(store::Labels& labels);
// Keeps only the named labels (on(...), by(...)).
store::Labels keep_labels(const store::Labels& labels, std::span<const std::string> names);
// Removes the named labels and __name__ (ignoring(...), without(...)).
store::Labels remove_labels(const store::Labels& labels, std::span<const std::string> names);
// Sets (or with an empty value, removes) one label, keeping the order.
void set_label(store::Labels& labels, const std::string& name, const std::string& value);
// Prometheus's label name syntax: [a-zA-Z_][a-zA-Z0-9_]*.
bool is_label_name(std::string_view name);
// A byte string equal for two label sets exactly when they are equal.
std::string labels_key(const store::Labels& labels);

}  // namespace gpuwatch::query
