// Reads an SLI query (Sloth's error_query/total_query, OpenSLO's metricSource query) into the selectors the
// agent sums: the query must be a sum of rate() or increase() of counters, e.g.
//   sum(rate(vllm:request_success_total{model_name="llama"}[{{.window}}]))
// Sloth's {{.window}} (and OpenSLO's literal windows) are accepted; the agent keeps its own windows.
// Anything else (a ratio, a quantile, a gauge) cannot be kept as counts and is refused with the reason.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "slo/slo_spec.h"

namespace gpuwatch::slo {

// Throws std::invalid_argument with the reason (the caller adds file:line).
std::vector<EventSelector> parse_event_query(std::string_view query);

}  // namespace gpuwatch::slo
