// Targets over real loopback sockets: a target that hangs (accepts, never answers) costs only its own scrape
// and ends at its timeout; gzip is inflated; a body that grows without end, or inflates past the limit, fails
// at the body size limit; a closed port is refused. The Scraper never makes the collector wait for a target.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "core/snapshot.h"
#include "core/unique_fd.h"
#include "http/gzip.h"
#include "scrape/http_fetch.h"
#include "scrape/scraper.h"

namespace gpuwatch::scrape {
namespace {

using namespace std::chrono_literals;

// A listening socket nobody accepts from: the kernel completes the connection, no answer ever comes.
class HangingTarget {
 public:
  HangingTarget() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd_.get(), 16), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/metrics"; }

 private:
  UniqueFd fd_;
  int port_ = 0;
};

// An httplib server on a free loopback port with the routes a test gives it.
class TestServer {
 public:
  explicit TestServer(const std::function<void(httplib::Server&)>& routes) {
    routes(server_);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~TestServer() {
    server_.stop();
    thread_.join();
  }
  std::string url(const std::string& path = "/metrics") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

TEST(Fetch, AHangingTargetEndsAtItsTimeout) {
  HangingTarget target;
  const auto started = std::chrono::steady_clock::now();
  const FetchResult r = fetch(FetchRequest{target.url(), 300ms, 0});
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("timeout"), std::string::npos) << r.error;
  EXPECT_GE(took, 250ms);
  EXPECT_LT(took, 5s);  // bounded by the timeout, not by the target
}

TEST(Fetch, AClosedPortIsRefused) {
  std::string url;
  {
    HangingTarget gone;
    url = gone.url();
  }
  const FetchResult r = fetch(FetchRequest{url, 1s, 0});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("connection refused"), std::string::npos) << r.error;
}

TEST(Fetch, InflatesGzipAndAsksForOpenMetricsFirst) {
  std::string accept;
  TestServer server([&](httplib::Server& s) {
    s.Get("/metrics", [&](const httplib::Request& req, httplib::Response& res) {
      accept = req.get_header_value("Accept");
      // Not text/*, so that the server does not compress it once more.
      res.set_header("Content-Encoding", "gzip");
      res.set_content(gzip_compress("a 1\n"), "application/octet-stream");
    });
  });
  const FetchResult r = fetch(FetchRequest{server.url(), 2s, 1 << 20});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.body, "a 1\n");
  EXPECT_EQ(accept.rfind("application/openmetrics-text", 0), 0u) << accept;
}

TEST(Fetch, ABodyPastTheLimitFailsPlainOrInflated) {
  TestServer server([](httplib::Server& s) {
    // Grows without end: a chunked stream that never finishes (gzipped by the server: it asked for gzip).
    s.Get("/endless", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/plain", [](std::size_t, httplib::DataSink& sink) {
        const std::string line(4096, 'a');
        return sink.write(line.data(), line.size());
      });
    });
    // 64 KiB that inflate to 64 MiB.
    s.Get("/plain", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(2u << 20, '#'), "application/octet-stream");
    });
    s.Get("/bomb", [](const httplib::Request&, httplib::Response& res) {
      res.set_header("Content-Encoding", "gzip");
      res.set_content(gzip_compress(std::string(64u << 20, '0')), "application/octet-stream");
    });
  });
  const FetchResult endless = fetch(FetchRequest{server.url("/endless"), 5s, 1 << 20});
  EXPECT_FALSE(endless.ok);
  EXPECT_NE(endless.error.find("body_size_limit"), std::string::npos) << endless.error;
  const FetchResult plain = fetch(FetchRequest{server.url("/plain"), 5s, 1 << 20});
  EXPECT_FALSE(plain.ok);
  EXPECT_NE(plain.error.find("body_size_limit"), std::string::npos) << plain.error;
  const FetchResult bomb = fetch(FetchRequest{server.url("/bomb"), 5s, 1 << 20});
  EXPECT_FALSE(bomb.ok);
  EXPECT_NE(bomb.error.find("inflated"), std::string::npos) << bomb.error;
}

TEST(Fetch, AnHttpErrorStatusFails) {
  TestServer server([](httplib::Server& s) {
    s.Get("/metrics", [](const httplib::Request&, httplib::Response& res) { res.status = 503; });
  });
  const FetchResult r = fetch(FetchRequest{server.url(), 2s, 0});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "HTTP status 503 (expected 200)");
}

ScrapeTargetConfig target(const std::string& job, const std::string& url) {
  ScrapeTargetConfig c;
  c.job = job;
  c.url = url;
  c.interval = 1000ms;
  c.timeout = 400ms;
  return c;
}

TEST(Scraper, AHangingTargetCostsOnlyItsOwnScrape) {
  HangingTarget hanging;
  TestServer good([](httplib::Server& s) {
    s.Get("/metrics",
          [](const httplib::Request&, httplib::Response& res) { res.set_content("a 1\n", "text/plain"); });
  });
  ScrapeConfig config;
  config.targets = {target("hangs", hanging.url()), target("good", good.url())};
  // Room for a loaded machine (the sanitizer tree runs this beside the fuzzers): the order below holds only
  // if the good target answers within its timeout.
  for (auto& t : config.targets) {
    t.interval = 5000ms;
    t.timeout = 2000ms;
  }
  Scraper scraper(config, "");
  const Snapshot snapshot;
  // A tick that does not wait (outside lockstep) returns at once, whatever the hanging target does.
  const auto started = std::chrono::steady_clock::now();
  EXPECT_TRUE(scraper.collect(1000, snapshot, std::chrono::steady_clock::now()).empty());
  EXPECT_LT(std::chrono::steady_clock::now() - started, 200ms);

  std::vector<std::shared_ptr<const ScrapeResult>> results;
  for (int i = 0; i < 400 && results.size() < 2; ++i) {
    std::this_thread::sleep_for(20ms);
    for (auto& r : scraper.collect(1000 + 20 * i, snapshot, std::chrono::steady_clock::now())) {
      results.push_back(r);
    }
  }
  ASSERT_EQ(results.size(), 2u);
  // The good one first (it answered at once), then the hanging one at its timeout, as down.
  EXPECT_EQ(label_value(results[0]->target, "job"), "good");
  EXPECT_TRUE(results[0]->up);
  EXPECT_EQ(label_value(results[1]->target, "job"), "hangs");
  EXPECT_FALSE(results[1]->up);
  EXPECT_NE(results[1]->error.find("timeout"), std::string::npos) << results[1]->error;
  // Each scrape is stamped with the tick that started it, on the agent's clock.
  EXPECT_EQ(results[0]->t_ms, 1000);
  EXPECT_EQ(results[1]->t_ms, 1000);
}

}  // namespace
}  // namespace gpuwatch::scrape
