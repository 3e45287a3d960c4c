// The HTTP server's event loop for plain HTTP on Boost.Beast (header-only) and Asio: the module
// gpuwatch-http-server.so (http/event_loop.h). It maps no TLS library, so an agent serving plain HTTP pays
// for none (TLS is the libmicrohttpd loop of gpuwatch-tls-server.so). Like that loop it translates a
// connection's life to RequestHandler's callbacks, one for one, and decides nothing itself: what the server
// answers, and when it refuses, is http_server.cpp's.
//
// Each of `threads` threads runs its own connections (http/event_loop.h's settings), one handler at a time. A
// connection reads one request at a time: the request line's first bytes, the headers (at most `memory_limit`
// bytes, else 431), then the body in pieces, each handed to the handler as it arrives; it reads nothing while
// the handler has it suspended, and reads the next request (kept alive, or pipelined) only once the reply is
// written.
//
// Reads have no timer of their own: the server's deadlines (http/connection_deadlines.h) bound the headers,
// the body and the wait between requests, and cut the socket when one is over, which ends the read. A timer
// armed and cancelled around every read would cost each request a few system calls. Writes, which no deadline
// watches (a client that stops reading its reply), end after `idle_seconds`.
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <limits>
#include <mutex>
#include <thread>
#include <type_traits>
#include <unordered_map>

#include "http/event_loop.h"
#include "http/form_params.h"
#include "net/url.h"

namespace gpuwatch::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using Parser = beast::http::request_parser<beast::http::buffer_body>;

constexpr std::size_t kBodyPiece = std::size_t{16} * 1024;
// What a kept-alive connection's read buffer may keep between requests.
constexpr std::size_t kKeptBuffer = std::size_t{64} * 1024;
// After a reply that ends the connection with the request's body unread, what is still sent is read and
// dropped for this long (or this much) before the socket closes: closing with unread bytes would reset the
// connection, and the client could lose the reply.
constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr std::size_t kLingerBytes = std::size_t{1024} * 1024;

