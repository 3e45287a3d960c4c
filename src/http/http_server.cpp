#include "http/http_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "core/json_text.h"
#include "core/utf8.h"
#include "http/connection_deadlines.h"
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

struct DaemonStop {
  void operator()(MHD_Daemon* d) const { MHD_stop_daemon(d); }
};
struct ResponseRelease {
  void operator()(MHD_Response* r) const { MHD_destroy_response(r); }
};
using ResponsePtr = std::unique_ptr<MHD_Response, ResponseRelease>;

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

void release_body(void* holder) {
  delete static_cast<std::shared_ptr<const std::string>*>(holder);  // made in make_response
}

// A response over shared bytes (the cached /metrics rendering), without a copy.
ResponsePtr make_response(std::shared_ptr<const std::string> body) {
  auto holder = std::make_unique<std::shared_ptr<const std::string>>(std::move(body));
  const std::string& bytes = **holder;
  MHD_Response* r = MHD_create_response_from_buffer_with_free_callback_cls(
      bytes.size(), const_cast<char*>(bytes.data()), &release_body, holder.get());
  if (r == nullptr) return nullptr;
  holder.release();  // the response owns it now; release_body frees it
  return ResponsePtr(r);
}

ResponsePtr reply_response(HttpReply reply) {
  ResponsePtr response = make_response(std::make_shared<const std::string>(std::move(reply.body)));
  if (!response) return nullptr;
  MHD_add_response_header(response.get(), MHD_HTTP_HEADER_CONTENT_TYPE, reply.content_type.c_str());
  for (const auto& [k, v] : reply.headers) MHD_add_response_header(response.get(), k.c_str(), v.c_str());
  return response;
}

std::string lookup(MHD_Connection* connection, MHD_ValueKind kind, const char* name) {
  const char* value = MHD_lookup_connection_value(connection, kind, name);
  return value == nullptr ? std::string() : std::string(value);
}

MHD_Result collect_value(void* cls, MHD_ValueKind, const char* key, const char* value) {
  static_cast<std::multimap<std::string, std::string>*>(cls)->emplace(key, value == nullptr ? "" : value);
  return MHD_YES;
}

MHD_Result add_header_bytes(void* cls, MHD_ValueKind, const char* key, const char* value) {
  *static_cast<std::size_t*>(cls) += std::strlen(key) + (value == nullptr ? 0 : std::strlen(value)) + 4;
  return MHD_YES;
}

std::string client_address(const sockaddr* addr) {
  char text[INET6_ADDRSTRLEN] = {};
  if (addr == nullptr) return {};
  if (addr->sa_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(addr)->sin_addr, text, sizeof text);
  } else if (addr->sa_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr, text, sizeof text);
  }
  return text;
}

ConnectionDeadlines::Connection* tracked(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return info == nullptr ? nullptr : static_cast<ConnectionDeadlines::Connection*>(info->socket_context);
}

std::optional<std::uint64_t> content_length(MHD_Connection* connection) {
  const char* value =
      MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
  if (value == nullptr) return std::nullopt;
  std::uint64_t n = 0;
  const std::string_view text(value);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return n;
}

}  // namespace

struct HttpServer::Impl {
  Impl(const HttpServerOptions& options, HttpServer& server)
      : owner(server),
        options(options),
        cache(DcgmOptions{options.dcgm_hostname_label},
              [this, extra = options.extra_metrics](std::string& out, ExpositionFormat f) {
                if (extra) extra(out, f);
                stats.append_metrics(out, f, pool.running(), pool.queued());
              }),
        basic_auth(options.web && !options.web->basic_auth_users.empty()
                       ? std::make_unique<BasicAuth>(options.web->basic_auth_users)
                       : nullptr),
        routes(options.routes),
        index(index_html(options.routes)),
        pool(options.threads, options.queue),
        deadlines(
            ConnectionDeadlines::Timeouts{options.header_timeout, options.body_timeout, options.idle_timeout},
            stats) {}

