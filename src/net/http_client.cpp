#include "net/http_client.h"

#include <strings.h>

#include "core/optional_module.h"
#include "net/plain_client.h"
#include "net/tls_client.h"

namespace gpuwatch::net {

std::string header_value(const Headers& headers, std::string_view name) {
  for (const auto& [n, value] : headers) {
    if (n.size() == name.size() && ::strncasecmp(n.data(), name.data(), name.size()) == 0) return value;
  }
  return "";
}

std::unique_ptr<HttpClient> make_http_client(const std::string& url, const ClientOptions& options) {
  std::string error;
  const auto parsed = parse_url(url, &error);
  if (!parsed) throw ClientError(error);
  return make_http_client(*parsed, options);
}

std::unique_ptr<HttpClient> make_http_client(const Url& url, const ClientOptions& given) {
  ClientOptions options = given;
  if (!url.user.empty() && header_value(options.default_headers, "Authorization").empty()) {
    options.default_headers.emplace_back("Authorization", basic_authorization(url.user, url.password));
  }
  if (!url.tls()) return make_plain_client(url, options);
  // The module stays loaded while the client lives (make_with_module ties them), so the client is handed on
  // as a unique_ptr that owns that tie.
  struct Tied final : HttpClient {
    std::shared_ptr<HttpClient> client;
    Result send(const Request& request) override { return client->send(request); }
    void abort() override { client->abort(); }
  };
  auto tied = std::make_unique<Tied>();
  tied->client = make_with_module<HttpClient, ClientError, OpenTlsClient>(
      options.tls_module_path, kTlsModuleFileName, kOpenTlsClientSymbol, "TLS client", url, options);
  return tied;
}

std::string basic_authorization(const std::string& user, const std::string& password) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const std::string in = user + ":" + password;
  std::string out = "Basic ";
  for (std::size_t i = 0; i < in.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, in.size() - i);
    unsigned bits = 0;
    for (std::size_t k = 0; k < 3; ++k)
      bits = (bits << 8) | (k < n ? static_cast<unsigned char>(in[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) out += k <= n ? kAlphabet[(bits >> (18 - 6 * k)) & 0x3f] : '=';
  }
  return out;
}

}  // namespace gpuwatch::net
