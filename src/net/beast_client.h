// The HTTP/1.1 exchange over Boost.Beast that both clients share: the binary's plain one (plain_client.cpp)
// and the TLS module's (tls_client_module.cpp). Resolve and connect within the connect timeout, write, read
// the answer a piece at a time, every step within its own deadline and the whole request's. Included by those
// two files only, so that Beast's templates are compiled there and nowhere else.
#pragma once

#include <array>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <limits>
#include <memory>

#include "net/http_client.h"

namespace gpuwatch::net::beast_client {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using boost::system::error_code;

// Runs one asynchronous operation at a time on the calling thread, until it completes, its deadline passes or
// abort() is called (from any thread); abort is for good.
class Runner {
 public:
  enum class Outcome { kDone, kTimedOut, kAborted };

  asio::io_context& io() { return io_; }
  void abort() {
    aborted_ = true;
    io_.stop();
  }
  bool aborted() const { return aborted_; }

  // start(handler) begins the operation; cancel() makes a pending one complete at once (closing the socket).
  // The operation's handler has run when this returns, so nothing it uses is touched later.
  template <typename Start, typename Cancel>
  Outcome run(Clock::time_point deadline, error_code& ec, Start&& start, Cancel&& cancel) {
    bool done = false;
    io_.restart();
    if (aborted_) return Outcome::kAborted;
    start([&](error_code e, auto&&...) {
      ec = e;
      done = true;
    });
    io_.run_until(deadline);
    if (done) return Outcome::kDone;
    cancel();
    while (!done) {  // the handler, with operation_aborted; abort() may stop a run, so again until it ran
      io_.restart();
      io_.run_one();
    }
    return aborted_ ? Outcome::kAborted : Outcome::kTimedOut;
  }

 private:
  asio::io_context io_{1};
  std::atomic<bool> aborted_{false};
};

inline std::string milliseconds_text(Clock::duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()) + " ms";
}

// A Transport says what a connection is:
//   using Stream = ...;                        what requests are written to (lowest_layer(): the socket)
//   static constexpr bool kTls;                with kTls:
//     void start_handshake(Stream&, const std::string& host, Handler);   the client's TLS handshake
//     std::string explain(const error_code&) const;                      what a TLS error means
//   std::unique_ptr<Stream> make(asio::io_context&);
//   bool truncated(const error_code&) const;   the peer closed without TLS's close_notify
template <typename Transport>
class Client final : public HttpClient {
 public:
  Client(Url origin, ClientOptions options, Transport transport)
      : origin_(std::move(origin)), options_(std::move(options)), transport_(std::move(transport)) {}

  Result send(const Request& request) override {
    Result result;
    const auto now = Clock::now();
    const auto total = options_.timeouts.total;
    // No bound: a day, which no step waits for.
    deadline_ = now + (total.count() > 0 ? Clock::duration(total) : Clock::duration(std::chrono::hours(24)));
    const std::string where = describe(origin_, request);
    bool reused = stream_ != nullptr;
    for (;;) {
      Failure failure;
      bool answered = false;  // a byte of the answer came: sending again could repeat what the server did
      if (!stream_) failure = connect();
      if (failure.kind == Failure::Kind::kNone) failure = exchange(request, result.response, answered);
      if (failure.kind == Failure::Kind::kNone) return result;
      close();
      // A kept-alive connection the server closed meanwhile: once more on a fresh one.
      if (reused && !answered && failure.kind == Failure::Kind::kIo) {
        reused = false;
        result.response = Response{};
        continue;
      }
      result.failure = {failure.kind, where + ": " + failure.message};
      return result;
    }
  }

  void abort() override { runner_.abort(); }

 private:
  using Stream = typename Transport::Stream;

  // How long a step that may take `limit` may wait, and what its timeout says when it passes.
  Clock::time_point step_deadline(std::chrono::milliseconds limit) const {
    return std::min(deadline_, Clock::now() + Clock::duration(limit));
  }
  Failure timeout(std::chrono::milliseconds limit, const std::string& what) const {
    if (Clock::now() >= deadline_ - std::chrono::milliseconds(1) && options_.timeouts.total.count() > 0)
      return {Failure::Kind::kTimeout, "timeout after " + std::to_string(options_.timeouts.total.count()) +
                                           " ms (the whole request) " + what};
    return {Failure::Kind::kTimeout, "timeout after " + std::to_string(limit.count()) + " ms " + what};
  }
  Failure stopped(Runner::Outcome outcome, std::chrono::milliseconds limit, const std::string& what) const {
    if (outcome == Runner::Outcome::kAborted) return {Failure::Kind::kAborted, "aborted " + what};
    return timeout(limit, what);
  }

