// The binary's own client (http://) against loopback servers: what it sends and reads, and each way a request
// fails, with the message a user reads.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "loopback.h"
#include "net/http_client.h"

namespace gpuwatch::net {
namespace {

using test::closed_port;
using test::Serving;
using test::Silent;
using test::url;

std::unique_ptr<httplib::Server> echo_server() {
  auto server = std::make_unique<httplib::Server>();
  server->Get("/hello", [](const httplib::Request& req, httplib::Response& res) {
    res.set_header("X-Seen-Accept", req.get_header_value("Accept"));
    res.set_header("X-Seen-Host", req.get_header_value("Host"));
    res.set_header("X-Seen-Auth", req.get_header_value("Authorization"));
    res.set_content("hello " + req.get_param_value("who"), "text/plain");
  });
  server->Post("/echo", [](const httplib::Request& req, httplib::Response& res) {
    res.status = 201;
    res.set_content(req.get_header_value("Content-Type") + "|" + req.body, "text/plain");
  });
  server->Get("/big", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(100'000, 'x'), "text/plain");
  });
  server->Get("/missing", [](const httplib::Request&, httplib::Response& res) {
    res.status = 503;
    res.set_header("Retry-After", "7");
    res.set_content("overloaded", "text/plain");
  });
  return server;
}

TEST(HttpClient, GetReadsStatusHeadersAndBody) {
  const Serving serving(echo_server());
  ClientOptions options;
  options.default_headers = {{"Authorization", "Bearer t0ken"}};
  const auto client = make_http_client(url(serving.port()), options);
  const Result r =
      client->send({"GET", "/hello?who=" + percent_encode("a b"), {{"Accept", "text/x"}}, {}, {}, {}});
  ASSERT_TRUE(r.ok()) << r.failure.message;
  EXPECT_EQ(r.response.status, 200);
  EXPECT_EQ(r.response.body, "hello a b");
  EXPECT_EQ(r.response.header("content-type"), "text/plain");
  EXPECT_EQ(r.response.header("X-Seen-Accept"), "text/x");
  EXPECT_EQ(r.response.header("X-Seen-Host"), "127.0.0.1:" + std::to_string(serving.port()));
  EXPECT_EQ(r.response.header("X-Seen-Auth"), "Bearer t0ken");
}

TEST(HttpClient, CredentialsInTheUrlGoAsBasicAuth) {
  const Serving serving(echo_server());
  const std::string with_user = "http://am:s3cr%40t@127.0.0.1:" + std::to_string(serving.port());
  Result r = make_http_client(with_user)->send({"GET", "/hello", {}, {}, {}, {}});
  ASSERT_TRUE(r.ok()) << r.failure.message;
  EXPECT_EQ(r.response.header("X-Seen-Auth"), basic_authorization("am", "s3cr@t"));
  EXPECT_EQ(r.response.header("X-Seen-Host"), "127.0.0.1:" + std::to_string(serving.port()));
  // An Authorization the caller sets wins over the URL's.
  ClientOptions options;
  options.default_headers = {{"Authorization", "Bearer t0ken"}};
  r = make_http_client(with_user, options)->send({"GET", "/hello", {}, {}, {}, {}});
  ASSERT_TRUE(r.ok()) << r.failure.message;
  EXPECT_EQ(r.response.header("X-Seen-Auth"), "Bearer t0ken");
}

TEST(HttpClient, PostSendsBodyAndReadsOtherStatuses) {
  const Serving serving(echo_server());
  const auto client = make_http_client(url(serving.port()));
  const Result r = client->send({"POST", "/echo", {{"Content-Type", kFormContentType}}, "a=1&b=2", {}, {}});
  ASSERT_TRUE(r.ok()) << r.failure.message;
  EXPECT_EQ(r.response.status, 201);
  EXPECT_EQ(r.response.body, std::string(kFormContentType) + "|a=1&b=2");
  const Result busy = client->send({"GET", "/missing", {}, {}, {}, {}});
  ASSERT_TRUE(busy.ok()) << busy.failure.message;
  EXPECT_EQ(busy.response.status, 503);
  EXPECT_EQ(busy.response.header("Retry-After"), "7");
  EXPECT_EQ(busy.response.body, "overloaded");
}

TEST(HttpClient, KeepAliveServesRequestsInTurn) {
  const Serving serving(echo_server());
  ClientOptions options;
  options.keep_alive = true;
  const auto client = make_http_client(url(serving.port()), options);
  for (int i = 0; i < 3; ++i) {
    const Result r = client->send({"GET", "/hello?who=" + std::to_string(i), {}, {}, {}, {}});
    ASSERT_TRUE(r.ok()) << r.failure.message;
    EXPECT_EQ(r.response.body, "hello " + std::to_string(i));
  }
}

TEST(HttpClient, StreamsTheBodyAndStopsWhenTold) {
  const Serving serving(echo_server());
  const auto client = make_http_client(url(serving.port()));
  int head_status = 0;
  std::size_t seen = 0;
  Request get{"GET", "/big", {}, {}, {}, {}};
  get.on_headers = [&](const Response& head) { head_status = head.status; };
  get.on_body = [&](std::string_view piece) {
    seen += piece.size();
    return true;
  };
  const Result r = client->send(get);
  ASSERT_TRUE(r.ok()) << r.failure.message;
  EXPECT_EQ(head_status, 200);
  EXPECT_EQ(seen, 100'000u);
  EXPECT_TRUE(r.response.body.empty());

  get.on_body = [](std::string_view) { return false; };
  const Result stopped = client->send(get);
  EXPECT_EQ(stopped.failure.kind, Failure::Kind::kStopped);
}

TEST(HttpClient, BodyLimit) {
  const Serving serving(echo_server());
  ClientOptions options;
  options.max_body_bytes = 50'000;
  const Result r = make_http_client(url(serving.port()), options)->send({"GET", "/big", {}, {}, {}, {}});
  EXPECT_EQ(r.failure.kind, Failure::Kind::kBodyTooLarge);
  EXPECT_EQ(r.failure.message,
            "GET " + url(serving.port(), "/big") + ": the body is longer than 50000 bytes");
}

TEST(HttpClient, ConnectionRefusedSaysWhere) {
  const int port = closed_port();
  const Result r = make_http_client(url(port))->send({"POST", "/api/v2/alerts", {}, "[]", {}, {}});
  EXPECT_EQ(r.failure.kind, Failure::Kind::kConnect);
  EXPECT_EQ(r.failure.message, "POST " + url(port, "/api/v2/alerts") +
                                   ": connection refused by 127.0.0.1:" + std::to_string(port));
}

TEST(HttpClient, ReadTimeoutOnAServerThatNeverAnswers) {
  const Silent silent;
  ClientOptions options;
  options.timeouts = {std::chrono::seconds(5), std::chrono::milliseconds(300), {}};
  const auto started = std::chrono::steady_clock::now();
  const Result r = make_http_client(url(silent.port()), options)->send({"GET", "/metrics", {}, {}, {}, {}});
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(r.failure.kind, Failure::Kind::kTimeout);
  EXPECT_EQ(r.failure.message,
            "GET " + url(silent.port(), "/metrics") + ": timeout after 300 ms waiting for the answer");
  EXPECT_GE(took, std::chrono::milliseconds(300));
  EXPECT_LT(took, std::chrono::seconds(5));  // the read's bound, not the connect's
}

TEST(HttpClient, WholeRequestTimeout) {
  const Silent silent;
  ClientOptions options;
  options.timeouts = {std::chrono::seconds(5), std::chrono::seconds(5), std::chrono::milliseconds(200)};
  const Result r = make_http_client(url(silent.port()), options)->send({"GET", "/", {}, {}, {}, {}});
  EXPECT_EQ(r.failure.kind, Failure::Kind::kTimeout);
  EXPECT_NE(r.failure.message.find("timeout after 200 ms (the whole request) waiting for the answer"),
            std::string::npos)
      << r.failure.message;
}

TEST(HttpClient, AbortCutsOffAWaitAndEveryLaterRequest) {
  const Silent silent;
  const auto client = make_http_client(url(silent.port()));  // 30 s to read: only abort ends it early
  std::thread aborter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    client->abort();
  });
  const auto started = std::chrono::steady_clock::now();
  const Result r = client->send({"GET", "/", {}, {}, {}, {}});
  aborter.join();
  EXPECT_EQ(r.failure.kind, Failure::Kind::kAborted);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  EXPECT_EQ(client->send({"GET", "/", {}, {}, {}, {}}).failure.kind, Failure::Kind::kAborted);
}

TEST(HttpClient, RefusesAUrlItCannotAsk) {
  try {
    make_http_client("ftp://127.0.0.1/");
    FAIL() << "no error";
  } catch (const ClientError& e) {
    EXPECT_STREQ(e.what(), "'ftp://127.0.0.1/' is not an http:// or https:// URL");
  }
}

}  // namespace
}  // namespace gpuwatch::net
