#include "http/http_server.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "core/json_text.h"
#include "core/optional_module.h"
#include "core/utf8.h"
#include "http/connection_deadlines.h"
#include "http/event_loop.h"
#include "http/form_params.h"
#include "http/index_page.h"
#include "http/json_api.h"
#include "http/listen_address.h"
#include "http/listener_auth.h"
#include "http/negotiation.h"
#include "http/route_table.h"
#include "http/server_stats.h"
#include "http/worker_pool.h"

namespace gpuwatch {
namespace {

using http::ServerConnection;

// One request's state, from its first call into the access handler to its completion.
struct RequestContext {
  enum class State {
    kReadingBody,  // headers accepted; body bytes arrive
    kWaiting,      // handed to the worker pool, connection suspended until `reply` is set
    kReplied,      // a response is queued; further calls only drain what the client still sends
  };
  State state = State::kReadingBody;
  // What answers the request once it is read: a built-in endpoint, a reply decided from the headers (404,
  // 405), or else `route` on the worker pool. Answering on the first call, before the library has read the
  // request to its end, would make it close the connection; only refusals do that (their body is unread).
  std::optional<std::string> builtin;
  std::optional<HttpReply> decided;
  const HttpRoute* route = nullptr;
  std::size_t max_body = 0;
  HttpRequest request;
  std::optional<HttpReply> reply;  // written by a worker before it resumes the connection
};

HttpReply json_reply(int status, const nlohmann::json& body) {
  HttpReply r;
  r.status = status;
  r.body = to_json_text(body) + "\n";  // stays JSON should a handler put ill-formed UTF-8 in an error
  return r;
}

HttpReply text_reply(int status, std::string body) {
  return HttpReply{status, "text/plain; charset=utf-8", std::move(body), {}};
}

// What a client sent, fit to be echoed in a JSON error.
std::string echoed(std::string_view text) {
  return to_valid_utf8(text, 1024);
}

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

ConnectionDeadlines::Connection* tracked(void* socket_context) {
  return static_cast<ConnectionDeadlines::Connection*>(socket_context);
}

std::optional<std::uint64_t> content_length(const ServerConnection& connection) {
  const auto value = connection.header("Content-Length");
  if (!value) return std::nullopt;
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), n);
  if (ec != std::errc() || end != value->data() + value->size()) return std::nullopt;
  return n;
}

}  // namespace

struct HttpServer::Impl final : http::RequestHandler {
  Impl(const HttpServerOptions& options, HttpServer& server)
      : owner(server),
        options(options),
        cache(DcgmOptions{options.dcgm_hostname_label},
              [this, extra = options.extra_metrics](std::string& out, ExpositionFormat f) {
                if (extra) extra(out, f);
                stats.append_metrics(out, f, pool.running(), pool.queued());
              }),
        basic_auth(options.web && !options.web->basic_auth_users.empty()
                       ? std::make_unique<BasicAuth>(options.web->basic_auth_users,
                                                     load_password_check(options.module_path))
                       : nullptr),
        routes(options.routes),
        index(index_html(options.routes)),
        pool(options.threads, options.queue),
        deadlines(
            ConnectionDeadlines::Timeouts{options.header_timeout, options.body_timeout, options.idle_timeout},
            stats) {}

  // The event loop's callbacks (http/event_loop.h).
  bool admit(const std::string& client) override {
    if (deadlines.open_connections() >= options.max_connections) {
      stats.reject(RejectReason::kConnectionLimit);
      return false;
    }
    if (deadlines.open_from(client) >= options.max_connections_per_client) {
      stats.reject(RejectReason::kClientConnectionLimit);
      return false;
    }
    return true;
  }
  void* connection_opened(int fd, const std::string& client) override {
    ++stats.connections;
    return deadlines.open(fd, client);
  }
  void connection_closed(void* socket_context) override {
    deadlines.close(tracked(socket_context));
    --stats.connections;
  }
  // The request line of a request on a kept-alive connection starts its header deadline (on a new
  // connection it started at accept).
  void request_line(void* socket_context) override {
    ConnectionDeadlines::Connection* tracking = tracked(socket_context);
    if (tracking != nullptr && tracking->phase() == ConnectionDeadlines::Phase::kIdle) {
      tracking->enter(ConnectionDeadlines::Phase::kHeaders);
    }
  }
  bool request(ServerConnection& connection, std::string_view url, std::string_view method,
               const char* upload, std::size_t* upload_size, void** request_state) override;
  void completed(void* socket_context, void** request_state) override {
    std::unique_ptr<RequestContext> done(static_cast<RequestContext*>(*request_state));
    *request_state = nullptr;
    if (ConnectionDeadlines::Connection* tracking = tracked(socket_context)) {
      tracking->enter(ConnectionDeadlines::Phase::kIdle);
    }
  }

