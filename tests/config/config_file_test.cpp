#include "config/config_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "detect/detector_table.h"

namespace gpuwatch {
namespace {

class ConfigFileTest : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    path_ = std::filesystem::temp_directory_path() /
            ("gpuwatch-config-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".yaml");
    std::ofstream(path_) << text;
    return path_.string();
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::filesystem::path path_;
};

TEST_F(ConfigFileTest, AppliesEveryKnownKey) {
  AgentOptions o;
  const auto errors = apply_config_file(write("listen: 127.0.0.1:9999\n"
                                              "interval: 100ms\n"
                                              "deadline: 50ms\n"
                                              "naming: dcgm\n"
                                              "dcgm_hostname_label: hostname\n"
                                              "proc_root: /tmp/proc\n"
                                              "log_level: debug\n"),
                                        o);
  ASSERT_TRUE(errors.empty()) << errors.front().to_string();
  EXPECT_EQ(o.listen, "127.0.0.1:9999");
  EXPECT_EQ(o.interval, std::chrono::milliseconds(100));
  EXPECT_EQ(effective_deadline(o), std::chrono::milliseconds(50));
  EXPECT_EQ(o.naming, MetricNaming::kDcgm);
  EXPECT_EQ(o.dcgm_hostname_label, "hostname");
  EXPECT_EQ(o.proc_root, "/tmp/proc");
  EXPECT_EQ(o.log_level, "debug");
}

// yaml-cpp keeps both and a lookup sees one: the second value was silently ignored or applied.
TEST_F(ConfigFileTest, DuplicateKeysAreErrorsWithBothPlaces) {
  AgentOptions o;
  const auto errors = apply_config_file(write("listen: 127.0.0.1:9999\n"
                                              "naming: dcgm\n"
                                              "interval: 1s\n"
                                              "log_level: debug\n"
                                              "interval: 2s\n"),
                                        o);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].line, 5);
  EXPECT_EQ(errors[0].column, 1);
  EXPECT_EQ(errors[0].message, "duplicate key 'interval', first at line 3");
}

// The hostname is a label of every series: a megabyte of it made /metrics hundreds of megabytes.
TEST_F(ConfigFileTest, HostnameIsCutAndMadeValid) {
  AgentOptions o;
  auto errors = apply_config_file(write("hostname: " + std::string(1 << 20, 'h') + "\n"), o);
  ASSERT_TRUE(errors.empty()) << errors.front().to_string();
  EXPECT_LE(o.hostname.size(), 253u);
  EXPECT_TRUE(o.hostname.starts_with("hhhh"));
  errors = apply_config_file(write("hostname: gpu\xff\xfenode\n"), o);
  ASSERT_TRUE(errors.empty()) << errors.front().to_string();
  EXPECT_EQ(o.hostname, "gpu\xEF\xBF\xBD\xEF\xBF\xBDnode");
}

TEST_F(ConfigFileTest, AlertLabelsMustBeValidText) {
  AgentOptions o;
  const auto errors = apply_config_file(write("alert_labels: team=ml\xff\n"), o);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].to_string().find(":1:15: 'alert_labels': label values must be valid UTF-8"),
            std::string::npos)
      << errors[0].to_string();
}

