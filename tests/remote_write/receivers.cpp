#include "receivers.h"

#include <httplib.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "prometheus_server.h"

namespace gpuwatch::test {
namespace {

Labels labels_of(const nlohmann::json& metric) {
  Labels labels;
  for (const auto& [k, v] : metric.items()) labels.emplace_back(k, v.get<std::string>());
  normalize_labels(labels);
  return labels;
}

std::int64_t ms_of(double seconds) {
  return std::llround(seconds * 1000.0);
}

class PrometheusReceiver final : public Receiver {
 public:
  explicit PrometheusReceiver(const ReceiverAccess& access, const std::string& scrape_configs = "") {
    std::ofstream(dir_ + "/prometheus.yml")
        << (scrape_configs.empty()
                ? "global:\n  scrape_interval: 1m\n"
                : "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n" + scrape_configs);
    web_config_ = access.web_config;
    ca_file_ = access.ca_file;
    user_ = access.user;
    password_ = access.password;
  }
  std::string name() const override { return "prometheus"; }
  RawSamples samples(const std::string& selector, std::int64_t start_ms, std::int64_t end_ms) override {
    // An instant query of a range selector answers the raw samples in the range: (end - range, end].
    const std::int64_t range_ms = end_ms - start_ms + 1;
    httplib::Client client = this->client();
    client.set_read_timeout(120);
    const httplib::Params params{{"query", selector + "[" + std::to_string(range_ms) + "ms]"},
                                 {"time", std::to_string(static_cast<double>(end_ms) / 1000.0)}};
    const auto res = client.Post("/api/v1/query", params);
    if (!res || res->status != 200)
      throw std::runtime_error("prometheus query failed: " + (res ? res->body : "no answer"));
    RawSamples out;
    const auto body = nlohmann::json::parse(res->body);
    for (const auto& series : body.at("data").at("result")) {
      auto& points = out[labels_to_string(labels_of(series.at("metric")))];
      for (const auto& v : series.at("values"))
        points.push_back({ms_of(v.at(0).get<double>()), std::stod(v.at(1).get<std::string>())});
    }
    return out;
  }

 private:
  std::vector<std::string> argv() const override { return with_web_config(plain_argv()); }
  std::vector<std::string> plain_argv() const {
    return {"/usr/bin/prometheus",
            "--config.file=" + dir_ + "/prometheus.yml",
            "--storage.tsdb.path=" + dir_ + "/tsdb",
            "--web.listen-address=127.0.0.1:" + std::to_string(port_),
            "--storage.tsdb.retention.time=30d",
            "--web.enable-remote-write-receiver"};
  }
  std::vector<std::string> with_web_config(std::vector<std::string> args) const {
    if (!web_config_.empty()) args.push_back("--web.config.file=" + web_config_);
    return args;
  }
  std::string ready_path() const override { return "/-/ready"; }
};

class VictoriaMetricsReceiver final : public Receiver {
 public:
  std::string name() const override { return "victoria-metrics"; }
  RawSamples samples(const std::string& selector, std::int64_t start_ms, std::int64_t end_ms) override {
    httplib::Client client = this->client();
    client.set_read_timeout(120);
    // What was accepted becomes searchable within a second or so; the flush makes it so now.
    client.Get("/internal/force_flush");
    const httplib::Params params{{"match[]", selector},
                                 {"start", std::to_string(static_cast<double>(start_ms) / 1000.0)},
                                 {"end", std::to_string(static_cast<double>(end_ms) / 1000.0)}};
    const auto res = client.Post("/api/v1/export", params);
    if (!res || res->status != 200)
      throw std::runtime_error("victoria-metrics export failed: " + (res ? res->body : "no answer"));
    RawSamples out;
    std::istringstream lines(res->body);
    for (std::string line; std::getline(lines, line);) {
      if (line.empty()) continue;
      const auto series = nlohmann::json::parse(line);
      auto& points = out[labels_to_string(labels_of(series.at("metric")))];
      const auto& values = series.at("values");
      const auto& times = series.at("timestamps");
      for (std::size_t i = 0; i < values.size(); ++i) {
        const auto& v = values[i];
        points.push_back({times[i].get<std::int64_t>(),
                          v.is_number() ? v.get<double>() : std::stod(v.get<std::string>())});
      }
    }
    for (auto& [name, points] : out)
      std::sort(points.begin(), points.end(), [](auto a, auto b) { return a.t_ms < b.t_ms; });
    return out;
  }

 private:
  std::vector<std::string> argv() const override {
    // Deduplication as VictoriaMetrics' docs ask of senders that retry (at-least-once delivery): a request
    // sent again after a lost answer leaves one sample per timestamp.
    return {"/usr/bin/victoria-metrics",
            "-httpListenAddr=127.0.0.1:" + std::to_string(port_),
            "-storageDataPath=" + dir_ + "/data",
            "-retentionPeriod=10y",
            "-dedup.minScrapeInterval=1ms",
            "-search.latencyOffset=0s",
            "-loggerLevel=ERROR"};
  }
  std::string ready_path() const override { return "/health"; }
};

}  // namespace

Receiver::Receiver() {
  std::string pattern = (std::filesystem::temp_directory_path() / "gpuwatch-receiver-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  port_ = free_port();
}

Receiver::~Receiver() {
  stop();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string Receiver::origin() const {
  return (web_config_.empty() ? "http://" : "https://") + std::string("127.0.0.1:") + std::to_string(port_);
}

httplib::Client Receiver::client() const {
  httplib::Client c(origin());
  if (!ca_file_.empty()) c.set_ca_cert_path(ca_file_);
  if (!user_.empty()) c.set_basic_auth(user_, password_);
  return c;
}

void Receiver::start() {
  process_ = std::make_unique<BackgroundProcess>(argv());
  httplib::Client client = this->client();
  client.set_connection_timeout(1);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto r = client.Get(ready_path()); r && r->status == 200) return;
    if (process_->wait_exit(std::chrono::milliseconds(0))) break;
    // Waiting for another process to come up in wall time; nothing simulated to advance.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const std::string log = process_->stderr_text();
  throw std::runtime_error(name() +
                           " did not become ready: " + log.substr(log.size() > 2000 ? log.size() - 2000 : 0));
}

void Receiver::stop() {
  if (!process_) return;
  process_->signal(SIGTERM);
  process_->wait_exit(std::chrono::seconds(30));
  process_.reset();  // SIGKILL if it has not exited
}

std::unique_ptr<Receiver> make_prometheus_receiver() {
  return std::make_unique<PrometheusReceiver>(ReceiverAccess{});
}
std::unique_ptr<Receiver> make_prometheus_receiver(const ReceiverAccess& access) {
  return std::make_unique<PrometheusReceiver>(access);
}
std::unique_ptr<Receiver> make_scraping_prometheus_receiver(const std::string& scrape_configs) {
  return std::make_unique<PrometheusReceiver>(ReceiverAccess{}, scrape_configs);
}
std::unique_ptr<Receiver> make_victoria_metrics_receiver() {
  return std::make_unique<VictoriaMetricsReceiver>();
}

}  // namespace gpuwatch::test
