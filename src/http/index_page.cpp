#include "http/index_page.h"

#include <array>

#include "http/html_escape.h"

namespace gpuwatch {
namespace {

struct Endpoint {
  const char* path;
  const char* what;
};
constexpr std::array kEndpoints = {
    Endpoint{"/metrics",
             "Prometheus metrics (text 0.0.4; OpenMetrics on request; ?naming=dcgm for dcgm-exporter names)"},
    Endpoint{"/api/v1/gpus",
             "every GPU, its health, metrics and processes as JSON (?processes=false for counts only; "
             "?gpu=INDEX or UUID for one GPU)"},
    Endpoint{"/healthz", "200 while the server runs"},
    Endpoint{"/readyz", "200 after the first complete collection, 503 before"},
    Endpoint{"/endpoints", "this page"},
};

}  // namespace

bool is_builtin_endpoint(std::string_view path) {
  for (const auto& e : kEndpoints) {
    if (path == e.path) return true;
  }
  return false;
}

std::string index_html(const std::vector<HttpRoute>& routes) {
  std::string html =
      "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>gpuwatch</title></head><body>\n"
      "<h1>gpuwatch</h1>\n<p><a href=\"/\">The dashboards</a> read these endpoints.</p>\n<ul>\n";
  for (const auto& e : kEndpoints) {
    html += "<li><a href=\"" + std::string(e.path) + "\">" + e.path + "</a>: " + e.what + "</li>\n";
  }
  for (const auto& r : routes) {
    if (r.what.empty()) continue;
    html += "<li><code>" + html_escaped(r.pattern) + "</code>: " + html_escaped(r.what) + "</li>\n";
  }
  return html + "</ul>\n</body></html>\n";
}

}  // namespace gpuwatch
