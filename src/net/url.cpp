#include "net/url.h"

#include <charconv>

namespace gpuwatch::net {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Where the authority (userinfo@host:port) of an http(s) URL lies: [start, end).
std::pair<std::size_t, std::size_t> authority_span(const std::string& text) {
  const auto scheme_end = text.find("://");
  if (scheme_end == std::string::npos) return {text.size(), text.size()};
  const auto start = scheme_end + 3;
  const auto end = text.find_first_of("/?#", start);
  return {start, end == std::string::npos ? text.size() : end};
}

std::string bracketed(const std::string& host) {
  return host.find(':') == std::string::npos ? host : "[" + host + "]";
}

}  // namespace

std::string Url::origin() const {
  return scheme + "://" + bracketed(host) + ":" + std::to_string(port);
}

std::string Url::host_header() const {
  const bool default_port = port == (tls() ? 443 : 80);
  return default_port ? bracketed(host) : bracketed(host) + ":" + std::to_string(port);
}

std::string redacted_url(const std::string& text) {
  const auto [start, end] = authority_span(text);
  const auto at = text.rfind('@', end == 0 ? 0 : end - 1);
  if (at == std::string::npos || at < start) return text;
  const auto colon = text.find(':', start);
  if (colon == std::string::npos || colon > at) return text;  // a user without a password
  return text.substr(0, colon + 1) + "xxxxx" + text.substr(at);
}

std::optional<Url> parse_url(const std::string& text, std::string* error) {
  const auto fail = [&](const std::string& why) {
    *error = "'" + redacted_url(text) + "' " + why;
    return std::nullopt;
  };
  Url url;
  const auto scheme_end = text.find("://");
  url.scheme = scheme_end == std::string::npos ? "" : text.substr(0, scheme_end);
  if (url.scheme != "http" && url.scheme != "https") return fail("is not an http:// or https:// URL");
  url.port = url.tls() ? 443 : 80;
  const auto [authority_start, path_start] = authority_span(text);
  std::string_view authority = std::string_view(text).substr(authority_start, path_start - authority_start);
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    const auto userinfo = authority.substr(0, at);
    const auto colon = userinfo.find(':');
    url.user = percent_decode(userinfo.substr(0, colon));
    if (colon != std::string_view::npos) url.password = percent_decode(userinfo.substr(colon + 1));
    if (url.user.empty()) return fail("has credentials without a user");
    authority = authority.substr(at + 1);
  }
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {  // [::1]:port
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return fail("has an unclosed IPv6 address");
    url.host = std::string(authority.substr(1, close - 1));
    const auto rest = authority.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return fail("has text after its IPv6 address");
    if (!rest.empty()) port_text = rest.substr(1);
  } else {
    const auto colon = authority.rfind(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (url.host.empty()) return fail("has no host");
  if (!port_text.empty()) {
    int port = 0;
    const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port <= 0 || port > 65535)
      return fail("has a bad port");
    url.port = port;
  }
  url.target = path_start == text.size() ? "/" : text.substr(path_start);
  if (url.target.front() == '#') url.target = "/";
  if (url.target.front() == '?') url.target = "/" + url.target;
  if (const auto hash = url.target.find('#'); hash != std::string::npos) url.target.resize(hash);
  return url;
}

std::string percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 && hex_digit(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string percent_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    }
  }
  return out;
}

std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!out.empty()) out += '&';
    out += percent_encode(name) + "=" + percent_encode(value);
  }
  return out;
}

}  // namespace gpuwatch::net
