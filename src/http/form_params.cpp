#include "http/form_params.h"

#include <strings.h>

#include <algorithm>

#include "net/url.h"

namespace gpuwatch {
namespace {

// A form's '+' is a space; the rest is percent-decoding.
std::string decode(std::string_view text) {
  std::string spaced(text);
  std::replace(spaced.begin(), spaced.end(), '+', ' ');
  return net::percent_decode(spaced);
}

}  // namespace

void parse_form(std::string_view body, std::multimap<std::string, std::string>& params) {
  while (!body.empty()) {
    const auto amp = body.find('&');
    const std::string_view pair = body.substr(0, amp);
    body = amp == std::string_view::npos ? std::string_view() : body.substr(amp + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    if (eq == std::string_view::npos) {
      params.emplace(decode(pair), std::string());
    } else {
      params.emplace(decode(pair.substr(0, eq)), decode(pair.substr(eq + 1)));
    }
  }
}

bool is_form_content_type(std::string_view content_type) {
  constexpr std::string_view kForm = "application/x-www-form-urlencoded";
  const auto semicolon = content_type.find(';');
  std::string_view type = content_type.substr(0, semicolon);
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
  while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.remove_prefix(1);
  return type.size() == kForm.size() && ::strncasecmp(type.data(), kForm.data(), kForm.size()) == 0;
}

}  // namespace gpuwatch
