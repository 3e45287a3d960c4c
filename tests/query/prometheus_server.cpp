#include "prometheus_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include <httplib.h>

namespace gpuwatch::test {

PrometheusServer::PrometheusServer(const std::string& openmetrics) {
  try {
    start("global:\n  scrape_interval: 1m\n", openmetrics);
  } catch (...) {
    stop();
    throw;
  }
}

PrometheusServer::PrometheusServer(const Scraping& scraping) {
  try {
    start(scraping.config, "");
  } catch (...) {
    stop();
    throw;
  }
}

void PrometheusServer::start(const std::string& config, const std::string& openmetrics) {
  std::string pattern = (std::filesystem::temp_directory_path() / "gpuwatch-oracle-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  std::ofstream(dir_ + "/prometheus.yml") << config;
  if (!openmetrics.empty()) {
    const std::string input = dir_ + "/samples.om";
    std::ofstream(input) << openmetrics;
    const ProcessResult made =
        run_process({"/usr/bin/promtool", "tsdb", "create-blocks-from", "openmetrics", input, dir_ + "/tsdb"},
                    {}, std::chrono::seconds(120));
    if (made.exit_code != 0) throw std::runtime_error("promtool failed: " + made.err + made.out);
  }
  port_ = free_port();
  process_ = std::make_unique<BackgroundProcess>(std::vector<std::string>{
      "/usr/bin/prometheus", "--config.file=" + dir_ + "/prometheus.yml",
      "--storage.tsdb.path=" + dir_ + "/tsdb", "--web.listen-address=127.0.0.1:" + std::to_string(port_),
      "--storage.tsdb.retention.time=30d"});
  httplib::Client client("127.0.0.1", port_);
  client.set_connection_timeout(1);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto r = client.Get("/-/ready"); r && r->status == 200) return;
    if (process_->wait_exit(std::chrono::milliseconds(0))) break;
    // Waiting for another process to come up in wall time; nothing simulated to advance.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const std::string log = process_->stderr_text();
  throw std::runtime_error("prometheus did not become ready: " +
                           log.substr(log.size() > 2000 ? log.size() - 2000 : 0));
}

PrometheusServer::~PrometheusServer() {
  stop();
}

void PrometheusServer::stop() {
  if (process_) {
    process_->signal(SIGTERM);
    process_->wait_exit(std::chrono::seconds(20));
    process_.reset();  // SIGKILL if it has not exited
  }
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

}  // namespace gpuwatch::test