  bool begin(ServerConnection& connection, std::string_view path, std::string_view method,
             RequestContext& ctx);
  bool builtin(ServerConnection& connection, std::string_view path, RequestContext& ctx);
  bool metrics(ServerConnection& connection);
  bool dispatch(ServerConnection& connection, RequestContext& ctx);
  // Runs an added route on a worker thread: its reply, 500 for an exception, 422 for a reply too large.
  HttpReply answer(const HttpRoute& route, const HttpRequest& req);
  // 413 at once when Content-Length says more than the request may send.
  bool check_length(ServerConnection& connection, RequestContext& ctx);
  bool reject(ServerConnection& connection, RequestContext& ctx, RejectReason reason, int status,
              const std::string& error);
  // Every reply leaves through here: it gets the web configuration file's headers (exporter-toolkit sets
  // them before authentication, so a 401 has them too), unless the reply set the same header itself, as a
  // handler behind exporter-toolkit can.
  bool queue(ServerConnection& connection, int status, std::shared_ptr<const std::string> body,
             std::vector<std::pair<std::string, std::string>> headers) {
    if (options.web) {
      const std::size_t own = headers.size();
      for (const auto& [k, v] : options.web->headers) {
        const auto end = headers.begin() + static_cast<std::ptrdiff_t>(own);
        if (std::none_of(headers.begin(), end, [&k = k](const auto& h) { return same_name(h.first, k); }))
          headers.emplace_back(k, v);
      }
    }
    return connection.reply(status, std::move(body), headers);
  }
  bool send_reply(ServerConnection& connection, HttpReply reply) {
    reply.headers.insert(reply.headers.begin(), {"Content-Type", std::move(reply.content_type)});
    return queue(connection, reply.status, std::make_shared<const std::string>(std::move(reply.body)),
                 std::move(reply.headers));
  }
  bool refuse(ServerConnection& connection, RequestContext& ctx, HttpReply reply) {
    ctx.state = RequestContext::State::kReplied;
    return send_reply(connection, std::move(reply));
  }

  HttpServer& owner;
  const HttpServerOptions& options;
  ServerStats stats;
  MetricsCache cache;
  std::unique_ptr<BasicAuth> basic_auth;  // null without basic_auth_users
  RouteTable routes;
  const std::string index;
  WorkerPool pool;
  ConnectionDeadlines deadlines;
  std::shared_ptr<http::EventLoop> loop;  // last: stopped first
};

bool HttpServer::Impl::reject(ServerConnection& connection, RequestContext& ctx, RejectReason reason,
                              int status, const std::string& error) {
  stats.reject(reason);
  return refuse(connection, ctx, json_reply(status, {{"error", error}}));
}

