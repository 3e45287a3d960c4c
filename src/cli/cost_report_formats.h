// The cost report as `gpuwatch report` writes it: Markdown (the default: headings and tables a chat or a
// wiki shows), HTML (one page, with the utilization plot and the states drawn as inline SVG), CSV (one row
// per figure, for spreadsheets and billing) and JSON (the API's document).
#pragma once

#include <string>

#include "accounting/cost_report.h"

namespace gpuwatch {

std::string cost_report_markdown(const accounting::CostReport& r);
std::string cost_report_html(const accounting::CostReport& r);
std::string cost_report_csv(const accounting::CostReport& r);

}  // namespace gpuwatch