TEST_F(ConfigFileTest, EveryDetectorTunableIsAnOptionInItsUnit) {
  AgentOptions o;
  auto errors = apply_config_file(write("detect.xid.hold: 30m\n"
                                        "detect.throttle.temperature_margin_c: 8C\n"
                                        "detect.pcie.busy_utilization: 35%\n"
                                        "detect.memory_leak.min_growth_bytes: 512MiB\n"
                                        "detect.ecc.retired_pages_limit: 48\n"
                                        "oom_forecast_horizon: 2h\n"),
                                  o);
  ASSERT_TRUE(errors.empty()) << errors.front().to_string();
  EXPECT_EQ(o.detectors.find("xid", "hold"), 30 * 60 * 1000);
  EXPECT_EQ(o.detectors.throttle().temperature_margin_c, 8);
  EXPECT_DOUBLE_EQ(o.detectors.pcie().busy_utilization, 0.35);
  EXPECT_EQ(o.detectors.find("memory_leak", "min_growth_bytes"), 512.0 * 1024 * 1024);
  EXPECT_EQ(o.detectors.ecc().retired_pages_limit, 48U);
  EXPECT_EQ(o.detectors.find("oom_forecast", "horizon"), 2 * 3600 * 1000);
  // Every tunable shows its default the way it is written.
  EXPECT_EQ(find_option("detect.idle_waste.window")->show(AgentOptions{}), "1d");
  EXPECT_EQ(find_option("detect.memory_leak.min_growth_bytes")->show(AgentOptions{}), "1GiB");
}

TEST_F(ConfigFileTest, DetectorTunablesAreValidatedAgainstTheirRange) {
  AgentOptions o;
  auto errors = apply_config_file(write("detect.pcie.busy_utilization: 1.5\n"
                                        "detect.xid.repeat_count: many\n"
                                        "detect.oom_forecast.window: 10s\n"
                                        "detect.throttle.temperature_margin: 5\n"),
                                  o);
  ASSERT_EQ(errors.size(), 4U);
  EXPECT_NE(errors[0].message.find("expected a fraction from 0 to 1"), std::string::npos)
      << errors[0].message;
  EXPECT_NE(errors[1].message.find("expected a whole number of at least 2"), std::string::npos)
      << errors[1].message;
  EXPECT_NE(errors[2].message.find("expected a duration of at least 1m"), std::string::npos)
      << errors[2].message;
  EXPECT_NE(errors[3].message.find("did you mean 'detect.throttle.temperature_margin_c'"), std::string::npos)
      << errors[3].message;
  EXPECT_EQ(o.detectors.pcie().busy_utilization, rules::PcieSettings{}.busy_utilization);
}

TEST_F(ConfigFileTest, NodePowerBudgetIsWattsOrOffAndRejectsNegatives) {
  AgentOptions o;
  EXPECT_EQ(find_option("node_power_budget_watts")->show(o),
            "0");  // off unless the operator knows the budget
  auto errors = apply_config_file(write("node_power_budget_watts: 5600\n"), o);
  ASSERT_TRUE(errors.empty()) << errors.front().to_string();
  EXPECT_EQ(o.detectors.find("node_contention", "power_budget_watts"), 5600);
  errors = apply_config_file(write("node_power_budget_watts: 4800W\n"), o);
  ASSERT_TRUE(errors.empty()) << errors.front().to_string();
  EXPECT_EQ(o.detectors.find("node_contention", "power_budget_watts"), 4800);
  errors = apply_config_file(write("node_power_budget_watts: -1\n"), o);
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_EQ(errors[0].line, 1);
  EXPECT_NE(errors[0].message.find("expected watts, such as 5600 or 5600W, or 0 for off"), std::string::npos)
      << errors[0].message;
  EXPECT_EQ(o.detectors.find("node_contention", "power_budget_watts"), 4800);
}

TEST_F(ConfigFileTest, ReportsEveryErrorWithLineColumnAndHint) {
  AgentOptions o;
  const std::string path = write(
      "interval: soon\n"
      "intervall: 1s\n"
      "naming: prometheus\n"
      "listen: 0.0.0.0:19400\n");
  const auto errors = apply_config_file(path, o);
  ASSERT_EQ(errors.size(), 3U);
  EXPECT_EQ(errors[0].to_string(),
            path + ":1:11: 'interval': expected a duration of at least 10ms, such as 1s, got 'soon'");
  EXPECT_EQ(errors[1].to_string(), path + ":2:1: unknown key 'intervall' (did you mean 'interval'?)");
  EXPECT_EQ(errors[2].line, 3);
  EXPECT_NE(errors[2].message.find("expected native or dcgm"), std::string::npos);
  // Valid keys are still applied.
  EXPECT_EQ(o.listen, "0.0.0.0:19400");
}