bool HttpServer::Impl::request(ServerConnection& connection, std::string_view url, std::string_view method,
                               const char* upload, std::size_t* upload_size, void** request_state) {
  auto* ctx = static_cast<RequestContext*>(*request_state);
  if (ctx == nullptr) {
    // The first call: the headers are in, no body byte has been read.
    auto owned = std::make_unique<RequestContext>();
    ctx = owned.get();
    *request_state = owned.release();  // freed by completed()
    return begin(connection, url, method, *ctx);
  }
  switch (ctx->state) {
    case RequestContext::State::kReadingBody:
      if (*upload_size > 0) {
        // Chunked bodies carry no Content-Length: count while reading.
        if (ctx->request.body.size() + *upload_size > ctx->max_body) {
          stats.reject(RejectReason::kBodyTooLarge);
          ctx->state = RequestContext::State::kReplied;
          *upload_size = 0;
          // False (the library cannot answer mid-body) closes the connection.
          return send_reply(
              connection,
              json_reply(413, {{"error", "the body exceeds " + std::to_string(ctx->max_body) + " bytes"}}));
        }
        ctx->request.body.append(upload, *upload_size);
        *upload_size = 0;
        return true;
      }
      if (ctx->builtin) return builtin(connection, *ctx->builtin, *ctx);
      if (ctx->decided) return refuse(connection, *ctx, std::move(*ctx->decided));
      return dispatch(connection, *ctx);
    case RequestContext::State::kWaiting: {
      ctx->state = RequestContext::State::kReplied;
      HttpReply reply = ctx->reply ? std::move(*ctx->reply) : json_reply(500, {{"error", "no reply"}});
      return send_reply(connection, std::move(reply));
    }
    case RequestContext::State::kReplied:
      *upload_size = 0;
      return true;
  }
  return false;
}

bool HttpServer::Impl::begin(ServerConnection& connection, std::string_view path, std::string_view method,
                             RequestContext& ctx) {
  ConnectionDeadlines::Connection* tracking = tracked(connection.socket_context());
  if (tracking != nullptr) tracking->enter(ConnectionDeadlines::Phase::kBody);
  const ServerConnection::HeadSize head = connection.head_size();
  if (head.fields > options.max_headers ||
      head.bytes + path.size() + method.size() > options.max_header_bytes) {
    return reject(connection, ctx, RejectReason::kHeadersTooLarge, 431,
                  "more than " + std::to_string(options.max_headers) + " header fields or " +
                      std::to_string(options.max_header_bytes) + " bytes of request line and headers");
  }
  // Before anything else: every endpoint needs what the web configuration file asks for.
  std::string user;
  if (options.web) {
    if (std::optional<HttpReply> refused = authenticate(connection, *options.web, basic_auth.get(), user))
      return refuse(connection, ctx, std::move(*refused));
  }
  // A body sent where none is expected is read (bounded) and ignored.
  ctx.max_body = options.max_body_bytes;
  const bool get = method == "GET" || method == "HEAD";
  if (get && options.builtin_endpoints && is_builtin_endpoint(path)) {
    ctx.builtin = std::string(path);
    return check_length(connection, ctx);
  }

  // HEAD is served wherever GET is (without the body).
  RouteTable::Match match = routes.match(method == "HEAD" ? "GET" : method, path);
  if (match.route == nullptr) {
    const std::string shown_path = echoed(path);
    const std::string shown_method = echoed(method);
    HttpReply reply;
    if (!match.allow.empty()) {
      reply = json_reply(405, {{"error", "method " + shown_method + " not allowed on " + shown_path}});
      reply.headers.emplace_back("Allow", match.allow);
    } else if (options.builtin_endpoints && is_builtin_endpoint(path)) {
      reply = json_reply(
          405, {{"error", "method " + shown_method + " not allowed on " + shown_path + "; use GET"}});
      reply.headers.emplace_back("Allow", "GET, HEAD");
    } else {
      reply = json_reply(404, {{"error", "not found"}, {"path", shown_path}});
    }
    ctx.decided = std::move(reply);
    return check_length(connection, ctx);
  }
  ctx.route = match.route;
  ctx.max_body = match.route->max_body_bytes > 0 ? match.route->max_body_bytes : options.max_body_bytes;
  HttpRequest& req = ctx.request;
  req.method = std::string(method);
  req.path = std::string(path);
  req.captures = std::move(match.captures);
  req.user = std::move(user);
  connection.params(req.params);
  connection.headers(req.headers);
  req.remote_addr = connection.client_address();
  // Before any body byte is read: an unauthenticated or oversized upload costs the server nothing.
  if (ctx.route->admit) {
    if (std::optional<HttpReply> refused = ctx.route->admit(req))
      return refuse(connection, ctx, std::move(*refused));
  }
  return check_length(connection, ctx);
}

