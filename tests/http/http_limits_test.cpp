// The HTTP server's limits and deadlines, each seen from a client: what it is answered, how soon, and that
// the refusal is counted on /metrics.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "http/http_server.h"
#include "raw_client.h"
#include "snapshot_fixture.h"

namespace gpuwatch {
namespace {

using std::chrono::milliseconds;
using testing::RawClient;
using testing::reply_body;
using testing::reply_status;

// A route that holds its worker until released (bounded: it lets go by itself after 10 s).
class Gate {
 public:
  void wait() {
    std::unique_lock lock(mutex_);
    ++waiting_;
    changed_.notify_all();
    changed_.wait_for(lock, std::chrono::seconds(10), [this] { return open_; });
  }
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  bool wait_for_waiters(int n) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(5), [&] { return waiting_ >= n; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int waiting_ = 0;
  bool open_ = false;
};

class LimitsTest : public ::testing::Test {
 protected:
  void start(HttpServerOptions options) {
    options.listen = "127.0.0.1:0";
    options.routes.push_back(HttpRoute{{"GET", "POST"}, "/api/v1/echo", "", [](const HttpRequest& req) {
                                         HttpReply r;
                                         r.content_type = "text/plain";
                                         r.body = std::to_string(req.param("query").size()) + " " +
                                                  req.param("query").substr(0, 16) + " " +
                                                  std::to_string(req.body.size());
                                         return r;
                                       }});
    options.routes.push_back(
        HttpRoute{{"GET"}, "/api/v1/sized", "", [](const HttpRequest& req) {
                    return HttpReply{200, "text/plain", std::string(std::stoul(req.param("bytes")), 'r'), {}};
                  }});
    options.routes.push_back(HttpRoute{{"GET"}, "/api/v1/held", "", [this](const HttpRequest&) {
                                         gate_.wait();
                                         return HttpReply{200, "text/plain", "released", {}};
                                       }});
    options.routes.push_back(
        HttpRoute{{"POST"},
                  "/api/v1/guarded",
                  "",
                  [](const HttpRequest& req) {
                    return HttpReply{200, "text/plain", std::to_string(req.body.size()), {}};
                  },
                  [](const HttpRequest& req) -> std::optional<HttpReply> {
                    if (req.header("Authorization") == "Bearer ok") return std::nullopt;
                    return HttpReply{401, "application/json", "{\"error\":\"no token\"}", {}};
                  },
                  1024});
    server_ = std::make_unique<HttpServer>(
        options,
        [this] {
          std::lock_guard lock(mutex_);
          return snapshot_;
        },
        [] { return true; });
    server_->start();
    ASSERT_GT(server_->port(), 0);
  }

  // The value of a series on /metrics (its name and labels as rendered), or -1. The server's own families are
  // rendered with each snapshot: publish a new one first.
  double value_on_metrics(const std::string& series) {
    {
      std::lock_guard lock(mutex_);
      snapshot_ = std::make_shared<const Snapshot>(gpuwatch::testing::h200_node(++sequence_));
    }
    httplib::Client client("127.0.0.1", server_->port());
    auto r = client.Get("/metrics");
    if (!r) return -1;
    const auto at = r->body.find("\n" + series + " ");
    if (at == std::string::npos) return -1;
    return std::stod(r->body.substr(at + series.size() + 2, 20));
  }
  double rejected(const std::string& reason) {
    return value_on_metrics("gpuwatch_http_requests_rejected_total{reason=\"" + reason + "\"}");
  }

  std::string exchange(const std::string& request, milliseconds timeout = milliseconds(5000)) {
    RawClient client(server_->port());
    EXPECT_TRUE(client.connected());
    client.send(request);
    return client.read_reply(timeout);
  }

