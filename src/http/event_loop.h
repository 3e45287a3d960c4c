// The boundary between the HTTP server's logic and its event loop. The event loop is an optional module,
// loaded when the agent starts serving, so that one-shot commands map none of it (docs/architecture.md,
// "Optional modules"): gpuwatch-http-server.so serves plain HTTP on Boost.Beast and holds basic auth's
// password check (libxcrypt); gpuwatch-tls-server.so serves TLS on libmicrohttpd with GnuTLS and its seven
// libraries, which only a server with a certificate maps. Everything else the server does (routes, limits,
// deadlines, authentication, /metrics) stays in the binary (http_server.cpp) and sees a loop only through
// these two interfaces, which mirror libmicrohttpd's callbacks one for one; both loops keep to them.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/web_config.h"

namespace gpuwatch::http {

// One connection, as the event loop shows it to a callback that is given it; valid during that call only.
class ServerConnection {
 public:
  virtual ~ServerConnection() = default;
  // A request header's value (the name compared without case), nullopt when the request has none.
  virtual std::optional<std::string_view> header(std::string_view name) const = 0;
  // A query parameter's value ("" for `?name` without `=`), nullopt when absent.
  virtual std::optional<std::string_view> param(std::string_view name) const = 0;
  virtual void headers(std::multimap<std::string, std::string>& out) const = 0;
  virtual void params(std::multimap<std::string, std::string>& out) const = 0;
  // Header fields (SIZE_MAX when the library cannot tell), and the bytes of headers and query together.
  struct HeadSize {
    std::size_t fields = 0;
    std::size_t bytes = 0;
  };
  virtual HeadSize head_size() const = 0;
  virtual std::string client_address() const = 0;
  // What RequestHandler::connection_opened returned for this connection.
  virtual void* socket_context() const = 0;
  // "" when the client's certificate is as `mode` asks, else why not (also "no TLS session").
  virtual std::string certificate_problem(ClientAuth mode) const = 0;
  // Reads nothing more from the connection until the function resumer() returns is called, from any thread,
  // once; the request's callback is then called again.
  virtual void suspend() = 0;
  virtual std::function<void()> resumer() = 0;
  // Queues a reply; false when it cannot be queued, which closes the connection.
  virtual bool reply(int status, std::shared_ptr<const std::string> body,
                     const std::vector<std::pair<std::string, std::string>>& headers) = 0;
};

// The server's side, called on the event loop's threads.
class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  // Whether a new connection from `client_address` is accepted.
  virtual bool admit(const std::string& client_address) = 0;
  // A connection opened (the context its callbacks get back) and closed.
  virtual void* connection_opened(int fd, const std::string& client_address) = 0;
  virtual void connection_closed(void* socket_context) = 0;
  // A request line arrived on the connection (a new request, also on a kept-alive connection).
  virtual void request_line(void* socket_context) = 0;
  // A request's callback, as the library's access handler: first with the headers read (`*request_state`
  // null: the handler sets its own), then with each part of the body (`*upload_size` bytes, which it sets to
  // what it consumed), then with none. False closes the connection.
  virtual bool request(ServerConnection& connection, std::string_view url, std::string_view method,
                       const char* upload, std::size_t* upload_size, void** request_state) = 0;
  // The request is done (answered or abandoned): the handler frees its `*request_state`.
  virtual void completed(void* socket_context, void** request_state) = 0;
};

struct EventLoopSettings {
  int listen_fd =
      -1;  // bound and listening; the loop closes it when it stops (after a successful start only)
  unsigned threads = 1;
  unsigned connection_limit = 0;
  unsigned idle_seconds =
      60;  // libmicrohttpd's: any inactivity; Beast's: a reply's write (reads: the deadlines)
  std::size_t memory_limit = 0;  // per connection, for the request line and headers
  const WebConfig* tls =
      nullptr;  // TLS when set and tls->tls(); client certificates asked for with a client CA
};

// Serving from start until destroyed; destroying it stops it and closes every connection (none may be
// suspended then).
class EventLoop {
 public:
  virtual ~EventLoop() = default;
};

// Each module's entry point: a running loop in *out, or *error says why none started. `handler` must outlive
// it.
using OpenEventLoop = void(const EventLoopSettings& settings, RequestHandler& handler,
                           std::unique_ptr<EventLoop>* out, std::string* error);
inline constexpr const char* kEventLoopModule = "gpuwatch-http-server.so";  // plain HTTP
inline constexpr const char* kTlsEventLoopModule = "gpuwatch-tls-server.so";
inline constexpr const char* kEventLoopEntry = "gpuwatch_http_server_open_v1";

// gpuwatch-http-server.so's second entry point: whether `password` matches the bcrypt (or any crypt(3))
// `hash`, through libxcrypt (basic auth, http/basic_auth.h).
using PasswordMatches = bool(const std::string& password, const std::string& hash);
inline constexpr const char* kPasswordEntry = "gpuwatch_http_password_matches_v1";

}  // namespace gpuwatch::http
