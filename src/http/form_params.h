// application/x-www-form-urlencoded bodies (POST /api/v1/query and the other query routes, as Prometheus's
// API accepts them).
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace gpuwatch {

// Adds each name=value pair of `body` to `params`, percent-decoded, '+' as a space. A pair without '='
// gets an empty value; empty pairs are skipped.
void parse_form(std::string_view body, std::multimap<std::string, std::string>& params);

// Whether a Content-Type header names a form-encoded body (parameters such as "; charset=utf-8" ignored).
bool is_form_content_type(std::string_view content_type);

}  // namespace gpuwatch