TEST_F(ConfigFileTest, ReportsSyntaxErrorsWithPosition) {
  AgentOptions o;
  const std::string path = write("interval: 1s\nnaming: [dcgm\n");
  const auto errors = apply_config_file(path, o);
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_GE(errors[0].line, 2);
  EXPECT_NE(errors[0].message.find("invalid YAML"), std::string::npos);
}

TEST_F(ConfigFileTest, RejectsNonScalarValuesAndNonMappingRoots) {
  AgentOptions o;
  auto errors = apply_config_file(write("interval:\n  - 1s\n"), o);
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_NE(errors[0].message.find("single value"), std::string::npos);
  errors = apply_config_file(write("- listen\n"), o);
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_NE(errors[0].message.find("expected a mapping"), std::string::npos);
}

TEST_F(ConfigFileTest, MissingFileIsAnError) {
  AgentOptions o;
  const auto errors = apply_config_file("/nonexistent/gpuwatch.yaml", o);
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_NE(errors[0].message.find("cannot open"), std::string::npos);
}

TEST(OptionTable, EveryFlagHasAConfigKeyAndRoundTrips) {
  AgentOptions changed;
  ASSERT_EQ(find_option("retention_time")->apply(changed, "7d"), std::nullopt);
  ASSERT_EQ(find_option("retention_size")->apply(changed, "500MiB"), std::nullopt);
  ASSERT_EQ(find_option("alertmanager_url")->apply(changed, "http://127.0.0.1:9093"), std::nullopt);
  for (const auto& spec : option_table()) {
    EXPECT_EQ(find_option(spec.key), &spec);
    EXPECT_FALSE(spec.help.empty()) << spec.key;
    // Showing a setting and applying it to fresh options gives it back, empty values included: the value
    // `config check` prints is valid, and a reload keeps restart-only settings this way.
    for (const AgentOptions& original : {AgentOptions{}, changed}) {
      AgentOptions copy;
      const std::string shown = spec.show(original);
      EXPECT_EQ(spec.apply(copy, shown), std::nullopt) << spec.key << "=" << shown;
      EXPECT_EQ(spec.show(copy), shown) << spec.key;
    }
  }
  EXPECT_EQ(flag_name("nvml_library"), "nvml-library");
}

// The agent takes every setting; the other commands a few, each named by the table.
TEST(OptionTable, TheAgentTakesEverySettingAndStatusOnlyWhatOneReadingUses) {
  for (const auto& spec : option_table()) EXPECT_TRUE(spec.taken_by(kAgentCommand)) << spec.key;
  for (const auto& detector : detect::detector_table())
    for (const auto& t : detector.tunables)
      EXPECT_TRUE(find_option(t.key())->taken_by(kStatusCommand)) << t.key() << ": status judges by it";
  for (const char* key :
       {"nvml_library", "sim_scenario", "proc_root", "sysfs_root", "kmsg", "hostname", "deadline"})
    EXPECT_TRUE(find_option(key)->taken_by(kStatusCommand)) << key;
  for (const char* key : {"listen", "interval", "data_dir", "store", "alertmanager_url", "http_workers",
                          "log_level", "naming", "external_url"})
    EXPECT_FALSE(find_option(key)->taken_by(kStatusCommand)) << key;
  // top reads the GPUs as status does, and reads and draws at an interval.
  for (const auto& spec : option_table()) {
    EXPECT_TRUE(!spec.taken_by(kStatusCommand) || spec.taken_by(kTopCommand)) << spec.key;
  }
  EXPECT_TRUE(find_option("interval")->taken_by(kTopCommand));
  EXPECT_FALSE(find_option("listen")->taken_by(kTopCommand));
  EXPECT_EQ(option_command_names(find_option("proc_root")->commands), "agent, status, top, sim proc-tree");
  EXPECT_EQ(option_command_names(find_option("sysfs_root")->commands), "agent, status, top, sim sysfs-tree");
  EXPECT_EQ(option_command_names(find_option("nvml_library")->commands),
            "agent, status, top, sim proc-tree, sim sysfs-tree");
  EXPECT_EQ(option_command_names(find_option("interval")->commands), "agent, top");
  EXPECT_EQ(option_command_names(find_option("listen")->commands), "agent");
}

