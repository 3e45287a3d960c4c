// histogram_quantile(q, buckets): the q-quantile of classic histograms (series with an `le` label),
// interpolated linearly inside the bucket, as Prometheus computes it.
#pragma once

#include <vector>

#include "query/value.h"

namespace gpuwatch::query {

Value histogram_quantile(const std::vector<double>& q, const Value& buckets, std::size_t steps);

}  // namespace gpuwatch::query
