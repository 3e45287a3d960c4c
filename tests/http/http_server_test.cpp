#include "http/http_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>

#include "exposition_parser.h"
#include "http/gzip.h"
#include "snapshot_fixture.h"

namespace gpuwatch {
namespace {

// The agent side of the server: a published snapshot and a ready flag, as the collector provides them.
class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    options.threads = 2;
    server_ = std::make_unique<HttpServer>(
        options,
        [this] {
          std::lock_guard lock(mutex_);
          return snapshot_;
        },
        [this] { return ready_.load(); });
    server_->start();
    ASSERT_GT(server_->port(), 0);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    client_->set_decompress(false);  // see the bytes as sent
  }

  void publish(std::uint64_t sequence) {
    std::lock_guard lock(mutex_);
    snapshot_ = std::make_shared<const Snapshot>(testing::h200_node(sequence));
    ready_ = true;
  }

  httplib::Result get(const std::string& path, httplib::Headers headers = {}) {
    return client_->Get(path.c_str(), headers);
  }

  std::mutex mutex_;
  SnapshotPtr snapshot_;
  std::atomic<bool> ready_{false};
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(ServerTest, ReadyzIs503ThenOkAfterTheFirstCollection) {
  auto r = get("/readyz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(get("/healthz")->status, 200);
  publish(1);
  EXPECT_EQ(get("/readyz")->status, 200);
}

TEST_F(ServerTest, MetricsBeforeTheFirstSnapshotIsValidAndAgentOnly) {
  auto r = get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(r->body.find("gpuwatch_build_info"), std::string::npos);
  EXPECT_EQ(r->body.find("gpu_up"), std::string::npos);
  EXPECT_TRUE(testing::parse_exposition(r->body, ExpositionFormat::kText004).errors.empty());
  EXPECT_EQ(get("/api/v1/gpus")->status, 503);
}

TEST_F(ServerTest, MetricsNegotiatesFormatNamingAndGzip) {
  publish(5);
  auto text = get("/metrics");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->status, 200);
  EXPECT_NE(text->body.find("gpu_up{gpu=\"0\""), std::string::npos);
  EXPECT_FALSE(text->has_header("Content-Encoding"));

  auto om = get("/metrics", {{"Accept", "application/openmetrics-text;version=1.0.0,text/plain;q=0.5"}});
  ASSERT_TRUE(om);
  EXPECT_EQ(om->get_header_value("Content-Type"),
            "application/openmetrics-text; version=1.0.0; charset=utf-8");
  EXPECT_TRUE(om->body.ends_with("# EOF\n"));
  EXPECT_TRUE(testing::parse_exposition(om->body, ExpositionFormat::kOpenMetrics).errors.empty());

  auto gz = get("/metrics", {{"Accept-Encoding", "gzip, deflate"}});
  ASSERT_TRUE(gz);
  EXPECT_EQ(gz->get_header_value("Content-Encoding"), "gzip");
  EXPECT_EQ(gzip_decompress(gz->body), text->body);

  auto refused = get("/metrics", {{"Accept-Encoding", "gzip;q=0"}});
  EXPECT_FALSE(refused->has_header("Content-Encoding"));

  auto dcgm = get("/metrics?naming=dcgm", {{"Accept", "application/openmetrics-text"}});
  ASSERT_TRUE(dcgm);
  EXPECT_EQ(dcgm->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(dcgm->body.find("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\""), std::string::npos);

  server_->set_naming(MetricNaming::kDcgm);
  EXPECT_NE(get("/metrics")->body.find("DCGM_FI_DEV_GPU_UTIL"), std::string::npos);
  EXPECT_EQ(get("/metrics?naming=native")->body.find("DCGM_FI_"), std::string::npos);

  auto bad = get("/metrics?naming=prom");
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("naming must be dcgm or native"), std::string::npos);
}

TEST_F(ServerTest, JsonApiServesTheLatestSnapshot) {
  publish(9);
  auto r = get("/api/v1/gpus");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
  const auto j = nlohmann::json::parse(r->body);
  EXPECT_EQ(j["sequence"], 9);
  EXPECT_EQ(j["devices"].size(), 4U);
}

TEST_F(ServerTest, JsonApiLeavesProcessesOutOrAnswersForOneGpu) {
  publish(9);
  const auto lean = get("/api/v1/gpus?processes=false");
  ASSERT_TRUE(lean);
  ASSERT_EQ(lean->status, 200);
  const auto all = nlohmann::json::parse(lean->body);
  ASSERT_EQ(all["devices"].size(), 4U);
  EXPECT_FALSE(all["devices"][0].contains("processes"));
  EXPECT_EQ(all["devices"][0]["process_count"], 2);

  const auto one = get("/api/v1/gpus?gpu=GPU-5f8b2c1e-0000-4a6b-9c3d-000000000001&processes=true");
  ASSERT_TRUE(one);
  ASSERT_EQ(one->status, 200);
  const auto j = nlohmann::json::parse(one->body);
  ASSERT_EQ(j["devices"].size(), 1U);
  EXPECT_EQ(j["devices"][0]["index"], 1);
  EXPECT_TRUE(j["devices"][0]["processes"].is_array());

  for (const char* bad :
       {"/api/v1/gpus?processes=0", "/api/v1/gpus?gpu=", "/api/v1/gpus?gpu", "/api/v1/gpus?gpu=7"}) {
    const auto r = get(bad);
    ASSERT_TRUE(r) << bad;
    EXPECT_EQ(r->status, 400) << bad;
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json") << bad;
    EXPECT_TRUE(nlohmann::json::parse(r->body)["error"].is_string()) << bad;
  }
  EXPECT_EQ(
      nlohmann::json::parse(get("/api/v1/gpus?gpu=7")->body)["error"],
      "no GPU \"7\" on this node; gpu is the index of one of its GPUs (0, 1, 2, 3) or a GPU or MIG UUID");
}

TEST_F(ServerTest, IndexListsEveryEndpoint) {
  auto r = get("/endpoints");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
  for (const char* path : {"/metrics", "/api/v1/gpus", "/healthz", "/readyz"}) {
    EXPECT_NE(r->body.find(std::string("href=\"") + path + "\""), std::string::npos) << path;
  }
}

TEST_F(ServerTest, UnknownPathIs404JsonAndWrongMethodIs405) {
  auto r = get("/nope");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(nlohmann::json::parse(r->body)["path"], "/nope");

  auto post = client_->Post("/metrics", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  EXPECT_EQ(post->get_header_value("Allow"), "GET, HEAD");
  EXPECT_EQ(client_->Delete("/api/v1/gpus")->status, 405);
  EXPECT_EQ(client_->Post("/elsewhere", "x", "text/plain")->status, 404);
}

TEST(HttpServer, PortInUseIsAClearError) {
  HttpServerOptions first_options;
  first_options.listen = "127.0.0.1:0";
  HttpServer first(
      first_options, [] { return SnapshotPtr{}; }, [] { return false; });
  first.start();
  HttpServerOptions second_options;
  second_options.listen = "127.0.0.1:" + std::to_string(first.port());
  HttpServer second(
      second_options, [] { return SnapshotPtr{}; }, [] { return false; });
  try {
    second.start();
    FAIL() << "a second server bound the same port";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(second_options.listen), std::string::npos) << what;
    EXPECT_NE(what.find("Address already in use"), std::string::npos) << what;
  }
}

TEST(HttpServer, StopReturnsPromptlyWithAnOpenConnection) {
  HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  HttpServer server(
      options, [] { return SnapshotPtr{}; }, [] { return true; });
  server.start();
  httplib::Client client("127.0.0.1", server.port());
  client.set_keep_alive(true);
  ASSERT_EQ(client.Get("/healthz")->status, 200);
  const auto before = std::chrono::steady_clock::now();
  server.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(3));
  server.stop();  // twice is harmless
  EXPECT_FALSE(client.Get("/healthz"));
}