// `status` shares the agent's file: it applies the keys it takes and skips the others unread (a value only
// the agent would refuse is the agent's matter); a key no command knows is still an error.
TEST_F(ConfigFileTest, ACommandOtherThanTheAgentReadsOnlyItsKeys) {
  AgentOptions o;
  auto errors = apply_config_file(write("listen: nowhere\n"
                                        "interval: soon\n"
                                        "proc_root: /tmp/proc\n"
                                        "detect.throttle.temperature_margin_c: 25\n"),
                                  o, kStatusCommand);
  ASSERT_TRUE(errors.empty()) << errors.front().to_string();
  EXPECT_EQ(o.proc_root, "/tmp/proc");
  EXPECT_EQ(o.listen, AgentOptions{}.listen);
  EXPECT_EQ(o.interval, AgentOptions{}.interval);
  EXPECT_EQ(find_option("detect.throttle.temperature_margin_c")->show(o), "25");

  errors = apply_config_file(write("proc_root: /tmp/proc\nlisten: nowhere\n"), o);
  ASSERT_EQ(errors.size(), 1U) << "the agent reads them all";
  EXPECT_NE(errors[0].message.find("'listen'"), std::string::npos) << errors[0].message;

  errors = apply_config_file(write("proc_rot: /tmp/proc\n"), o, kStatusCommand);
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_NE(errors[0].message.find("did you mean 'proc_root'"), std::string::npos) << errors[0].message;
}

// Each tunable of each detector of the table is an option under its name, with its help, that sets the value
// the detector is built from.
TEST(OptionTable, EveryTunableOfTheDetectorTableIsAnOption) {
  std::size_t tunables = 0;
  for (const auto& detector : detect::detector_table()) {
    for (const auto& t : detector.tunables) {
      ++tunables;
      const OptionSpec* spec = find_option(t.key());
      ASSERT_NE(spec, nullptr) << detector.name << "." << t.name << " is not an option";
      EXPECT_EQ(spec->help, t.help) << t.key();
      AgentOptions o;
      ASSERT_EQ(spec->apply(o, spec->show(AgentOptions{})), std::nullopt) << t.key();
      EXPECT_EQ(o.detectors.find(detector.name, t.name), t.default_value) << t.key();
    }
  }
  EXPECT_GE(tunables, 40U);
}

TEST(OptionTable, IntervalBelowTenMillisecondsIsRefused) {
  AgentOptions o;
  EXPECT_NE(find_option("interval")->apply(o, "5ms"), std::nullopt);
  EXPECT_EQ(find_option("interval")->apply(o, "10ms"), std::nullopt);
  EXPECT_EQ(effective_deadline(o), std::chrono::milliseconds(50));
}

// Durations, counts and sizes are each checked by one helper: the range is in the message, and "off" is zero
// where an option has it.
TEST(OptionTable, DurationsCountsAndSizesSayTheirRange) {
  AgentOptions o;
  auto problem = [&](std::string_view key, std::string_view value) {
    return find_option(key)->apply(o, value).value_or("");
  };
  EXPECT_EQ(problem("store_sync_interval", "2m"), "expected a duration from 10ms to 1m, such as 2s");
  EXPECT_EQ(problem("store_sync_interval", "60s"), "");
  EXPECT_EQ(o.store_sync_interval, std::chrono::seconds(60));
  EXPECT_EQ(problem("deadline", "0s"), "expected a duration of at least 1ms, such as 800ms");
  EXPECT_EQ(problem("downsample_after", "30m"), "expected off or a duration of at least 1h, such as 48h");
  EXPECT_EQ(problem("downsample_after", "off"), "");
  EXPECT_EQ(o.downsample_after.count(), 0);
  EXPECT_EQ(find_option("downsample_after")->show(o), "off");
  EXPECT_EQ(problem("retention_time", "7d"), "");
  EXPECT_EQ(find_option("retention_time")->show(o), "7d");  // whole days in days, not 1w
  EXPECT_EQ(problem("store_max_process_series", "1000000000"),
            "expected a number of series from 0 to 999999999, such as 2000");
  EXPECT_EQ(problem("query_max_samples", "00"),
            "expected a number of samples from 1 to 999999999999, such as 50000000");
  EXPECT_EQ(problem("query_max_samples", "-5"), problem("query_max_samples", "00"));
  EXPECT_EQ(problem("retention_size", "1KiB"), "expected a size of at least 1MiB, such as 1GiB");
}