  Gate gate_;
  std::mutex mutex_;
  SnapshotPtr snapshot_;
  std::uint64_t sequence_ = 0;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(LimitsTest, TooManyHeadersIs431) {
  HttpServerOptions options;
  options.max_headers = 50;
  start(options);
  std::string request = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 60; ++i) request += "X-Filler-" + std::to_string(i) + ": y\r\n";
  const std::string reply = exchange(request + "\r\n");
  EXPECT_EQ(reply_status(reply), 431) << reply;
  EXPECT_TRUE(nlohmann::json::accept(reply_body(reply))) << reply;
  EXPECT_EQ(rejected("headers_too_large"), 1);
  // Within the limit is fine.
  EXPECT_EQ(reply_status(exchange("GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n\r\n")), 200);
}

TEST_F(LimitsTest, HundredThousandHeadersAreRefusedWithoutHoldingThem) {
  start(HttpServerOptions{});
  RawClient client(server_->port());
  ASSERT_TRUE(client.connected());
  client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n");
  std::string block;
  for (int i = 0; i < 1000; ++i) block += "X-Filler: yyyyyyyy\r\n";
  bool sent_all = true;
  for (int i = 0; i < 100 && sent_all; ++i) sent_all = client.send(block);
  if (sent_all) client.send("\r\n");
  const auto before = std::chrono::steady_clock::now();
  const std::string reply = client.read_reply(milliseconds(5000));
  // The server answers 431 (or, when the client is still sending, only closes), at once: it never serves it.
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(4));
  EXPECT_NE(reply_status(reply), 200) << reply.substr(0, 200);
  if (!reply.empty()) {
    EXPECT_EQ(reply_status(reply), 431) << reply.substr(0, 200);
  }
}

TEST_F(LimitsTest, BodyOverTheLimitIs413BeforeItIsRead) {
  HttpServerOptions options;
  options.max_body_bytes = 64 * 1024;
  start(options);
  // A 1 GiB Content-Length and a one-byte body: a server that waited for the body would never answer.
  const auto before = std::chrono::steady_clock::now();
  const std::string reply = exchange(
      "POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: "
      "1073741824\r\n\r\nx",
      milliseconds(3000));
  const auto took = std::chrono::steady_clock::now() - before;
  EXPECT_EQ(reply_status(reply), 413) << reply;
  EXPECT_LT(took, std::chrono::seconds(2));
  EXPECT_EQ(rejected("body_too_large"), 1);
  // A route's own limit applies to it.
  const std::string small = exchange(
      "POST /api/v1/guarded HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ok\r\nContent-Length: 2000\r\n\r\n" +
      std::string(2000, 'a'));
  EXPECT_EQ(reply_status(small), 413) << small;
}

TEST_F(LimitsTest, ChunkedBodyOverTheLimitIsCutWhileReading) {
  HttpServerOptions options;
  options.max_body_bytes = 4096;
  start(options);
  RawClient client(server_->port());
  ASSERT_TRUE(client.connected());
  client.send("POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
  const std::string chunk = "400\r\n" + std::string(1024, 'z') + "\r\n";
  for (int i = 0; i < 16; ++i) {
    if (!client.send(chunk)) break;
  }
  const std::string reply = client.read_reply(milliseconds(3000));
  // 413 when the library can still answer, else the connection is closed: never the route's reply.
  if (!reply.empty()) {
    EXPECT_EQ(reply_status(reply), 413) << reply;
  }
  EXPECT_EQ(rejected("body_too_large"), 1);
}

TEST_F(LimitsTest, ReplyOverTheLimitIs422) {
  HttpServerOptions options;
  options.max_reply_bytes = 1000;
  start(options);
  httplib::Client client("127.0.0.1", server_->port());
  auto fits = client.Get("/api/v1/sized?bytes=1000");
  ASSERT_TRUE(fits);
  EXPECT_EQ(fits->status, 200);
  EXPECT_EQ(fits->body.size(), 1000u);
  auto large = client.Get("/api/v1/sized?bytes=1001");
  ASSERT_TRUE(large);
  EXPECT_EQ(large->status, 422);
  EXPECT_EQ(nlohmann::json::parse(large->body)["errorType"], "execution");
  EXPECT_EQ(rejected("reply_too_large"), 1);
}

TEST_F(LimitsTest, AdmissionRunsBeforeTheBodyIsRead) {
  start(HttpServerOptions{});
  const auto before = std::chrono::steady_clock::now();
  const std::string reply = exchange(
      "POST /api/v1/guarded HTTP/1.1\r\nHost: x\r\nContent-Length: 1073741824\r\n\r\nx", milliseconds(3000));
  EXPECT_EQ(reply_status(reply), 401) << reply;
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(2));
  const std::string ok = exchange(
      "POST /api/v1/guarded HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ok\r\nContent-Length: 3\r\n\r\nabc");
  EXPECT_EQ(reply_status(ok), 200) << ok;
  EXPECT_EQ(reply_body(ok), "3");
}

TEST_F(LimitsTest, FullWorkerPoolAnswers503AtOnce) {
  HttpServerOptions options;
  options.threads = 1;
  options.queue = 1;
  start(options);
  const int port = server_->port();
  auto held = std::async(std::launch::async, [port] {
    httplib::Client c("127.0.0.1", port);
    auto r = c.Get("/api/v1/held");
    return r ? r->status : -1;
  });
  ASSERT_TRUE(gate_.wait_for_waiters(1));
  auto queued = std::async(std::launch::async, [port] {
    httplib::Client c("127.0.0.1", port);
    auto r = c.Get("/api/v1/held");
    return r ? r->status : -1;
  });
  // The second waits in the queue; the third finds it full. Retried a bounded number of times until the
  // queued one is in (it races with this thread).
  int status = 0;
  for (int i = 0; i < 50 && status != 503; ++i) {
    std::this_thread::sleep_for(milliseconds(20));
    const auto before = std::chrono::steady_clock::now();
    const std::string reply = exchange("GET /api/v1/held HTTP/1.1\r\nHost: x\r\n\r\n", milliseconds(300));
    status = reply_status(reply);
    if (status == 503) {
      EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(1));
      EXPECT_NE(reply.find("Retry-After"), std::string::npos) << reply;
    }
  }
  EXPECT_EQ(status, 503);
  // Scrapes do not wait for the pool.
  httplib::Client c("127.0.0.1", port);
  auto health = c.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  gate_.open();
  EXPECT_EQ(held.get(), 200);
  EXPECT_EQ(queued.get(), 200);
  EXPECT_GE(rejected("busy"), 1);
}

TEST_F(LimitsTest, HalfClosedClientStillGetsItsReply) {
  start(HttpServerOptions{});
  for (const char* path : {"/healthz", "/api/v1/echo?query=up"}) {
    RawClient client(server_->port());
    ASSERT_TRUE(client.connected());
    client.send(std::string("GET ") + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    client.shutdown_write();
    const std::string reply = client.read_reply(milliseconds(3000));
    EXPECT_EQ(reply_status(reply), 200) << path << ": " << reply;
  }
}

// Scrapers reuse their connection: answering must not close it.
TEST_F(LimitsTest, KeptAliveConnectionServesRequestAfterRequest) {
  start(HttpServerOptions{});
  RawClient client(server_->port());
  ASSERT_TRUE(client.connected());
  for (const char* path : {"/metrics", "/healthz", "/api/v1/echo?query=up", "/nope", "/metrics"}) {
    ASSERT_TRUE(client.send(std::string("GET ") + path + " HTTP/1.1\r\nHost: x\r\n\r\n")) << path;
    const std::string reply = client.read_reply(milliseconds(3000));
    EXPECT_NE(reply_status(reply), 0) << path;
    EXPECT_EQ(reply.find("Connection: close"), std::string::npos) << path << ": " << reply.substr(0, 300);
  }
}

// Requests sent together on one connection are answered each in turn, in the order sent.
TEST_F(LimitsTest, PipelinedRequestsAreAnsweredInOrder) {
  start(HttpServerOptions{});
  RawClient client(server_->port());
  ASSERT_TRUE(client.connected());
  ASSERT_TRUE(
      client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                  "POST /api/v1/echo?query=abc HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody"
                  "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n"));
  const std::string first = client.read_reply(milliseconds(3000));
  EXPECT_EQ(reply_status(first), 200) << first;
  EXPECT_EQ(reply_body(first), "ok\n");
  const std::string second = client.read_reply(milliseconds(3000));
  EXPECT_EQ(reply_status(second), 200) << second;
  EXPECT_EQ(reply_body(second), "3 abc 4");
  const std::string third = client.read_reply(milliseconds(3000));
  EXPECT_EQ(reply_status(third), 404) << third;
}

// A client that asks before sending its body (curl does for large uploads) is told to go on, then answered.
TEST_F(LimitsTest, ExpectContinueIsAnsweredBeforeTheBody) {
  start(HttpServerOptions{});
  RawClient client(server_->port());
  ASSERT_TRUE(client.connected());
  ASSERT_TRUE(client.send(
      "POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n"));
  const std::string go_on = client.read_reply(milliseconds(3000));
  ASSERT_EQ(reply_status(go_on), 100) << go_on;
  ASSERT_TRUE(client.send("hello"));
  const std::string reply = client.read_reply(milliseconds(3000));
  EXPECT_EQ(reply_status(reply), 200) << reply;
  EXPECT_EQ(reply_body(reply), "0  5");
}

// HEAD is answered with GET's headers, its Content-Length among them, and no body.
TEST_F(LimitsTest, HeadAnswersTheHeadersWithoutTheBody) {
  start(HttpServerOptions{});
  const std::string reply =
      exchange("HEAD /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", milliseconds(1000));
  EXPECT_EQ(reply_status(reply), 200) << reply;
  EXPECT_NE(reply.find("Content-Length: 3\r\n"), std::string::npos) << reply;
  EXPECT_EQ(reply_body(reply), "") << reply;
}

TEST_F(LimitsTest, LongQueryUrisAndFormBodiesReachTheRoute) {
  start(HttpServerOptions{});
  httplib::Client client("127.0.0.1", server_->port());
  // Grafana's variable expansion: {uuid=~"GPU-0|GPU-1|..."} with thousands of alternatives; as sent, a URI
  // of 20 KiB, and one near the 64 KiB the server promises.
  for (const std::size_t uri_bytes : {std::size_t{20 * 1024}, std::size_t{60 * 1024}}) {
    std::string query;
    std::string uri;
    for (int i = 0; uri.size() < uri_bytes; i += 100) {  // a hundred alternatives at a time
      std::string alternatives = "|GPU-" + std::to_string(i);
      for (int j = 1; j < 100; ++j) alternatives += "|GPU-" + std::to_string(i + j);
      query = query.empty() ? "up{uuid=~\"" + alternatives.substr(1) + "\"}"
                            : query.substr(0, query.size() - 2) + alternatives + "\"}";
      uri = "/api/v1/echo?query=" + httplib::detail::encode_query_param(query);
    }
    ASSERT_GE(uri.size(), uri_bytes);
    ASSERT_LT(uri.size(), 64 * 1024);
    auto got = client.Get(uri);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->status, 200) << uri.size() << ": " << got->body;
    EXPECT_EQ(got->body, std::to_string(query.size()) + " " + query.substr(0, 16) + " 0");
    auto posted = client.Post("/api/v1/echo", "query=" + httplib::detail::encode_query_param(query),
                              "application/x-www-form-urlencoded; charset=UTF-8");
    ASSERT_TRUE(posted);
    EXPECT_EQ(posted->status, 200) << posted->body;
    EXPECT_EQ(posted->body.substr(0, posted->body.find(' ')), std::to_string(query.size()));
  }
  // Above the limit on request line and headers (80 KiB by default) it is refused, not served.
  auto over = client.Get("/api/v1/echo?query=" + std::string(100 * 1024, 'x'));
  ASSERT_TRUE(over);
  EXPECT_TRUE(over->status == 431 || over->status == 414) << over->status;
}