TEST(HttpServer, AddedRoutesGetParamsCapturesAndFormBodies) {
  HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  options.routes.push_back(HttpRoute{
      {"GET", "POST"}, "/api/v1/label/([^/]+)/values", "label values", [](const HttpRequest& req) {
        HttpReply reply;
        reply.body =
            req.method + " " + req.captures.at(0) + " " + req.param("match[]") + " " + req.header("x-probe");
        reply.headers.emplace_back("X-Seen", "yes");
        return reply;
      }});
  HttpServer server(
      options, [] { return SnapshotPtr(); }, [] { return false; });
  server.start();
  httplib::Client client("127.0.0.1", server.port());
  auto got = client.Get("/api/v1/label/gpu/values?match[]=up", {{"X-Probe", "p1"}});
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(got->body, "GET gpu up p1");
  EXPECT_EQ(got->get_header_value("X-Seen"), "yes");
  auto posted =
      client.Post("/api/v1/label/uuid/values", "match%5B%5D=gpu_up", "application/x-www-form-urlencoded");
  ASSERT_TRUE(posted);
  EXPECT_EQ(posted->body, "POST uuid gpu_up ");
  auto wrong = client.Delete("/api/v1/label/gpu/values");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 405);
  EXPECT_EQ(wrong->get_header_value("Allow"), "GET, POST");
  EXPECT_NE(client.Get("/endpoints")->body.find("label values"), std::string::npos);
  EXPECT_EQ(client.Get("/no/such/path")->status, 404);
}

