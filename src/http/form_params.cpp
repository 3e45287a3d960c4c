#include "http/form_params.h"

#include <strings.h>

namespace gpuwatch {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 &&
               hex_digit(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
      i += 2;
    } else {
      out += c;  // a stray '%' stays as sent
    }
  }
  return out;
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