  Failure connect() {
    const auto limit = options_.timeouts.connect;
    const auto deadline = step_deadline(limit);
    const std::string peer = origin_.host + ":" + std::to_string(origin_.port);
    tcp::resolver resolver(runner_.io());
    tcp::resolver::results_type endpoints;
    error_code ec;
    auto outcome = runner_.run(
        deadline, ec,
        [&](auto handler) {
          resolver.async_resolve(origin_.host, std::to_string(origin_.port),
                                 [&, handler](error_code e, tcp::resolver::results_type r) mutable {
                                   endpoints = std::move(r);
                                   handler(e);
                                 });
        },
        [&] { resolver.cancel(); });
    if (outcome != Runner::Outcome::kDone) return stopped(outcome, limit, "resolving " + origin_.host);
    if (ec) return {Failure::Kind::kConnect, "cannot resolve " + origin_.host + ": " + ec.message()};

    stream_ = transport_.make(runner_.io());
    buffer_.clear();
    outcome = runner_.run(
        deadline, ec, [&](auto handler) { asio::async_connect(stream_->lowest_layer(), endpoints, handler); },
        [&] { close_socket(); });
    if (outcome != Runner::Outcome::kDone) return stopped(outcome, limit, "connecting to " + peer);
    if (ec == asio::error::connection_refused)
      return {Failure::Kind::kConnect, "connection refused by " + peer};
    if (ec) return {Failure::Kind::kConnect, "cannot connect to " + peer + ": " + ec.message()};
    if constexpr (Transport::kTls) {
      outcome = runner_.run(
          deadline, ec, [&](auto handler) { transport_.start_handshake(*stream_, origin_.host, handler); },
          [&] { close_socket(); });
      if (outcome != Runner::Outcome::kDone)
        return stopped(outcome, limit, "in the TLS handshake with " + peer);
      if (ec) return {Failure::Kind::kTls, "TLS handshake with " + peer + ": " + transport_.explain(ec)};
    }
    return {};
  }

  Failure exchange(const Request& request, Response& response, bool& answered) {
    const auto limit = options_.timeouts.io;
    http::request<http::string_body> req;
    const http::verb verb = http::string_to_verb(request.method);
    if (verb == http::verb::unknown) {
      req.method_string(request.method);
    } else {
      req.method(verb);
    }
    req.target(request.target);
    req.version(11);
    req.set(http::field::host, origin_.host_header());
    for (const auto& [name, value] : options_.default_headers) req.insert(name, value);
    for (const auto& [name, value] : request.headers) req.insert(name, value);
    req.keep_alive(options_.keep_alive);
    req.body() = request.body;
    if (!request.body.empty() || verb == http::verb::post || verb == http::verb::put) req.prepare_payload();

    error_code ec;
    auto outcome = runner_.run(
        step_deadline(limit), ec, [&](auto handler) { http::async_write(*stream_, req, handler); },
        [&] { close_socket(); });
    if (outcome != Runner::Outcome::kDone) return stopped(outcome, limit, "sending the request");
    if (ec) return {Failure::Kind::kIo, "sending the request: " + ec.message()};

    http::response_parser<http::buffer_body> parser;
    parser.header_limit(64 * 1024);
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());  // bounded below, with the caller's limit
    outcome = runner_.run(
        step_deadline(limit), ec,
        [&](auto handler) { http::async_read_header(*stream_, buffer_, parser, handler); },
        [&] { close_socket(); });
    if (outcome != Runner::Outcome::kDone) return stopped(outcome, limit, "waiting for the answer");
    if (ec == http::error::end_of_stream || ec == asio::error::connection_reset || ec == asio::error::eof)
      return {Failure::Kind::kIo, "the connection closed before an answer"};
    if (ec) return {Failure::Kind::kProtocol, "reading the answer's header: " + ec.message()};
    answered = true;

    response.status = static_cast<int>(parser.get().result_int());
    for (const auto& field : parser.get())
      response.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    if (request.on_headers) request.on_headers(response);

    std::size_t received = 0;
    while (!parser.is_done()) {
      parser.get().body().data = chunk_.data();
      parser.get().body().size = chunk_.size();
      outcome = runner_.run(
          step_deadline(limit), ec,
          [&](auto handler) { http::async_read(*stream_, buffer_, parser, handler); },
          [&] { close_socket(); });
      if (outcome != Runner::Outcome::kDone) return stopped(outcome, limit, "reading the body");
      if (ec == http::error::need_buffer) ec = {};
      if (ec && transport_.truncated(ec) && parser.need_eof()) {
        ec = {};
        parser.put_eof(ec);
      }
      if (ec) return {Failure::Kind::kIo, "reading the body: " + ec.message()};
      const std::size_t n = chunk_.size() - parser.get().body().size;
      received += n;
      if (options_.max_body_bytes != 0 && received > options_.max_body_bytes)
        return {Failure::Kind::kBodyTooLarge,
                "the body is longer than " + std::to_string(options_.max_body_bytes) + " bytes"};
      const std::string_view piece(chunk_.data(), n);
      if (request.on_body) {
        if (n > 0 && !request.on_body(piece)) return {Failure::Kind::kStopped, "stopped reading the body"};
      } else {
        response.body.append(piece);
      }
    }
    if (!options_.keep_alive || !parser.get().keep_alive()) close();
    return {};
  }

  void close_socket() {
    error_code ignored;
    if (stream_) stream_->lowest_layer().close(ignored);
  }
  void close() {
    close_socket();
    stream_.reset();
  }

  Url origin_;
  ClientOptions options_;
  Transport transport_;
  Runner runner_;
  std::unique_ptr<Stream> stream_;  // the open connection, kept between requests with keep_alive
  boost::beast::flat_buffer buffer_;
  std::array<char, 16 * 1024> chunk_{};
  Clock::time_point deadline_;
};

}  // namespace gpuwatch::net::beast_client
