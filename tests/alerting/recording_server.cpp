#include "recording_server.h"

namespace gpuwatch::alerting::testing {

RecordingServer::RecordingServer() {
  server_.Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard lock(mutex_);
    if (fail_next_ > 0) {
      --fail_next_;
      ++failures_served_;
      res.status = 503;
      res.set_content("down for the test", "text/plain");
      return;
    }
    bodies_.push_back(nlohmann::json::parse(req.body, nullptr, false));
    changed_.notify_all();
    res.set_content("{}", "application/json");
  });
  port_ = server_.bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

RecordingServer::~RecordingServer() {
  server_.stop();
  thread_.join();
}

void RecordingServer::fail_next(int n) {
  std::lock_guard lock(mutex_);
  fail_next_ = n;
}

std::vector<nlohmann::json> RecordingServer::bodies() const {
  std::lock_guard lock(mutex_);
  return bodies_;
}

int RecordingServer::failures_served() const {
  std::lock_guard lock(mutex_);
  return failures_served_;
}

bool RecordingServer::wait_for(const std::function<bool(const std::vector<nlohmann::json>&)>& pred,
                               std::chrono::milliseconds limit) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, limit, [&] { return pred(bodies_); });
}

}  // namespace gpuwatch::alerting::testing