bool HttpServer::Impl::check_length(ServerConnection& connection, RequestContext& ctx) {
  if (const auto length = content_length(connection); length && *length > ctx.max_body) {
    return reject(connection, ctx, RejectReason::kBodyTooLarge, 413,
                  "the body exceeds " + std::to_string(ctx.max_body) + " bytes");
  }
  return true;
}

HttpReply HttpServer::Impl::answer(const HttpRoute& route, const HttpRequest& req) {
  HttpReply reply;
  try {
    reply = route.handle(req);
  } catch (const std::exception& e) {
    return json_reply(500, {{"error", echoed(e.what())}});
  } catch (...) {
    return json_reply(500, {{"error", "internal error"}});
  }
  if (reply.body.size() <= options.max_reply_bytes) return reply;
  stats.reject(RejectReason::kReplyTooLarge);
  // Prometheus's shape and status for a query that would return too much.
  return json_reply(422, {{"status", "error"},
                          {"errorType", "execution"},
                          {"error", "the result exceeds " + std::to_string(options.max_reply_bytes) +
                                        " bytes: ask for fewer series, a shorter range or a larger step"}});
}

bool HttpServer::Impl::dispatch(ServerConnection& connection, RequestContext& ctx) {
  if (ConnectionDeadlines::Connection* tracking = tracked(connection.socket_context())) {
    tracking->enter(ConnectionDeadlines::Phase::kHandling);
  }
  HttpRequest& req = ctx.request;
  if (req.method == "POST" && is_form_content_type(req.header("Content-Type")))
    parse_form(req.body, req.params);
  ctx.state = RequestContext::State::kWaiting;
  // Suspended before the job is queued: a worker may resume it as soon as it is queued.
  connection.suspend();
  std::function<void()> resume = connection.resumer();
  const HttpRoute* route = ctx.route;
  RequestContext* waiting = &ctx;  // lives until the request completes, which cannot happen while suspended
  const bool queued = pool.try_submit(
      WorkerPool::Job{[this, route, waiting, resume] {
                        waiting->reply = answer(*route, waiting->request);
                        resume();
                      },
                      [waiting, resume] {
                        waiting->reply = json_reply(503, {{"error", "the server is stopping"}});
                        resume();
                      }});
  if (!queued) {
    stats.reject(RejectReason::kBusy);
    HttpReply busy = json_reply(503, {{"error", "too many requests in progress; retry later"}});
    busy.headers.emplace_back("Retry-After", "1");
    ctx.reply = std::move(busy);
    resume();
  }
  return true;
}

bool HttpServer::Impl::builtin(ServerConnection& connection, std::string_view path, RequestContext& ctx) {
  if (ConnectionDeadlines::Connection* tracking = tracked(connection.socket_context())) {
    tracking->enter(ConnectionDeadlines::Phase::kHandling);
  }
  ctx.state = RequestContext::State::kReplied;
  if (path == "/metrics") return metrics(connection);
  if (path == "/healthz") return send_reply(connection, text_reply(200, "ok\n"));
  if (path == "/readyz") {
    return send_reply(connection, owner.ready_()
                                      ? text_reply(200, "ready\n")
                                      : text_reply(503, "not ready: no complete collection yet\n"));
  }
  if (path == "/api/v1/gpus") {
    const SnapshotPtr snapshot = owner.latest_();
    if (!snapshot) return send_reply(connection, json_reply(503, {{"error", "no complete collection yet"}}));
    // `?gpu` without `=` is a parameter given empty, not one absent: it is refused like `?gpu=`.
    // A bad parameter, or a GPU the snapshot lacks, is the client's error (400), never the server's.
    HttpReply reply;
    try {
      const GpusSelection selection =
          parse_gpus_selection(connection.param("processes"), connection.param("gpu"));
      reply = json_reply(200, snapshot_to_json(*snapshot, owner.options_.health_settings, selection));
    } catch (const std::invalid_argument& e) {
      reply = json_reply(400, {{"error", echoed(e.what())}});
    }
    return send_reply(connection, std::move(reply));
  }
  return send_reply(connection, HttpReply{200, "text/html; charset=utf-8", index, {}});
}