TEST_F(LimitsTest, PathsThatAreNotUtf8GetJsonErrors) {
  start(HttpServerOptions{});
  const std::string reply = exchange("GET /%ff%fe/x HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(reply_status(reply), 404) << reply;
  EXPECT_TRUE(nlohmann::json::accept(reply_body(reply))) << reply;
  const std::string method = exchange("DELETE /metrics%c3 HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_TRUE(nlohmann::json::accept(reply_body(method))) << method;
}

TEST_F(LimitsTest, TricklingClientIsCutOffAtTheHeaderDeadline) {
  HttpServerOptions options;
  options.header_timeout = milliseconds(400);
  start(options);
  RawClient client(server_->port());
  ASSERT_TRUE(client.connected());
  const std::string request = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + std::string(100, 'a');
  const auto before = std::chrono::steady_clock::now();
  bool cut = false;
  // A byte every 50 ms: the connection is never idle, so only a whole-request deadline ends it.
  for (char c : request) {
    if (!client.send(std::string_view(&c, 1)) || client.closed_within(milliseconds(50))) {
      cut = true;
      break;
    }
  }
  const auto took = std::chrono::steady_clock::now() - before;
  EXPECT_TRUE(cut);
  EXPECT_LT(took, std::chrono::seconds(3));
  EXPECT_EQ(rejected("header_timeout"), 1);
}

TEST_F(LimitsTest, TricklingBodyIsCutOffAtTheBodyDeadline) {
  HttpServerOptions options;
  options.body_timeout = milliseconds(400);
  start(options);
  RawClient client(server_->port());
  ASSERT_TRUE(client.connected());
  ASSERT_TRUE(client.send("POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n"));
  const auto before = std::chrono::steady_clock::now();
  bool cut = false;
  for (int i = 0; i < 100; ++i) {
    if (!client.send("b") || client.closed_within(milliseconds(50))) {
      cut = true;
      break;
    }
  }
  EXPECT_TRUE(cut);
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(3));
  EXPECT_EQ(rejected("body_timeout"), 1);
}

TEST_F(LimitsTest, ConnectionsInAllAreLimited) {
  HttpServerOptions options;
  options.max_connections = 2;
  start(options);
  RawClient first(server_->port());
  RawClient second(server_->port());
  for (RawClient* c : {&first, &second}) {
    c->send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_EQ(reply_status(c->read_reply(milliseconds(3000))), 200);
  }
  RawClient third(server_->port());
  ASSERT_TRUE(third.connected());
  EXPECT_TRUE(third.closed_within(milliseconds(3000)));
  first.shutdown_write();
  EXPECT_TRUE(first.closed_within(milliseconds(3000)));
  second.shutdown_write();
  EXPECT_TRUE(second.closed_within(milliseconds(3000)));
  // Bounded wait for the server to see both close, then the count is free again.
  double refused = -1;
  for (int i = 0; i < 50 && refused < 0; ++i) {
    std::this_thread::sleep_for(milliseconds(20));
    refused = rejected("connection_limit");
  }
  EXPECT_GE(refused, 1);
}

TEST_F(LimitsTest, ConnectionsPerClientAreLimited) {
  HttpServerOptions options;
  options.max_connections_per_client = 3;
  start(options);
  std::vector<std::unique_ptr<RawClient>> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(std::make_unique<RawClient>(server_->port()));
    held.back()->send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_EQ(reply_status(held.back()->read_reply(milliseconds(3000))), 200);
  }
  RawClient extra(server_->port());
  ASSERT_TRUE(extra.connected());  // the kernel accepts; the server closes it at once
  EXPECT_TRUE(extra.closed_within(milliseconds(3000)));
  held.clear();
  // Bounded wait for the server to see the three close.
  int status = 0;
  for (int i = 0; i < 50 && status != 200; ++i) {
    std::this_thread::sleep_for(milliseconds(20));
    status = reply_status(exchange("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", milliseconds(500)));
  }
  EXPECT_EQ(status, 200);
  EXPECT_GE(rejected("client_connection_limit"), 1);
}

