// gpuwatch's HTTP client: every request the agent and the commands send (alert delivery, remote write,
// scrapes, the commands that ask a running agent) goes through this interface. http:// is served by the
// binary itself (Boost.Beast, no TLS library); https:// by the TLS client module (gpuwatch-tls-client.so,
// OpenSSL), loaded only when a URL is https, so that a process that never speaks TLS maps no TLS library.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "net/url.h"

namespace gpuwatch::net {

using Headers = std::vector<std::pair<std::string, std::string>>;

// The first value of header `name` (compared case-insensitively), or "".
std::string header_value(const Headers& headers, std::string_view name);

struct Response {
  int status = 0;
  Headers headers;
  std::string body;  // empty when the request had an on_body sink
  std::string header(std::string_view name) const { return header_value(headers, name); }
};

struct Request {
  std::string method = "GET";
  std::string target = "/";  // path and query string, sent as is
  Headers headers;           // besides Host, Content-Length and the client's default headers
  std::string body;
  // Set: the response's status and headers as soon as they are read, before the body.
  std::function<void(const Response& head)> on_headers;
  // Set: each piece of the body as it arrives, instead of Response::body; false stops reading (the request
  // then fails with kStopped).
  std::function<bool(std::string_view piece)> on_body;
};

struct Failure {
  enum class Kind {
    kNone,
    kConnect,   // refused, unreachable, the name does not resolve
    kTimeout,   // a deadline passed (which one: the message)
    kTls,       // the handshake or the certificate
    kIo,        // the connection broke while writing or reading
    kProtocol,  // the answer is not HTTP/1.1
    kBodyTooLarge,
    kStopped,  // on_body said stop
    kAborted,  // abort() was called
  };
  Kind kind = Kind::kNone;
  std::string
      message;  // what failed and where: "connection refused by 127.0.0.1:9093", "timeout after 500 ms ..."
};

// An answer or why there is none.
struct Result {
  Response response;
  Failure failure;
  bool ok() const { return failure.kind == Failure::Kind::kNone; }
};

struct Timeouts {
  std::chrono::milliseconds connect{5'000};  // resolving, connecting and the TLS handshake
  std::chrono::milliseconds io{30'000};      // each write or read: how long the peer may stay silent
  std::chrono::milliseconds total{0};        // the whole request, connect to last byte; 0 = no bound
};

struct TlsOptions {
  std::string ca_file;    // "" = the system's trusted certificates
  std::string cert_file;  // a client certificate for mutual TLS, with its key
  std::string key_file;
  std::string server_name;  // checked against the certificate and sent as SNI; "" = the URL's host
  bool insecure_skip_verify = false;
};

struct ClientOptions {
  Timeouts timeouts;
  // Keeps the connection open between requests (the remote-write sender, top's poll); else one per request.
  bool keep_alive = false;
  std::size_t max_body_bytes = 0;  // a longer body fails with kBodyTooLarge; 0 = no limit
  Headers default_headers;         // sent with every request (credentials, User-Agent)
  TlsOptions tls;                  // for https://
  std::string tls_module_path;     // "" = the default gpuwatch-tls-client.so (default_module_path)
};

// A client of one origin (scheme, host, port). One request at a time; abort() may come from another thread.
class HttpClient {
 public:
  virtual ~HttpClient() = default;
  virtual Result send(const Request& request) = 0;
  // Cuts off a request in progress and fails every later one with kAborted. For shutdown.
  virtual void abort() = 0;
};

// A bad URL, a TLS certificate or key that cannot be read, or a missing TLS module ("module_missing: the TLS
// client module: " and the loader's reason).
class ClientError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A client for url's origin (its path is not used): the binary's own for http://, the TLS module's for
// https://. A URL with credentials (http://user:password@host/) sends them as basic credentials with every
// request, unless options.default_headers carry an Authorization of their own. Throws ClientError.
std::unique_ptr<HttpClient> make_http_client(const std::string& url, const ClientOptions& options = {});
std::unique_ptr<HttpClient> make_http_client(const Url& url, const ClientOptions& options = {});

// The request line for a failure message: "POST http://host:port/path". Inline: the TLS module uses it too.
inline std::string describe(const Url& origin, const Request& request) {
  return request.method + " " + origin.scheme + "://" + origin.host_header() + request.target;
}

// Basic credentials as an Authorization header value ("Basic " and base64 of user:password).
std::string basic_authorization(const std::string& user, const std::string& password);

}  // namespace gpuwatch::net