  // The library's access handler: `cls` is the Impl.
  static MHD_Result access(void* cls, MHD_Connection* connection, const char* url, const char* method,
                           const char* /*version*/, const char* upload_data, std::size_t* upload_data_size,
                           void** request_cls) {
    return static_cast<Impl*>(cls)->on_request(connection, url, method, upload_data, upload_data_size,
                                               request_cls);
  }
  MHD_Result on_request(MHD_Connection* connection, const char* url, const char* method,
                        const char* upload_data, std::size_t* upload_data_size, void** request_cls);
  MHD_Result begin(MHD_Connection* connection, std::string_view path, std::string_view method,
                   RequestContext& ctx);
  MHD_Result builtin(MHD_Connection* connection, std::string_view path, RequestContext& ctx);
  MHD_Result metrics(MHD_Connection* connection);
  MHD_Result dispatch(MHD_Connection* connection, RequestContext& ctx);
  // Runs an added route on a worker thread: its reply, 500 for an exception, 422 for a reply too large.
  HttpReply answer(const HttpRoute& route, const HttpRequest& req);
  // 413 at once when Content-Length says more than the request may send.
  MHD_Result check_length(MHD_Connection* connection, RequestContext& ctx);
  MHD_Result reject(MHD_Connection* connection, RequestContext& ctx, RejectReason reason, int status,
                    const std::string& error);
  // Every reply leaves through here: it gets the web configuration file's headers (exporter-toolkit sets
  // them before authentication, so a 401 has them too), unless the reply set the same header itself, as a
  // handler behind exporter-toolkit can.
  MHD_Result queue(MHD_Connection* connection, int status, const ResponsePtr& response) {
    if (!response) return MHD_NO;
    if (options.web) {
      for (const auto& [k, v] : options.web->headers) {
        if (MHD_get_response_header(response.get(), k.c_str()) == nullptr)
          MHD_add_response_header(response.get(), k.c_str(), v.c_str());
      }
    }
    return MHD_queue_response(connection, static_cast<unsigned>(status), response.get());
  }
  MHD_Result send_reply(MHD_Connection* connection, HttpReply reply) {
    const int status = reply.status;
    return queue(connection, status, reply_response(std::move(reply)));
  }
  MHD_Result refuse(MHD_Connection* connection, RequestContext& ctx, HttpReply reply) {
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
  std::unique_ptr<MHD_Daemon, DaemonStop> daemon;  // last: stopped first
};

MHD_Result HttpServer::Impl::reject(MHD_Connection* connection, RequestContext& ctx, RejectReason reason,
                                    int status, const std::string& error) {
  stats.reject(reason);
  return refuse(connection, ctx, json_reply(status, {{"error", error}}));
}

MHD_Result HttpServer::Impl::on_request(MHD_Connection* connection, const char* url, const char* method,
                                        const char* upload_data, std::size_t* upload_data_size,
                                        void** request_cls) {
  auto* ctx = static_cast<RequestContext*>(*request_cls);
  if (ctx == nullptr) {
    // The first call: the headers are in, no body byte has been read.
    auto owned = std::make_unique<RequestContext>();
    ctx = owned.get();
    *request_cls = owned.release();  // freed by the completion callback
    return begin(connection, url, method, *ctx);
  }
  switch (ctx->state) {
    case RequestContext::State::kReadingBody:
      if (*upload_data_size > 0) {
        // Chunked bodies carry no Content-Length: count while reading.
        if (ctx->request.body.size() + *upload_data_size > ctx->max_body) {
          stats.reject(RejectReason::kBodyTooLarge);
          ctx->state = RequestContext::State::kReplied;
          *upload_data_size = 0;
          const MHD_Result queued = send_reply(
              connection,
              json_reply(413, {{"error", "the body exceeds " + std::to_string(ctx->max_body) + " bytes"}}));
          return queued;  // MHD_NO (the library cannot answer mid-body) closes the connection
        }
        ctx->request.body.append(upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
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
      *upload_data_size = 0;
      return MHD_YES;
  }
  return MHD_NO;
}

MHD_Result HttpServer::Impl::begin(MHD_Connection* connection, std::string_view path, std::string_view method,
                                   RequestContext& ctx) {
  ConnectionDeadlines::Connection* tracking = tracked(connection);
  if (tracking != nullptr) tracking->enter(ConnectionDeadlines::Phase::kBody);
  const int header_count = MHD_get_connection_values(connection, MHD_HEADER_KIND, nullptr, nullptr);
  std::size_t header_bytes = path.size() + method.size();
  MHD_get_connection_values(connection, MHD_HEADER_KIND, &add_header_bytes, &header_bytes);
  MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, &add_header_bytes,
                            &header_bytes);  // the query
  if (header_count < 0 || static_cast<std::size_t>(header_count) > options.max_headers ||
      header_bytes > options.max_header_bytes) {
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
  MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, &collect_value, &req.params);
  MHD_get_connection_values(connection, MHD_HEADER_KIND, &collect_value, &req.headers);
  if (const MHD_ConnectionInfo* info =
          MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS)) {
    req.remote_addr = client_address(info->client_addr);
  }
  // Before any body byte is read: an unauthenticated or oversized upload costs the server nothing.
  if (ctx.route->admit) {
    if (std::optional<HttpReply> refused = ctx.route->admit(req))
      return refuse(connection, ctx, std::move(*refused));
  }
  return check_length(connection, ctx);
}

MHD_Result HttpServer::Impl::check_length(MHD_Connection* connection, RequestContext& ctx) {
  if (const auto length = content_length(connection); length && *length > ctx.max_body) {
    return reject(connection, ctx, RejectReason::kBodyTooLarge, 413,
                  "the body exceeds " + std::to_string(ctx.max_body) + " bytes");
  }
  return MHD_YES;
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

MHD_Result HttpServer::Impl::dispatch(MHD_Connection* connection, RequestContext& ctx) {
  if (ConnectionDeadlines::Connection* tracking = tracked(connection)) {
    tracking->enter(ConnectionDeadlines::Phase::kHandling);
  }
  HttpRequest& req = ctx.request;
  if (req.method == "POST" && is_form_content_type(req.header("Content-Type")))
    parse_form(req.body, req.params);
  ctx.state = RequestContext::State::kWaiting;
  // Suspended before the job is queued: a worker may resume it as soon as it is queued.
  MHD_suspend_connection(connection);
  const HttpRoute* route = ctx.route;
  RequestContext* waiting = &ctx;  // lives until the request completes, which cannot happen while suspended
  const bool queued = pool.try_submit(
      WorkerPool::Job{[this, route, waiting, connection] {
                        waiting->reply = answer(*route, waiting->request);
                        MHD_resume_connection(connection);
                      },
                      [waiting, connection] {
                        waiting->reply = json_reply(503, {{"error", "the server is stopping"}});
                        MHD_resume_connection(connection);
                      }});
  if (!queued) {
    stats.reject(RejectReason::kBusy);
    HttpReply busy = json_reply(503, {{"error", "too many requests in progress; retry later"}});
    busy.headers.emplace_back("Retry-After", "1");
    ctx.reply = std::move(busy);
    MHD_resume_connection(connection);
  }
  return MHD_YES;
}

MHD_Result HttpServer::Impl::builtin(MHD_Connection* connection, std::string_view path, RequestContext& ctx) {
  if (ConnectionDeadlines::Connection* tracking = tracked(connection)) {
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
    const auto param = [connection](std::string_view name) -> std::optional<std::string_view> {
      const char* value = nullptr;
      std::size_t size = 0;
      if (MHD_lookup_connection_value_n(connection, MHD_GET_ARGUMENT_KIND, name.data(), name.size(), &value,
                                        &size) != MHD_YES)
        return std::nullopt;
      return value == nullptr ? std::string_view() : std::string_view(value, size);
    };
    // A bad parameter, or a GPU the snapshot lacks, is the client's error (400), never the server's.
    HttpReply reply;
    try {
      const GpusSelection selection = parse_gpus_selection(param("processes"), param("gpu"));
      reply = json_reply(200, snapshot_to_json(*snapshot, owner.options_.health_settings, selection));
    } catch (const std::invalid_argument& e) {
      reply = json_reply(400, {{"error", echoed(e.what())}});
    }
    return send_reply(connection, std::move(reply));
  }
  return send_reply(connection, HttpReply{200, "text/html; charset=utf-8", index, {}});
}

MHD_Result HttpServer::Impl::metrics(MHD_Connection* connection) {
  MetricNaming naming = owner.naming_.load();
  if (const char* value = MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, "naming")) {
    const std::string_view v(value);
    if (v == "dcgm") {
      naming = MetricNaming::kDcgm;
    } else if (v == "native") {
      naming = MetricNaming::kNative;
    } else {
      return send_reply(
          connection,
          json_reply(400, {{"error", "naming must be dcgm or native, not \"" + echoed(v) + "\""}}));
    }
  }
  RenderVariant variant;
  variant.naming = naming;
  if (header_accepts(lookup(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT),
                     "application/openmetrics-text")) {
    variant.format = ExpositionFormat::kOpenMetrics;
  }
  variant.gzip = header_accepts(lookup(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING), "gzip");
  const Rendering r = cache.get(owner.latest_(), variant);
  ResponsePtr response = make_response(r.body);
  if (!response) return MHD_NO;
  MHD_add_response_header(response.get(), MHD_HTTP_HEADER_CONTENT_TYPE, std::string(r.content_type).c_str());
  if (variant.gzip) MHD_add_response_header(response.get(), MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
  MHD_add_response_header(response.get(), MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding");
  return queue(connection, 200, response);
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
  auto impl = std::make_unique<Impl>(options_, *this);
  UniqueFd listener = std::move(bound.socket);
  const int bound_port = bound.address.port;

  const auto accept_policy = +[](void* cls, const sockaddr* addr, socklen_t) -> MHD_Result {
    Impl& self = *static_cast<Impl*>(cls);
    if (self.deadlines.open_connections() >= self.options.max_connections) {
      self.stats.reject(RejectReason::kConnectionLimit);
      return MHD_NO;
    }
    if (self.deadlines.open_from(client_address(addr)) >= self.options.max_connections_per_client) {
      self.stats.reject(RejectReason::kClientConnectionLimit);
      return MHD_NO;
    }
    return MHD_YES;
  };
  const auto on_connection = +[](void* cls, MHD_Connection* connection, void** socket_context,
                                 MHD_ConnectionNotificationCode code) {
    Impl& self = *static_cast<Impl*>(cls);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
      const MHD_ConnectionInfo* fd = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
      const MHD_ConnectionInfo* addr =
          MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
      *socket_context =
          self.deadlines.open(fd == nullptr ? -1 : fd->connect_fd,
                              addr == nullptr ? std::string() : client_address(addr->client_addr));
      ++self.stats.connections;
    } else if (*socket_context != nullptr) {
      self.deadlines.close(static_cast<ConnectionDeadlines::Connection*>(*socket_context));
      *socket_context = nullptr;
      --self.stats.connections;
    }
  };
  const auto on_completed =
      +[](void*, MHD_Connection* connection, void** request_cls, MHD_RequestTerminationCode) {
        std::unique_ptr<RequestContext> done(static_cast<RequestContext*>(*request_cls));
        *request_cls = nullptr;
        if (ConnectionDeadlines::Connection* tracking = tracked(connection)) {
          tracking->enter(ConnectionDeadlines::Phase::kIdle);
        }
      };
  // The request line of a request on a kept-alive connection starts its header deadline (on a new
  // connection it started at accept).
  const auto on_uri = +[](void*, const char*, MHD_Connection* connection) -> void* {
    ConnectionDeadlines::Connection* tracking = tracked(connection);
    if (tracking != nullptr && tracking->phase() == ConnectionDeadlines::Phase::kIdle) {
      tracking->enter(ConnectionDeadlines::Phase::kHeaders);
    }
    return nullptr;
  };

  const auto idle_seconds = static_cast<unsigned>(
      std::max<std::chrono::milliseconds::rep>(1, (options_.idle_timeout.count() + 999) / 1000));
  // The library's pool holds the request line and headers: room for the largest we accept (which we check
  // ourselves, to answer 431 and count it) and for the reply's headers.
  const std::size_t memory_limit = options_.max_header_bytes * 2 + 64 * 1024;
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC;
  // TLS through GnuTLS; with a client CA the library asks each client for its certificate, which
  // authenticate() then checks as the web configuration says.
  std::vector<MHD_OptionItem> tls;
  if (options_.web && options_.web->tls()) {
    flags |= MHD_USE_TLS;
    tls.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, const_cast<char*>(options_.web->key_pem.c_str())});
    tls.push_back({MHD_OPTION_HTTPS_MEM_CERT, 0, const_cast<char*>(options_.web->cert_pem.c_str())});
    if (!options_.web->client_ca_pem.empty())
      tls.push_back({MHD_OPTION_HTTPS_MEM_TRUST, 0, const_cast<char*>(options_.web->client_ca_pem.c_str())});
  }
  tls.push_back({MHD_OPTION_END, 0, nullptr});
  Impl* self = impl.get();
  MHD_Daemon* daemon = MHD_start_daemon(
      flags, 0, accept_policy, self, &Impl::access, self,                                        //
      MHD_OPTION_LISTEN_SOCKET, static_cast<MHD_socket>(listener.get()),                         //
      MHD_OPTION_THREAD_POOL_SIZE, static_cast<unsigned>(std::max(1U, options_.event_threads)),  //
      MHD_OPTION_CONNECTION_LIMIT, static_cast<unsigned>(options_.max_connections + 16),         //
      MHD_OPTION_CONNECTION_TIMEOUT, idle_seconds,                                               //
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,                                          //
      MHD_OPTION_NOTIFY_CONNECTION, on_connection, self,                                         //
      MHD_OPTION_NOTIFY_COMPLETED, on_completed, self,                                           //
      MHD_OPTION_URI_LOG_CALLBACK, on_uri, self,                                                 //
      MHD_OPTION_ARRAY, tls.data(),                                                              //
      MHD_OPTION_END);
  if (daemon == nullptr) {
    throw std::runtime_error("the server on " + options_.listen + " could not start its event loop");
  }
  listener.release();  // the daemon closes it when it stops
  impl->daemon.reset(daemon);
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
  impl->daemon.reset();
}

std::vector<Family> HttpServer::self_families() const {
  std::lock_guard lock(impl_mu_);
  if (!impl_) return {};
  return impl_->stats.families(impl_->pool.running(), impl_->pool.queued());
}

}  // namespace gpuwatch
