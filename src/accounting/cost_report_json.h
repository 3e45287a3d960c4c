// The cost report as JSON: the `data` of /api/v1/cost, what `gpuwatch report --format json` writes, and
// what `gpuwatch report --url` reads back (docs/cost.md lists the fields). Hours and costs are numbers; a
// state's figures are objects keyed by state name.
#pragma once

#include <nlohmann/json.hpp>

#include "accounting/cost_report.h"

namespace gpuwatch::accounting {

nlohmann::json to_json(const CostReport& report);
// Throws nlohmann::json::exception on a document that is not one.
CostReport cost_report_from_json(const nlohmann::json& data);

}  // namespace gpuwatch::accounting