// The HTTP server's deadlines and limits are settings like any other (docs/http-server.md).
TEST_F(ConfigFileTest, HttpServerLimitsAreSettings) {
  AgentOptions o;
  auto errors = apply_config_file(write("http_header_timeout: 2s\n"
                                        "http_body_timeout: 5s\n"
                                        "http_idle_timeout: 15s\n"
                                        "http_max_connections: 64\n"
                                        "http_max_connections_per_client: 8\n"
                                        "http_max_reply_size: 16MiB\n"
                                        "http_workers: 2\n"
                                        "http_queue: 0\n"),
                                  o);
  ASSERT_TRUE(errors.empty()) << errors.front().to_string();
  EXPECT_EQ(o.http_header_timeout, std::chrono::seconds(2));
  EXPECT_EQ(o.http_body_timeout, std::chrono::seconds(5));
  EXPECT_EQ(o.http_idle_timeout, std::chrono::seconds(15));
  EXPECT_EQ(o.http_max_connections, 64U);
  EXPECT_EQ(o.http_max_connections_per_client, 8U);
  EXPECT_EQ(o.http_max_reply_size, 16U << 20);
  EXPECT_EQ(o.http_workers, 2U);
  EXPECT_EQ(o.http_queue, 0U);

  const std::string path = write("http_workers: 2\nhttp_idle_timeout: 500ms\nhttp_max_connections: 0\n");
  errors = apply_config_file(path, o);
  ASSERT_EQ(errors.size(), 2U);
  EXPECT_EQ(errors[0].to_string(),
            path + ":2:20: 'http_idle_timeout': expected a duration of at least 1s, such as 1m, got '500ms'");
  EXPECT_EQ(errors[1].to_string(),
            path +
                ":3:23: 'http_max_connections': expected a number of connections from 1 "
                "to 1000000, such as 512, got '0'");
  EXPECT_EQ(o.http_idle_timeout, std::chrono::seconds(15));  // a refused value leaves the setting as it was
}

}  // namespace
}  // namespace gpuwatch

#include <sstream>

#include "config/options_reference.h"

