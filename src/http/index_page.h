// The built-in endpoints and the page at /endpoints that lists them with the added routes (/ is the web
// dashboards').
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "http/http_route.h"

namespace gpuwatch {

// Whether `path` is one of the built-in endpoints (/metrics, /api/v1/gpus, /healthz, /readyz, /endpoints).
bool is_builtin_endpoint(std::string_view path);

// The HTML of the index page: every built-in endpoint, then every added route with a `what`.
std::string index_html(const std::vector<HttpRoute>& routes);

}  // namespace gpuwatch
