#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "config/config_file.h"

namespace gpuwatch {
namespace {

struct ConfigText {
  explicit ConfigText(const std::string& yaml) {
    std::string pattern = std::filesystem::temp_directory_path() / "gpuwatch-rwconf-XXXXXX";
    dir = mkdtemp(pattern.data());
    path = dir + "/gpuwatch.yaml";
    std::ofstream(path) << yaml;
  }
  ~ConfigText() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  std::string dir, path;
};

TEST(RemoteWriteConfig, TheListTakesPrometheusShapedSettingsPerReceiver) {
  ConfigText c(R"(remote_write:
  - url: https://mimir.example:9009/api/v1/push
    name: mimir
    headers: {X-Scope-OrgID: gpu-team}
    basic_auth: {username: agent, password_file: /etc/gpuwatch/mimir.pass}
    tls_config: {ca_file: /etc/ssl/ca.pem, cert_file: /etc/ssl/c.pem, key_file: /etc/ssl/c.key}
    write_relabel_configs:
      - {action: keep, regex: "gpu_.*"}
      - {action: drop, source_labels: [__name__, gpu], regex: "gpu_power_watts;7"}
    queue_max_size: 64MiB
  - url: http://vm:8428/api/v1/write
    authorization: {credentials: s3cret}
remote_write_url: http://prom:9090/api/v1/write
)");
  AgentOptions o;
  const auto errors = apply_config_file(c.path, o);
  ASSERT_TRUE(errors.empty()) << errors.front().to_string();
  const auto targets = remote_write_targets(o);
  ASSERT_EQ(targets.size(), 3u);
  EXPECT_EQ(targets[0].name, "mimir");
  EXPECT_EQ(targets[0].headers.at("X-Scope-OrgID"), "gpu-team");
  EXPECT_EQ(targets[0].basic_auth_username, "agent");
  EXPECT_EQ(targets[0].basic_auth_password_file, "/etc/gpuwatch/mimir.pass");
  EXPECT_EQ(targets[0].tls_ca_file, "/etc/ssl/ca.pem");
  ASSERT_EQ(targets[0].filters.size(), 2u);
  EXPECT_EQ(targets[0].filters[1].action, RemoteWriteFilter::Action::kDrop);
  EXPECT_EQ(targets[0].filters[1].source_labels, (std::vector<std::string>{"__name__", "gpu"}));
  EXPECT_EQ(targets[0].queue_max_size, 64u << 20);
  EXPECT_EQ(targets[1].name, "vm_8428_api_v1_write");
  EXPECT_EQ(targets[1].bearer_token, "s3cret");
  EXPECT_EQ(targets[2].url, "http://prom:9090/api/v1/write");
  EXPECT_EQ(targets[2].name, "prom_9090_api_v1_write");
}

TEST(RemoteWriteConfig, MistakesAreReportedWhereTheyAre) {
  ConfigText c(R"(remote_write:
  - url: ftp://nowhere
    tls_config: {cert_file: /c.pem}
    write_relabel_configs:
      - {action: replace, regex: "("}
    colour: blue
)");
  AgentOptions o;
  const auto errors = apply_config_file(c.path, o);
  std::vector<std::string> said;
  for (const auto& e : errors) said.push_back(e.to_string());
  ASSERT_EQ(said.size(), 5u) << testing::PrintToString(said);
  const std::string file = c.path + ":";
  EXPECT_EQ(said[0], file + "6:5: unknown key 'colour' in a remote_write entry");
  EXPECT_EQ(said[1].rfind(file + "2:10: 'url' expects an http:// or https:// URL", 0), 0u) << said[1];
  EXPECT_EQ(said[2].rfind(file + "3:17: tls_config needs both cert_file and key_file", 0), 0u) << said[2];
  EXPECT_EQ(said[3].rfind(file + "5:18: 'action' expects keep or drop", 0), 0u) << said[3];
  EXPECT_EQ(said[4].rfind(file + "5:34: 'regex': ", 0), 0u) << said[4];
}

}  // namespace
}  // namespace gpuwatch