// Each input is sent, the client half-closes, waits a moment for a reply and closes: whatever the input, the
// server closes its side within a deadline (no connection is left open to fill the per-client limit).
TEST_F(LimitsTest, ConnectionsClosedByTheirClientAreClosedByTheServer) {
  HttpServerOptions options;
  options.header_timeout = milliseconds(500);
  options.body_timeout = milliseconds(500);
  start(options);
  const std::vector<std::string> inputs = {
      "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
      "GET /healthz HTTP/1.1\r\nHost: x\r\n",
      "GET /heal",
      "\x01\x02\xff garbage\r\n\r\n",
      "GET / HTTP/1.0\r\n\r\n",
      "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
      "GET /api/v1/echo?query=abc HTTP/1.1\r\nHost: x\r\n\r\n",
      "POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc",
      "POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
      "POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n",
      "POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
      "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
  };
  for (const std::string& input : inputs) {
    for (bool half_close : {true, false}) {
      {
        RawClient client(server_->port());
        ASSERT_TRUE(client.connected());
        client.send(input);
        if (half_close) client.shutdown_write();
        client.read_reply(milliseconds(100));
      }
      int open = -1;
      for (int i = 0; i < 100 && open != 1; ++i) {
        std::this_thread::sleep_for(milliseconds(20));
        open = static_cast<int>(value_on_metrics("gpuwatch_http_connections"));  // 1: the request that asks
      }
      EXPECT_EQ(open, 1) << "after " << (half_close ? "half-closing " : "closing ")
                         << ::testing::PrintToString(input);
    }
  }
}

}  // namespace
}  // namespace gpuwatch
