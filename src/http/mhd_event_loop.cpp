// The HTTP server's event loop on libmicrohttpd (event-driven; GnuTLS for TLS): the module
// gpuwatch-http-server.so (http/event_loop.h). It translates the library's callbacks to RequestHandler's and
// a connection to ServerConnection, and decides nothing itself.
#include <arpa/inet.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>
#include <type_traits>

#include "http/event_loop.h"

namespace gpuwatch::http {
namespace {

std::string address_text(const sockaddr* addr) {
  char text[INET6_ADDRSTRLEN] = {};
  if (addr == nullptr) return {};
  if (addr->sa_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(addr)->sin_addr, text, sizeof text);
  } else if (addr->sa_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr, text, sizeof text);
  }
  return text;
}

void* context_of(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return info == nullptr ? nullptr : info->socket_context;
}

std::optional<std::string_view> value_of(MHD_Connection* connection, MHD_ValueKind kind,
                                         std::string_view name) {
  const char* value = nullptr;
  std::size_t size = 0;
  if (MHD_lookup_connection_value_n(connection, kind, name.data(), name.size(), &value, &size) != MHD_YES)
    return std::nullopt;
  return value == nullptr ? std::string_view() : std::string_view(value, size);
}

MHD_Result collect_value(void* cls, MHD_ValueKind, const char* key, const char* value) {
  static_cast<std::multimap<std::string, std::string>*>(cls)->emplace(key, value == nullptr ? "" : value);
  return MHD_YES;
}

MHD_Result add_bytes(void* cls, MHD_ValueKind, const char* key, const char* value) {
  *static_cast<std::size_t*>(cls) += std::strlen(key) + (value == nullptr ? 0 : std::strlen(value)) + 4;
  return MHD_YES;
}

void release_body(void* holder) {
  delete static_cast<std::shared_ptr<const std::string>*>(holder);  // made in Connection::reply
}

class Connection final : public ServerConnection {
 public:
  explicit Connection(MHD_Connection* connection) : connection_(connection) {}

  std::optional<std::string_view> header(std::string_view name) const override {
    return value_of(connection_, MHD_HEADER_KIND, name);
  }
  std::optional<std::string_view> param(std::string_view name) const override {
    return value_of(connection_, MHD_GET_ARGUMENT_KIND, name);
  }
  void headers(std::multimap<std::string, std::string>& out) const override {
    MHD_get_connection_values(connection_, MHD_HEADER_KIND, &collect_value, &out);
  }
  void params(std::multimap<std::string, std::string>& out) const override {
    MHD_get_connection_values(connection_, MHD_GET_ARGUMENT_KIND, &collect_value, &out);
  }
  HeadSize head_size() const override {
    HeadSize size;
    const int fields = MHD_get_connection_values(connection_, MHD_HEADER_KIND, nullptr, nullptr);
    size.fields = fields < 0 ? SIZE_MAX : static_cast<std::size_t>(fields);
    MHD_get_connection_values(connection_, MHD_HEADER_KIND, &add_bytes, &size.bytes);
    MHD_get_connection_values(connection_, MHD_GET_ARGUMENT_KIND, &add_bytes, &size.bytes);
    return size;
  }
  std::string client_address() const override {
    const MHD_ConnectionInfo* info = MHD_get_connection_info(connection_, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == nullptr ? std::string() : address_text(info->client_addr);
  }
  void* socket_context() const override { return context_of(connection_); }
  std::string certificate_problem(ClientAuth mode) const override {
    if (mode == ClientAuth::kNone || mode == ClientAuth::kRequest) return "";
    const MHD_ConnectionInfo* info = MHD_get_connection_info(connection_, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    if (info == nullptr || info->tls_session == nullptr) return "no TLS session";
    auto session = static_cast<gnutls_session_t>(info->tls_session);
    unsigned int count = 0;
    const bool given = gnutls_certificate_get_peers(session, &count) != nullptr && count > 0;
    if (!given) return mode == ClientAuth::kVerifyIfGiven ? "" : "a client certificate is required";
    if (mode == ClientAuth::kRequireAny) return "";
    unsigned int status = 0;
    if (gnutls_certificate_verify_peers2(session, &status) != GNUTLS_E_SUCCESS || status != 0)
      return "the client certificate is not signed by the client CA";
    return "";
  }
  void suspend() override { MHD_suspend_connection(connection_); }
  std::function<void()> resumer() override {
    return [connection = connection_] { MHD_resume_connection(connection); };
  }
  // Over the shared bytes (the cached /metrics rendering), without a copy.
  bool reply(int status, std::shared_ptr<const std::string> body,
             const std::vector<std::pair<std::string, std::string>>& headers) override {
    auto holder = std::make_unique<std::shared_ptr<const std::string>>(std::move(body));
    const std::string& bytes = **holder;
    MHD_Response* response = MHD_create_response_from_buffer_with_free_callback_cls(
        bytes.size(), const_cast<char*>(bytes.data()), &release_body, holder.get());
    if (response == nullptr) return false;
    holder.release();  // the response owns it now; release_body frees it
    for (const auto& [k, v] : headers) MHD_add_response_header(response, k.c_str(), v.c_str());
    const MHD_Result queued = MHD_queue_response(connection_, static_cast<unsigned>(status), response);
    MHD_destroy_response(response);  // the connection holds it until it is sent
    return queued == MHD_YES;
  }

 private:
  MHD_Connection* connection_;
};

MHD_Result yes_if(bool b) {
  return b ? MHD_YES : MHD_NO;
}

MHD_Result accept_policy(void* cls, const sockaddr* addr, socklen_t) {
  return yes_if(static_cast<RequestHandler*>(cls)->admit(address_text(addr)));
}

MHD_Result access(void* cls, MHD_Connection* mhd, const char* url, const char* method,
                  const char* /*version*/, const char* upload, std::size_t* upload_size,
                  void** request_state) {
  Connection connection(mhd);
  return yes_if(static_cast<RequestHandler*>(cls)->request(connection, url, method, upload, upload_size,
                                                           request_state));
}

void on_connection(void* cls, MHD_Connection* connection, void** socket_context,
                   MHD_ConnectionNotificationCode code) {
  auto& handler = *static_cast<RequestHandler*>(cls);
  if (code == MHD_CONNECTION_NOTIFY_STARTED) {
    const MHD_ConnectionInfo* fd = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    *socket_context = handler.connection_opened(fd == nullptr ? -1 : fd->connect_fd,
                                                Connection(connection).client_address());
  } else if (*socket_context != nullptr) {
    handler.connection_closed(*socket_context);
    *socket_context = nullptr;
  }
}

void on_completed(void* cls, MHD_Connection* connection, void** request_state, MHD_RequestTerminationCode) {
  static_cast<RequestHandler*>(cls)->completed(context_of(connection), request_state);
}

void* on_uri(void* cls, const char*, MHD_Connection* connection) {
  static_cast<RequestHandler*>(cls)->request_line(context_of(connection));
  return nullptr;
}

class Loop final : public EventLoop {
 public:
  explicit Loop(MHD_Daemon* daemon) : daemon_(daemon) {}
  ~Loop() override { MHD_stop_daemon(daemon_); }
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

 private:
  MHD_Daemon* daemon_;
};

}  // namespace
}  // namespace gpuwatch::http