namespace gpuwatch {
namespace {

TEST(OptionsReference, DocsMatchTheOptionTable) {
  std::ifstream in(std::string(GPUWATCH_SOURCE_DIR) + "/docs/configuration.md");
  ASSERT_TRUE(in) << "docs/configuration.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::string begin = "<!-- BEGIN GENERATED: gpuwatch config reference -->\n";
  const std::string end = "<!-- END GENERATED -->";
  const auto b = doc.find(begin), e = doc.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  EXPECT_EQ(doc.substr(b + begin.size(), e - b - begin.size()), options_reference_markdown())
      << "regenerate with: build/gpuwatch config reference";
}

// Prometheus's --query.timeout and --query.max-samples, as settings of the agent.
TEST_F(ConfigFileTest, QueryLimitsAreSettings) {
  AgentOptions o;
  auto errors = apply_config_file(write("query_timeout: 30s\nquery_max_samples: 1000000\n"), o);
  ASSERT_TRUE(errors.empty()) << errors.front().to_string();
  EXPECT_EQ(o.query_timeout, std::chrono::seconds(30));
  EXPECT_EQ(o.query_max_samples, 1'000'000U);
  errors = apply_config_file(write("query_timeout: 1ms\nquery_max_samples: 0\n"), o);
  ASSERT_EQ(errors.size(), 2U);
  EXPECT_NE(errors[0].message.find("at least 10ms"), std::string::npos) << errors[0].message;
  EXPECT_NE(errors[1].message.find("from 1 to"), std::string::npos) << errors[1].message;
}

TEST_F(ConfigFileTest, TheScrapeSectionSetsTargetsWithTheSectionsDefaults) {
  AgentOptions o;
  const auto errors = apply_config_file(write("scrape:\n"
                                              "  interval: 5s\n"
                                              "  sample_limit: 1000\n"
                                              "  targets:\n"
                                              "    - {job: vllm, url: http://127.0.0.1:8000/metrics}\n"
                                              "    - job: triton\n"
                                              "      url: http://127.0.0.1:8002/metrics\n"
                                              "      timeout: 1s\n"
                                              "      labels: {model: resnet}\n"
                                              "      body_size_limit: 2MiB\n"
                                              "      honor_timestamps: false\n"
                                              "  discovery: {enabled: true, job: inference}\n"),
                                        o);
  ASSERT_TRUE(errors.empty()) << errors[0].to_string();
  ASSERT_EQ(o.scrape.targets.size(), 2u);
  EXPECT_EQ(o.scrape.targets[0].job, "vllm");
  EXPECT_EQ(o.scrape.targets[0].interval, std::chrono::seconds(5));  // the section's default
  EXPECT_EQ(o.scrape.targets[0].timeout, std::chrono::seconds(5));   // unset: at most the interval
  EXPECT_EQ(o.scrape.targets[0].sample_limit, 1000u);
  EXPECT_EQ(o.scrape.targets[1].timeout, std::chrono::seconds(1));
  EXPECT_EQ(o.scrape.targets[1].labels,
            (std::vector<std::pair<std::string, std::string>>{{"model", "resnet"}}));
  EXPECT_EQ(o.scrape.targets[1].body_size_limit, 2u << 20);
  EXPECT_FALSE(o.scrape.targets[1].honor_timestamps);
  EXPECT_TRUE(o.scrape.discovery.enabled);
  EXPECT_EQ(o.scrape.discovery.target.job, "inference");
  EXPECT_EQ(o.scrape.discovery.target.interval, std::chrono::seconds(5));
}

TEST_F(ConfigFileTest, ScrapeSectionProblemsAreReportedWhereTheyAre) {
  AgentOptions o;
  const auto errors = apply_config_file(write("scrape:\n"
                                              "  targets:\n"
                                              "    - {job: a, url: ftp://x}\n"
                                              "    - {url: http://127.0.0.1:1/metrics, intervall: 5s}\n"
                                              "    - {job: c, url: http://127.0.0.1:2/metrics, interval: 1s, "
                                              "timeout: 5s, sample_limit: -1}\n"),
                                        o);
  std::vector<std::string> text;
  for (const auto& e : errors) text.push_back(e.to_string());
  ASSERT_EQ(text.size(), 5u) << ::testing::PrintToString(text);
  EXPECT_NE(text[0].find(":3:21: 'url': expected http://host:port/path"), std::string::npos) << text[0];
  EXPECT_NE(text[1].find(":4:41: unknown key 'intervall' in a scrape target (did you mean 'interval'?)"),
            std::string::npos)
      << text[1];
  EXPECT_NE(text[2].find(":4:7: a scrape target needs a 'job'"), std::string::npos) << text[2];
  EXPECT_NE(text[3].find("'sample_limit': expected a whole number"), std::string::npos) << text[3];
  EXPECT_NE(text[4].find("timeout is longer than its interval"), std::string::npos) << text[4];
}

}  // namespace
}  // namespace gpuwatch
