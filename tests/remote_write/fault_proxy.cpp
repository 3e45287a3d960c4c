#include "fault_proxy.h"

#include <httplib.h>

#include <optional>
#include <stdexcept>

namespace gpuwatch::test {

FaultProxy::FaultProxy(std::string upstream_write_url) : server_(std::make_unique<httplib::Server>()) {
  const auto path_start = upstream_write_url.find('/', upstream_write_url.find("://") + 3);
  upstream_origin_ = upstream_write_url.substr(0, path_start);
  upstream_path_ = upstream_write_url.substr(path_start);
  server_->Post("/api/v1/write", [this](const httplib::Request& req, httplib::Response& res) {
    std::optional<Scripted> step;
    {
      std::lock_guard lock(mu_);
      ++requests_;
      if (!script_.empty()) {
        step = script_.front();
        script_.pop_front();
      }
    }
    if (step && step->status != 0) {
      res.status = step->status;
      if (!step->retry_after.empty()) res.set_header("Retry-After", step->retry_after);
      res.set_content("scripted failure", "text/plain");
      return;
    }
    httplib::Client upstream(upstream_origin_);
    httplib::Headers headers;
    for (const char* h : {"Content-Encoding", "X-Prometheus-Remote-Write-Version", "User-Agent"})
      if (req.has_header(h)) headers.emplace(h, req.get_header_value(h));
    const auto answer =
        upstream.Post(upstream_path_, headers, req.body, req.get_header_value("Content-Type"));
    {
      std::lock_guard lock(mu_);
      if (answer) ++forwarded_;
    }
    if (step) {  // forwarded; now the answer waits until the test releases it (or gives up after a minute)
      std::unique_lock lock(mu_);
      holding_ = true;
      changed_.notify_all();
      changed_.wait_for(lock, std::chrono::minutes(1), [this] { return released_; });
      holding_ = false;
    }
    res.status = answer ? answer->status : 502;
    if (answer) res.set_content(answer->body, "text/plain");
  });
  port_ = server_->bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("fault proxy: cannot bind");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
}

FaultProxy::~FaultProxy() {
  release();
  server_->stop();
  thread_.join();
}

std::string FaultProxy::write_url() const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/api/v1/write";
}

void FaultProxy::answer(int status, int count, const std::string& retry_after) {
  std::lock_guard lock(mu_);
  for (int i = 0; i < count; ++i) script_.push_back({status, retry_after});
}

void FaultProxy::hold_next() {
  std::lock_guard lock(mu_);
  released_ = false;
  script_.push_back({0, ""});
}

bool FaultProxy::wait_until_held(std::chrono::milliseconds limit) {
  std::unique_lock lock(mu_);
  return changed_.wait_for(lock, limit, [this] { return holding_; });
}

void FaultProxy::release() {
  std::lock_guard lock(mu_);
  released_ = true;
  changed_.notify_all();
}

int FaultProxy::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

int FaultProxy::forwarded() const {
  std::lock_guard lock(mu_);
  return forwarded_;
}

}  // namespace gpuwatch::test