extern "C" void gpuwatch_http_server_open_v1(const gpuwatch::http::EventLoopSettings& settings,
                                             gpuwatch::http::RequestHandler& handler,
                                             std::unique_ptr<gpuwatch::http::EventLoop>* out,
                                             std::string* error) {
  using namespace gpuwatch::http;
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC;
  // TLS through GnuTLS; with a client CA the library asks each client for its certificate, which the server
  // then checks as the web configuration says (ServerConnection::certificate_problem).
  std::vector<MHD_OptionItem> tls;
  if (settings.tls != nullptr && settings.tls->tls()) {
    flags |= MHD_USE_TLS;
    tls.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, const_cast<char*>(settings.tls->key_pem.c_str())});
    tls.push_back({MHD_OPTION_HTTPS_MEM_CERT, 0, const_cast<char*>(settings.tls->cert_pem.c_str())});
    if (!settings.tls->client_ca_pem.empty())
      tls.push_back({MHD_OPTION_HTTPS_MEM_TRUST, 0, const_cast<char*>(settings.tls->client_ca_pem.c_str())});
  }
  tls.push_back({MHD_OPTION_END, 0, nullptr});
  RequestHandler* cls = &handler;
  MHD_Daemon* daemon =
      MHD_start_daemon(flags, 0, &accept_policy, cls, &access, cls,                            //
                       MHD_OPTION_LISTEN_SOCKET, static_cast<MHD_socket>(settings.listen_fd),  //
                       MHD_OPTION_THREAD_POOL_SIZE, std::max(1U, settings.threads),            //
                       MHD_OPTION_CONNECTION_LIMIT, settings.connection_limit,                 //
                       MHD_OPTION_CONNECTION_TIMEOUT, settings.idle_seconds,                   //
                       MHD_OPTION_CONNECTION_MEMORY_LIMIT, settings.memory_limit,              //
                       MHD_OPTION_NOTIFY_CONNECTION, &on_connection, cls,                      //
                       MHD_OPTION_NOTIFY_COMPLETED, &on_completed, cls,                        //
                       MHD_OPTION_URI_LOG_CALLBACK, &on_uri, cls,                              //
                       MHD_OPTION_ARRAY, tls.data(),                                           //
                       MHD_OPTION_END);
  if (daemon == nullptr) {
    *error = "could not start its event loop";
    return;
  }
  *out = std::make_unique<Loop>(daemon);
}

// The type the loader casts the symbol to is the one this definition has.
static_assert(std::is_same_v<decltype(gpuwatch_http_server_open_v1), gpuwatch::http::OpenEventLoop>);
