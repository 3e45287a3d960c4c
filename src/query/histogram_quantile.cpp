#include "query/histogram_quantile.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "query/labels_util.h"

namespace gpuwatch::query {
namespace {

struct Bucket {
  double upper;
  double count;
};

double bucket_quantile(double q, std::vector<Bucket>& buckets) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (std::isnan(q)) return NAN;
  if (q < 0) return -kInf;
  if (q > 1) return kInf;
  std::sort(buckets.begin(), buckets.end(),
            [](const Bucket& a, const Bucket& b) { return a.upper < b.upper; });
  if (buckets.empty() || !(std::isinf(buckets.back().upper) && buckets.back().upper > 0)) return NAN;
  // Coalesce buckets with the same bound (series that differ in other labels).
  std::vector<Bucket> merged;
  for (const Bucket& b : buckets) {
    if (!merged.empty() && merged.back().upper == b.upper) {
      merged.back().count += b.count;
    } else {
      merged.push_back(b);
    }
  }
  // Counts must not decrease with the bound; scrapes of a histogram are not atomic.
  double max = -kInf;
  for (Bucket& b : merged) {
    if (b.count > max) {
      max = b.count;
    } else if (b.count < max) {
      b.count = max;
    }
  }
  if (merged.size() < 2) return NAN;
  const double observations = merged.back().count;
  if (observations == 0) return NAN;
  double rank = q * observations;
  std::size_t b = 0;
  while (b < merged.size() - 1 && !(merged[b].count >= rank)) ++b;
  if (b == merged.size() - 1) return merged[merged.size() - 2].upper;
  if (b == 0 && merged[0].upper <= 0) return merged[0].upper;
  double start = 0;
  const double end = merged[b].upper;
  double count = merged[b].count;
  if (b > 0) {
    start = merged[b - 1].upper;
    count -= merged[b - 1].count;
    rank -= merged[b - 1].count;
  }
  return start + (end - start) * (rank / count);
}

}  // namespace

Value histogram_quantile(const std::vector<double>& q, const Value& buckets, std::size_t steps) {
  struct Group {
    store::Labels labels;
    std::vector<std::pair<double, const StepSeries*>> members;  // (le, series)
  };
  std::map<store::Labels, Group> groups;
  for (const auto& s : buckets.vector) {
    const auto le =
        std::find_if(s.labels.begin(), s.labels.end(), [](const auto& l) { return l.first == "le"; });
    if (le == s.labels.end()) continue;
    char* end = nullptr;
    const double upper = std::strtod(le->second.c_str(), &end);
    if (end == le->second.c_str() || *end != '\0') continue;  // not a number: not a bucket
    store::Labels key = s.labels;
    drop_metric_name(key);
    set_label(key, "le", "");
    Group& g = groups[key];
    g.labels = key;
    g.members.emplace_back(upper, &s);
  }
  Value out;
  out.type = ValueType::kVector;
  std::vector<Bucket> scratch;
  for (auto& [key, g] : groups) {
    StepSeries r{g.labels, std::vector<double>(steps), std::vector<std::uint8_t>(steps)};
    bool any = false;
    for (std::size_t k = 0; k < steps; ++k) {
      scratch.clear();
      for (const auto& [upper, s] : g.members) {
        if (s->present[k]) scratch.push_back({upper, s->values[k]});
      }
      if (scratch.empty()) continue;
      r.values[k] = bucket_quantile(q[k], scratch);
      r.present[k] = 1;
      any = true;
    }
    if (any) out.vector.push_back(std::move(r));
  }
  return out;
}

}  // namespace gpuwatch::query
