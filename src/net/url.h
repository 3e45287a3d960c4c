// An http(s) URL split the way the client needs it (origin and request target), and the encodings requests
// carry: percent-encoding and HTML forms' application/x-www-form-urlencoded.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuwatch::net {

struct Url {
  std::string scheme;  // "http" or "https"
  std::string host;    // without the brackets of an IPv6 literal
  int port = 0;        // the scheme's when the URL names none
  std::string target;  // path and query, "/" at least
  // The URL's userinfo (http://user:password@host/), percent-decoded: the client sends them as basic
  // credentials. Never part of origin(), host_header() or a message.
  std::string user;
  std::string password;
  bool tls() const { return scheme == "https"; }
  // "http://host:port", the brackets back around an IPv6 literal.
  std::string origin() const;
  // The Host header: host, and the port when it is not the scheme's.
  std::string host_header() const;
};

// nullopt with *error saying why ("'x' is not an http:// or https:// URL", "... has no host", "... bad
// port"); the error shows a password in the URL as "xxxxx".
std::optional<Url> parse_url(const std::string& text, std::string* error);

// The URL as it may be shown: a password in its userinfo replaced by "xxxxx" (as Prometheus shows them).
std::string redacted_url(const std::string& text);

// RFC 3986 percent-encoding of everything but the unreserved characters.
std::string percent_encode(std::string_view text);

// The inverse of percent_encode: each %XX as its byte; a '%' without two hex digits stays as it is.
std::string percent_decode(std::string_view text);

// name=value pairs joined with '&', each side percent-encoded (a query string or a form body).
std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields);

inline constexpr const char* kFormContentType = "application/x-www-form-urlencoded";

}  // namespace gpuwatch::net