// RFC 9110's IMF-fixdate, without the locale strftime would use.
std::string http_date(std::time_t now) {
  static constexpr std::array<const char*, 7> kDays{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr std::array<const char*, 12> kMonths{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char text[40];
  std::snprintf(text, sizeof text, "%s, %02d %s %04d %02d:%02d:%02d GMT",
                kDays[static_cast<std::size_t>(tm.tm_wday)], tm.tm_mday,
                kMonths[static_cast<std::size_t>(tm.tm_mon)], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  return text;
}

bool has_token(beast::string_view list, beast::string_view token) {
  return beast::http::token_list(list).exists(token);
}

// The completion condition of a reply's write: all of it, in one system call where the socket takes it
// (Asio's own sends 64 KiB a call: two for a /metrics body).
std::size_t all_at_once(const beast::error_code& ec, std::size_t) {
  return ec ? 0 : std::numeric_limits<std::size_t>::max();
}

// A status that carries no body and no Content-Length (RFC 9110 6.4.1).
bool bodiless(int status) {
  return status < 200 || status == 204 || status == 304;
}

class Loop;

class Connection final : public ServerConnection, public std::enable_shared_from_this<Connection> {
 public:
  Connection(Loop& loop, tcp::socket socket, std::string client)
      : loop_(loop), stream_(std::move(socket)), client_(std::move(client)) {}

  void start();
  // The connection's end: the handler hears of its request (if one is open) and of the close, once.
  void finish();

  // ServerConnection, during a handler's call on this connection's thread.
  std::optional<std::string_view> header(std::string_view name) const override {
    const auto& fields = parser_->get();
    const auto it = fields.find(beast::string_view(name.data(), name.size()));
    if (it == fields.end()) return std::nullopt;
    return std::string_view(it->value().data(), it->value().size());
  }
  std::optional<std::string_view> param(std::string_view name) const override {
    const auto it = params_.find(std::string(name));
    if (it == params_.end()) return std::nullopt;
    return it->second;
  }
  void headers(std::multimap<std::string, std::string>& out) const override {
    for (const auto& field : parser_->get())
      out.emplace(std::string(field.name_string()), std::string(field.value()));
  }
  void params(std::multimap<std::string, std::string>& out) const override {
    out.insert(params_.begin(), params_.end());
  }
  HeadSize head_size() const override {
    HeadSize size;
    for (const auto& field : parser_->get()) {
      ++size.fields;
      size.bytes += field.name_string().size() + field.value().size() + 4;
    }
    for (const auto& [k, v] : params_) size.bytes += k.size() + v.size() + 4;
    return size;
  }
  std::string client_address() const override { return client_; }
  void* socket_context() const override { return context_; }
  std::string certificate_problem(ClientAuth mode) const override {
    return mode == ClientAuth::kNone || mode == ClientAuth::kRequest ? "" : "no TLS session";
  }
  void suspend() override { suspended_ = true; }
  std::function<void()> resumer() override {
    return [self = shared_from_this()] {
      asio::post(self->stream_.get_executor(), [self] { self->resumed(); });
    };
  }
  bool reply(int status, std::shared_ptr<const std::string> body,
             const std::vector<std::pair<std::string, std::string>>& headers) override;

 private:
  void read_request();
  void on_first_bytes(beast::error_code ec, std::size_t n);
  void read_headers();
  void on_headers(beast::error_code ec);
  void read_body();
  void on_body(beast::error_code ec);
  void resumed();
  // One call of the handler's request(): false when the connection is to close. Then it answers, waits to be
  // resumed, or reads on, as the handler left it.
  bool call_handler(const char* upload, std::size_t size);
  void go_on();
  void send_continue();
  void write_reply();
  void on_written(beast::error_code ec);
  // A reply the server makes itself, for a request the handler never sees (a malformed one, one whose
  // headers exceed the limit); the connection closes after it.
  void refuse(int status, std::string_view why);
  void linger();
  void on_lingered(beast::error_code ec, std::size_t n);

  struct PendingReply {
    int status = 0;
    std::shared_ptr<const std::string> body;
    std::string head;
  };

  Loop& loop_;
  beast::tcp_stream stream_;
  const std::string client_;
  void* context_ = nullptr;  // what connection_opened returned: start() runs before anything else
  bool finished_ = false;
  beast::flat_buffer buffer_;
  std::optional<Parser> parser_;  // the request being read, from its headers to its reply
  std::multimap<std::string, std::string> params_;
  std::string url_;
  std::string method_;
  void* request_state_ = nullptr;
  bool request_open_ = false;  // between the handler's first call and completed()
  bool suspended_ = false;
  bool close_after_ = false;
  std::optional<PendingReply> pending_;
  std::vector<char> piece_;
  std::size_t lingered_ = 0;
};

class Loop final : public EventLoop {
 public:
  Loop(const EventLoopSettings& settings, RequestHandler& handler)
      : settings_(settings), handler_(handler), contexts_(one_per_thread(settings.threads)) {}

  // Takes the listening socket (closed by the destructor from then on) and starts the threads.
  void start(tcp protocol) {
    acceptor_.assign(protocol, settings_.listen_fd);
    accept();
    for (auto& context : contexts_) {
      // A context with no connection yet still runs: it waits for the first one accepted onto it.
      threads_.emplace_back([&context = *context, work = asio::make_work_guard(*context)] { context.run(); });
    }
  }

  ~Loop() override {
    for (auto& context : contexts_) context->stop();
    for (std::thread& t : threads_) t.join();
    beast::error_code ignored;
    acceptor_.close(ignored);
    // No handler runs any more: every connection still open ends here, on this thread.
    std::unordered_map<Connection*, std::shared_ptr<Connection>> open;
    {
      std::lock_guard lock(mu_);
      open.swap(open_);
    }
    for (auto& [_, connection] : open) connection->finish();
  }
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  const EventLoopSettings& settings() const { return settings_; }
  RequestHandler& handler() { return handler_; }
  void forget(Connection* connection) {
    std::lock_guard lock(mu_);
    open_.erase(connection);
  }

 private:
  // Each thread runs a context of its own, and a connection lives on one, given in turn at accept: its
  // handlers never run at once, with no strand to pass through and no other thread to wake.
  static std::vector<std::unique_ptr<asio::io_context>> one_per_thread(unsigned threads) {
    std::vector<std::unique_ptr<asio::io_context>> contexts;
    for (unsigned i = 0; i < std::max(1U, threads); ++i)
      contexts.push_back(std::make_unique<asio::io_context>(1));
    return contexts;
  }

  void accept() {
    asio::io_context& next = *contexts_[next_context_];
    next_context_ = (next_context_ + 1) % contexts_.size();
    acceptor_.async_accept(next, [this](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (ec) {
        // Out of descriptors, say: try again shortly rather than spin.
        retry_.expires_after(std::chrono::milliseconds(100));
        retry_.async_wait([this](beast::error_code wait) {
          if (!wait) accept();
        });
        return;
      }
      admit(std::move(socket));
      accept();
    });
  }

  void admit(tcp::socket socket) {
    beast::error_code ec;
    const tcp::endpoint peer = socket.remote_endpoint(ec);
    if (ec) return;  // gone already
    std::string client = peer.address().to_string();
    {
      std::lock_guard lock(mu_);
      if (settings_.connection_limit > 0 && open_.size() >= settings_.connection_limit) return;
    }
    if (!handler_.admit(client)) return;  // the socket closes as it goes out of scope
    auto connection = std::make_shared<Connection>(*this, std::move(socket), std::move(client));
    {
      std::lock_guard lock(mu_);
      open_.emplace(connection.get(), connection);
    }
    // Opened here, before the next accept, so that admit() counts it: nothing else runs on it yet.
    connection->start();
  }

  const EventLoopSettings settings_;
  RequestHandler& handler_;
  std::vector<std::unique_ptr<asio::io_context>> contexts_;  // before what is made on the first of them
  std::size_t next_context_ = 0;                             // the accepting thread's only
  tcp::acceptor acceptor_{*contexts_.front()};
  asio::steady_timer retry_{*contexts_.front()};
  std::mutex mu_;
  std::unordered_map<Connection*, std::shared_ptr<Connection>> open_;
  std::vector<std::thread> threads_;
};

void Connection::start() {
  context_ = loop_.handler().connection_opened(stream_.socket().native_handle(), client_);
  read_request();
}

void Connection::finish() {
  if (finished_) return;
  finished_ = true;
  RequestHandler& handler = loop_.handler();
  if (request_open_) {
    request_open_ = false;
    handler.completed(context_, &request_state_);
  }
  // Told before the socket closes: the server's deadlines watch the descriptor until then.
  handler.connection_closed(context_);
  beast::error_code ignored;
  stream_.socket().close(ignored);
  loop_.forget(this);  // may drop the last reference but one: the caller's handler still holds it
}

// A kept-alive connection waits for the next request's first bytes (pipelined ones may be here already);
// they start its header deadline.
void Connection::read_request() {
  if (buffer_.size() > 0) return read_headers();
  stream_.expires_never();  // reads are bounded by the server's deadlines (see the top of this file)
  stream_.async_read_some(
      buffer_.prepare(4096),
      [self = shared_from_this()](beast::error_code ec, std::size_t n) { self->on_first_bytes(ec, n); });
}

void Connection::on_first_bytes(beast::error_code ec, std::size_t n) {
  if (ec) return finish();
  buffer_.commit(n);
  read_headers();
}

void Connection::read_headers() {
  loop_.handler().request_line(context_);
  parser_.emplace();
  parser_->header_limit(
      static_cast<std::uint32_t>(std::min<std::size_t>(loop_.settings().memory_limit, UINT32_MAX)));
  // The handler counts a body against its own limits. No limit here: not boost::none, which Boost 1.74's
  // parser compares as smaller than any Content-Length.
  parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
  stream_.expires_never();  // reads are bounded by the server's deadlines (see the top of this file)
  beast::http::async_read_header(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_headers(ec); });
}

void Connection::on_headers(beast::error_code ec) {
  if (ec) {
    if (ec == beast::http::error::header_limit) return refuse(431, "Request Header Fields Too Large");
    // The parser's other errors are the request's: a malformed one is answered. The socket's end (before or
    // within a request), or a timeout, leaves no one to answer.
    namespace errors = beast::http;
    const bool malformed = ec.category() == errors::make_error_code(errors::error::bad_method).category() &&
                           ec != errors::error::end_of_stream && ec != errors::error::partial_message;
    return malformed ? refuse(400, "Bad Request") : finish();
  }
  const auto& request = parser_->get();
  const std::string_view target(request.target().data(), request.target().size());
  const auto question = target.find('?');
  url_ = net::percent_decode(target.substr(0, question));
  params_.clear();
  if (question != std::string_view::npos) parse_form(target.substr(question + 1), params_);
  method_ = std::string(request.method_string());
  close_after_ = !request.keep_alive();
  request_open_ = true;
  if (!call_handler(nullptr, 0)) return finish();
  if (pending_) {
    // A refusal before the body is read: what the client still sends is not read.
    if (!parser_->is_done()) close_after_ = true;
    return write_reply();
  }
  if (suspended_) return;
  if (!parser_->is_done() && request.version() == 11 &&
      has_token(request[beast::http::field::expect], "100-continue"))
    return send_continue();
  go_on();
}

bool Connection::call_handler(const char* upload, std::size_t size) {
  try {
    return loop_.handler().request(*this, url_, method_, upload, &size, &request_state_);
  } catch (...) {
    return false;  // the handler's failure ends this connection only
  }
}

// After a call that neither answered nor suspended: the body's next piece, or its end.
void Connection::go_on() {
  if (!parser_->is_done()) return read_body();
  // The body is in: this call answers or suspends.
  if (!call_handler(nullptr, 0)) return finish();
  if (pending_) return write_reply();
  if (!suspended_) return finish();  // neither: nothing would ever answer it
}

void Connection::send_continue() {
  static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
  stream_.expires_after(std::chrono::seconds(loop_.settings().idle_seconds));
  asio::async_write(stream_, asio::buffer(kContinue.data(), kContinue.size()),
                    [self = shared_from_this()](beast::error_code ec, std::size_t) {
                      if (ec) return self->finish();
                      self->go_on();
                    });
}

void Connection::read_body() {
  piece_.resize(kBodyPiece);
  auto& body = parser_->get().body();
  body.data = piece_.data();
  body.size = piece_.size();
  stream_.expires_never();  // reads are bounded by the server's deadlines (see the top of this file)
  beast::http::async_read_some(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_body(ec); });
}

void Connection::on_body(beast::error_code ec) {
  if (ec && ec != beast::http::error::need_buffer) return finish();
  const std::size_t got = piece_.size() - parser_->get().body().size;
  if (got > 0) {
    if (!call_handler(piece_.data(), got)) return finish();
    if (pending_) {
      close_after_ = true;  // refused mid-body (too large): the rest is not read
      return write_reply();
    }
    if (suspended_) return;  // the handler's interface suspends only once the body is in; kept for symmetry
  }
  go_on();
}

void Connection::resumed() {
  if (finished_) return;
  suspended_ = false;
  if (!call_handler(nullptr, 0)) return finish();
  if (pending_) return write_reply();
  if (!suspended_) finish();
}

bool Connection::reply(int status, std::shared_ptr<const std::string> body,
                       const std::vector<std::pair<std::string, std::string>>& headers) {
  if (pending_ || status < 100 || status > 999) return false;
  PendingReply r;
  r.status = status;
  r.head = "HTTP/1.1 " + std::to_string(status) + " ";
  const auto reason = beast::http::obsolete_reason(static_cast<beast::http::status>(status));
  r.head.append(reason.data(), reason.size());
  r.head += "\r\n";
  for (const auto& [k, v] : headers) {
    // A header line is the handler's; a CR or LF in it would split the reply.
    if (k.find_first_of("\r\n:") != std::string::npos || v.find_first_of("\r\n") != std::string::npos)
      continue;
    r.head += k;
    r.head += ": ";
    r.head += v;
    r.head += "\r\n";
  }
  if (!bodiless(status)) r.head += "Content-Length: " + std::to_string(body ? body->size() : 0) + "\r\n";
  r.head += "Date: " + http_date(std::time(nullptr)) + "\r\n";
  r.body = std::move(body);
  pending_ = std::move(r);
  return true;
}

void Connection::write_reply() {
  PendingReply& r = *pending_;
  const auto& request = parser_->get();
  if (close_after_) {
    r.head += "Connection: close\r\n";
  } else if (request.version() == 10) {
    r.head += "Connection: keep-alive\r\n";
  }
  r.head += "\r\n";
  std::array<asio::const_buffer, 2> buffers{asio::buffer(r.head), asio::const_buffer()};
  if (r.body && method_ != "HEAD" && !bodiless(r.status)) buffers[1] = asio::buffer(*r.body);
  stream_.expires_after(std::chrono::seconds(loop_.settings().idle_seconds));
  asio::async_write(stream_, buffers, all_at_once,
                    [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_written(ec); });
}

void Connection::on_written(beast::error_code ec) {
  pending_.reset();
  if (request_open_) {  // not for a refusal, whose request the handler never saw
    request_open_ = false;
    loop_.handler().completed(context_, &request_state_);
  }
  if (ec) return finish();
  if (close_after_) return linger();
  parser_.reset();
  // A kept-alive connection holds only what its next request needs: not the room a large one took.
  if (piece_.capacity() > 0) {
    piece_.clear();
    piece_.shrink_to_fit();
  }
  if (buffer_.size() == 0 && buffer_.capacity() > kKeptBuffer) buffer_.shrink_to_fit();
  read_request();
}

void Connection::refuse(int status, std::string_view why) {
  close_after_ = true;
  method_.clear();  // whatever the request line said: the refusal has its body
  reply(status, std::make_shared<const std::string>(std::string(why) + "\n"),
        {{"Content-Type", "text/plain; charset=utf-8"}});
  write_reply();
}

void Connection::linger() {
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
  buffer_.clear();
  stream_.expires_after(kLingerTime);
  stream_.async_read_some(
      buffer_.prepare(kBodyPiece),
      [self = shared_from_this()](beast::error_code ec, std::size_t n) { self->on_lingered(ec, n); });
}

void Connection::on_lingered(beast::error_code ec, std::size_t n) {
  lingered_ += n;
  if (ec || lingered_ > kLingerBytes) return finish();
  stream_.async_read_some(
      buffer_.prepare(kBodyPiece),
      [self = shared_from_this()](beast::error_code e, std::size_t m) { self->on_lingered(e, m); });
}

}  // namespace
}  // namespace gpuwatch::http

extern "C" void gpuwatch_http_server_open_v1(const gpuwatch::http::EventLoopSettings& settings,
                                             gpuwatch::http::RequestHandler& handler,
                                             std::unique_ptr<gpuwatch::http::EventLoop>* out,
                                             std::string* error) {
  using namespace gpuwatch::http;
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  if (::getsockname(settings.listen_fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0 ||
      (bound.ss_family != AF_INET && bound.ss_family != AF_INET6)) {
    *error = "its listening socket is not a TCP socket";
    return;
  }
  try {
    auto loop = std::make_unique<Loop>(settings, handler);
    loop->start(bound.ss_family == AF_INET6 ? tcp::v6() : tcp::v4());
    *out = std::move(loop);
  } catch (const std::exception& e) {
    *error = std::string("could not start its event loop: ") + e.what();
  }
}

// The type the loader casts the symbol to is the one this definition has.
static_assert(std::is_same_v<decltype(gpuwatch_http_server_open_v1), gpuwatch::http::OpenEventLoop>);
