#include "alertmanager_process.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <thread>

namespace gpuwatch::alerting::testing {

AlertmanagerProcess::AlertmanagerProcess(const std::string& dir, const std::string& webhook_url)
    : dir_(dir), port_(free_port()) {
  std::ofstream(dir_ + "/alertmanager.yml") << R"(route:
  receiver: test
  group_by: [alertname, severity]
  group_wait: 200ms
  group_interval: 500ms
  repeat_interval: 1h
receivers:
  - name: test
    webhook_configs:
      - url: )" << webhook_url << R"(
        send_resolved: true
)";
}

AlertmanagerProcess::~AlertmanagerProcess() {
  stop();
}

bool AlertmanagerProcess::start() {
  process_ = std::make_unique<test::BackgroundProcess>(std::vector<std::string>{
      ALERTMANAGER_BINARY, "--config.file=" + dir_ + "/alertmanager.yml", "--storage.path=" + dir_ + "/data",
      "--web.listen-address=127.0.0.1:" + std::to_string(port_),
      "--cluster.listen-address=", "--log.level=warn"});
  httplib::Client client("127.0.0.1", port_);
  client.set_connection_timeout(std::chrono::milliseconds(200));
  for (int i = 0; i < 300; ++i) {
    if (auto res = client.Get("/-/ready"); res && res->status == 200) return true;
    if (process_->wait_exit(std::chrono::milliseconds(100))) break;
  }
  std::cerr << "alertmanager did not become ready:\n" << process_->stderr_text() << "\n";
  return false;
}

void AlertmanagerProcess::stop() {
  if (!process_) return;
  process_->signal(SIGTERM);
  if (!process_->wait_exit(std::chrono::seconds(10))) process_->signal(SIGKILL);
  process_->wait_exit(std::chrono::seconds(5));
  process_.reset();
}

nlohmann::json AlertmanagerProcess::alerts() const {
  httplib::Client client("127.0.0.1", port_);
  auto res = client.Get("/api/v2/alerts");
  if (!res || res->status != 200) return nullptr;
  return nlohmann::json::parse(res->body, nullptr, false);
}

}  // namespace gpuwatch::alerting::testing