bool HttpServer::Impl::metrics(ServerConnection& connection) {
  MetricNaming naming = owner.naming_.load();
  if (const auto v = connection.param("naming")) {
    if (*v == "dcgm") {
      naming = MetricNaming::kDcgm;
    } else if (*v == "native") {
      naming = MetricNaming::kNative;
    } else {
      return send_reply(
          connection,
          json_reply(400, {{"error", "naming must be dcgm or native, not \"" + echoed(*v) + "\""}}));
    }
  }
  RenderVariant variant;
  variant.naming = naming;
  if (header_accepts(connection.header("Accept").value_or(""), "application/openmetrics-text")) {
    variant.format = ExpositionFormat::kOpenMetrics;
  }
  variant.gzip = header_accepts(connection.header("Accept-Encoding").value_or(""), "gzip");
  const Rendering r = cache.get(owner.latest_(), variant);
  std::vector<std::pair<std::string, std::string>> headers{{"Content-Type", std::string(r.content_type)}};
  if (variant.gzip) headers.emplace_back("Content-Encoding", "gzip");
  headers.emplace_back("Vary", "Accept, Accept-Encoding");
  return queue(connection, 200, r.body, std::move(headers));
}

HttpServer::HttpServer(HttpServerOptions options, std::function<SnapshotPtr()> latest,
                       std::function<bool()> ready)
    : options_(std::move(options)),
      latest_(std::move(latest)),
      ready_(std::move(ready)),
      naming_(options_.naming) {}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::start() {
  if (impl_) throw std::logic_error("HttpServer::start called twice");
  start(bind(options_.listen));
}

BoundListener HttpServer::bind(std::string_view listen) {
  return bind_listener(listen, 1024);
}

void HttpServer::start(BoundListener bound) {
  if (impl_) throw std::logic_error("HttpServer::start called twice");
  UniqueFd listener = std::move(bound.socket);
  const int bound_port = bound.address.port;

  http::EventLoopSettings settings;
  settings.listen_fd = listener.get();
  settings.threads = std::max(1U, options_.event_threads);
  settings.connection_limit = options_.max_connections + 16;
  settings.idle_seconds = static_cast<unsigned>(
      std::max<std::chrono::milliseconds::rep>(1, (options_.idle_timeout.count() + 999) / 1000));
  // The library's pool holds the request line and headers: room for the largest we accept (which we check
  // ourselves, to answer 431 and count it) and for the reply's headers.
  settings.memory_limit = options_.max_header_bytes * 2 + 64 * 1024;
  settings.tls = options_.web ? &*options_.web : nullptr;
  // The loop's module: TLS's only for a server with a certificate.
  struct LoopModule {
    const std::string& path;
    const char* file_name;
    const char* feature;
  };
  const LoopModule module =
      settings.tls != nullptr && settings.tls->tls()
          ? LoopModule{options_.tls_module_path, http::kTlsEventLoopModule, "HTTPS server"}
          : LoopModule{options_.module_path, http::kEventLoopModule, "HTTP server"};
  std::unique_ptr<Impl> impl;
  try {
    impl = std::make_unique<Impl>(options_, *this);
    impl->loop = make_with_module<http::EventLoop, std::runtime_error, http::OpenEventLoop>(
        module.path, module.file_name, http::kEventLoopEntry, module.feature, settings,
        static_cast<http::RequestHandler&>(*impl));
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("the server on " + options_.listen + " cannot start: " + e.what());
  }
  listener.release();  // the event loop closes it when it stops
  {
    std::lock_guard lock(impl_mu_);
    impl_ = std::move(impl);
  }
  port_ = bound_port;
}

void HttpServer::stop() {
  std::unique_ptr<Impl> impl;
  {
    std::lock_guard lock(impl_mu_);
    impl = std::move(impl_);
  }
  if (!impl) return;
  // Workers first: every suspended connection is resumed (answered, or 503 if still queued) before the
  // event loop stops, which the library requires.
  impl->pool.stop();
  impl->loop.reset();
}

std::vector<Family> HttpServer::self_families() const {
  std::lock_guard lock(impl_mu_);
  if (!impl_) return {};
  return impl_->stats.families(impl_->pool.running(), impl_->pool.queued());
}

}  // namespace gpuwatch