// A server without its module (its event loop and basic auth's password check) says so and why, and holds
// nothing: the port is free again.
TEST(HttpServer, WithoutItsModuleStartIsAClearErrorNamingThePath) {
  for (const std::string& module : {std::string(GPUWATCH_BINARY_DIR "/no-such-dir/gpuwatch-http-server.so"),
                                    std::string(GPUWATCH_NOT_A_MODULE)}) {
    HttpServerOptions options;
    options.listen = "127.0.0.1:" + std::to_string(HttpServer::bind("127.0.0.1:0").address.port);
    options.module_path = module;
    HttpServerOptions with_users = options;  // basic auth's password check comes from the same module
    with_users.web.emplace().basic_auth_users = {
        {"alice", "$2y$10$0123456789012345678901uLk9aCOIxlvYH7W4VS0S6c9mBsZ1e7u"}};
    for (const HttpServerOptions& o : {options, with_users}) {
      HttpServer server(
          o, [] { return SnapshotPtr{}; }, [] { return true; });
      try {
        server.start();
        FAIL() << "started without its module: " << module;
      } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("module_missing"), std::string::npos) << what;
        EXPECT_NE(what.find(module), std::string::npos) << what;
        EXPECT_NE(what.find(o.listen), std::string::npos) << what;
      }
      EXPECT_EQ(server.port(), 0);
      server.stop();  // harmless after a failed start
    }
    options.module_path.clear();
    HttpServer found(
        options, [] { return SnapshotPtr{}; }, [] { return true; });
    found.start();
    EXPECT_EQ(httplib::Client("127.0.0.1", found.port()).Get("/healthz")->status, 200);
  }
}

// A server of other content (sim serve's model servers): with the built-in endpoints off, its own /metrics
// route answers, and /healthz is no longer served.
TEST(HttpServer, WithoutBuiltinEndpointsTheRoutesAnswerAtTheirPaths) {
  HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  options.builtin_endpoints = false;
  options.routes.push_back(
      HttpRoute{{"GET"}, "/metrics", "", [](const HttpRequest&) {
                  return HttpReply{200, "text/plain; version=0.0.4", "model_requests 3\n", {}};
                }});
  HttpServer server(
      options, [] { return SnapshotPtr(); }, [] { return true; });
  server.start();
  httplib::Client client("127.0.0.1", server.port());
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_EQ(metrics->body, "model_requests 3\n");
  EXPECT_EQ(metrics->get_header_value("Content-Type"), "text/plain; version=0.0.4");
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 404);
}

TEST(HttpServer, MalformedListenAddressIsRejected) {
  HttpServerOptions options;
  options.listen = "nonsense";
  HttpServer server(
      options, [] { return SnapshotPtr{}; }, [] { return false; });
  EXPECT_THROW(server.start(), std::invalid_argument);
}

}  // namespace
}  // namespace gpuwatch
