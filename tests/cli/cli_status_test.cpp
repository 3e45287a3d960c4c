// `gpuwatch status` and `gpuwatch config check` as a user runs them, on the simulator.
#include <gtest/gtest.h>

#include <regex>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_process.h"

namespace gpuwatch::test {
namespace {

const std::string kBinary = std::string(GPUWATCH_BINARY_DIR) + "/gpuwatch";
const std::string kScenarios = std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/";

// Scaled mode with the epoch an hour ago: scenario time is one hour in, every incident has happened.
std::map<std::string, std::string> one_hour_in() {
  return {{"GPUWATCH_SIM_EPOCH", std::to_string(std::time(nullptr) - 3600)}, {"NO_COLOR", "1"}};
}

TEST(StatusCommand, HealthyNodeExitsZeroAndListsEveryGpu) {
  auto r =
      run_process({kBinary, "status", "--sim-scenario", kScenarios + "healthy-8xh200.yaml"}, one_hour_in());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (int gpu = 0; gpu < 8; ++gpu) {
    EXPECT_NE(r.out.find("\n" + std::to_string(gpu) + "    NVIDIA H200"), std::string::npos) << r.out;
  }
  EXPECT_EQ(r.out.find("critical"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\033["), std::string::npos) << "no colour when piped";
  EXPECT_NE(r.out.find("no alert conditions"), std::string::npos) << r.out;
}

TEST(StatusCommand, IncidentsNodeIsCriticalAndNamesTheFaults) {
  auto r =
      run_process({kBinary, "status", "--sim-scenario", kScenarios + "incidents-8xh200.yaml"}, one_hour_in());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find("GPU is lost"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("uncorrectable ECC"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("x8, below its maximum x16"), std::string::npos) << r.out;
  // The alert conditions that hold in this reading, evaluated by status itself.
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\n3 +page +GpuLost +GPU 3 fell off the bus\n"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\n2 +page +GpuEccUncorrectable "))) << r.out;
  EXPECT_EQ(r.out.find("Watchdog"), std::string::npos) << r.out;  // status is not a running agent
}

TEST(StatusCommand, JsonListsEightGpusWithTheLostOneMarked) {
  auto r = run_process({kBinary, "status", "--json", "--sim-scenario", kScenarios + "incidents-8xh200.yaml"},
                       one_hour_in());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc.at("devices").size(), 8U);
  int lost = 0;
  for (const auto& d : doc.at("devices")) {
    if (d.at("state") == "lost") ++lost;
  }
  EXPECT_EQ(lost, 1);
  EXPECT_TRUE(doc.contains("schema_version"));
}

TEST(StatusCommand, ADetectorThresholdMovesTheVerdictTheExitCodeAndTheAlertsTogether) {
  // The healthy H200s run about 20 C under their slowdown threshold: a 25 C margin puts every one of
  // them "near slowdown", in the table, the JSON health, the exit code and the alert conditions alike.
  const std::vector<std::string> base = {kBinary,
                                         "status",
                                         "--sim-scenario",
                                         kScenarios + "healthy-8xh200.yaml",
                                         "--detect.throttle.temperature-margin-c",
                                         "25"};
  auto r = run_process(base, one_hour_in());
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_NE(r.out.find("near the slowdown threshold"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\n0 +ticket +GpuTemperatureNearSlowdown "))) << r.out;
  auto with_json = base;
  with_json.push_back("--json");
  r = run_process(with_json, one_hour_in());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  for (const auto& d : nlohmann::json::parse(r.out).at("devices"))
    EXPECT_EQ(d.at("health").at("verdict"), "warning") << d.dump();
}

TEST(StatusCommand, TakesTheScenarioUnderEitherSpelling) {
  for (const char* flag : {"--sim-scenario", "--scenario"}) {
    auto r = run_process({kBinary, "status", flag, kScenarios + "healthy-8xh200.yaml"}, one_hour_in());
    EXPECT_EQ(r.exit_code, 0) << flag << "\n" << r.err;
  }
}

TEST(SimExportCommand, TakesTheScenarioAndLibraryUnderTheSpellingsOfTheOtherCommands) {
  const std::string dir = "/tmp/gpuwatch-export-flags-" + std::to_string(::getpid());
  for (const char* flag : {"--scenario", "--sim-scenario"}) {
    auto r = run_process({kBinary, "sim", "export", flag, kScenarios + "healthy-8xh200.yaml", "--duration",
                          "2s", "--out-dir", dir, "--nvml-lib",
                          std::string(GPUWATCH_BINARY_DIR) + "/sim-lib/libnvidia-ml.so.1"});
    EXPECT_EQ(r.exit_code, 0) << flag << "\n" << r.err;
  }
  std::filesystem::remove_all(dir);
}

TEST(StoreCheckCommand, DefaultsToTheAgentsDataDir) {
  auto r = run_process({kBinary, "store", "check", "--help"});
  EXPECT_NE(r.out.find("--data-dir TEXT=/var/lib/gpuwatch"), std::string::npos) << r.out << r.err;
}

TEST(StatusCommand, AnOutOfRangeTunableIsAUsageError) {
  auto r = run_process({kBinary, "status", "--detect.pcie.busy-utilization", "2"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("expected a fraction from 0 to 1"), std::string::npos) << r.err;
}

TEST(StatusCommand, ANamedLibraryThatDoesNotLoadSaysWhyAndDoesNotPromiseARetry) {
  auto r = run_process({kBinary, "status", "--nvml-lib", "/nonexistent/libnvidia-ml.so.1"});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(
      r.err.find("cannot load the NVML library /nonexistent/libnvidia-ml.so.1: cannot open shared object "
                 "file: No such file or directory"),
      std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("retrying"), std::string::npos) << "status reads once\n" << r.err;
  EXPECT_EQ(r.err.find("Install the NVIDIA driver"), std::string::npos) << r.err;
}

TEST(StatusCommand, MalformedScenarioIsReportedWithFileAndLine) {
  auto r = run_process({kBinary, "status", "--sim-scenario", kScenarios + "tests/bad-unknown-key.yaml"});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("bad-unknown-key.yaml:"), std::string::npos) << r.err;
}

TEST(StatusCommand, BadFlagIsAUsageError) {
  auto r = run_process({kBinary, "status", "--deadline", "soon"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--deadline"), std::string::npos) << r.err;
}

TEST(ConfigCommand, CheckReportsEveryErrorWithPosition) {
  const std::string path = "/tmp/gpuwatch-cli-config-" + std::to_string(::getpid()) + ".yaml";
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs("listen: 127.0.0.1:19400\nintreval: 1s\nnaming: dcgmm\n", f);
  std::fclose(f);
  auto r = run_process({kBinary, "config", "check", path});
  std::remove(path.c_str());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(path + ":2:1: unknown key 'intreval' (did you mean 'interval'?)"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(path + ":3:9: 'naming': expected native or dcgm"), std::string::npos) << r.err;
}

// The agent runs without a broken window file or an unreadable token file (logging it); the check fails on
// them, naming the file and the problem.
TEST(ConfigCommand, CheckReadsTheFilesTheConfigNames) {
  const std::string dir = "/tmp/gpuwatch-cli-config-files-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/windows.json") << R"([{"matchers":[{"name":"gpu","value":"3","isRegex":"yes"}],
      "startsAt":"2026-01-01T00:00:00Z","endsAt":"2026-01-02T00:00:00Z"}])";
  std::ofstream(dir + "/datafile") << "not a directory";
  const std::string path = dir + "/gpuwatch.yaml";
  std::ofstream(path) << "silences_file: " << dir << "/windows.json\napi_token_file: " << dir
                      << "/no-token\ndata_dir: " << dir << "/datafile/sub\n";
  auto r = run_process({kBinary, "config", "check", path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(path + ": silences_file: " + dir +
                       "/windows.json: silence 0: matchers[0].isRegex: expected true or false"),
            std::string::npos)
      << r.err;
  EXPECT_NE(
      r.err.find(path + ": api_token_file: " + dir + "/no-token: cannot read: No such file or directory"),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(path + ": data_dir: " + dir + "/datafile/sub: "), std::string::npos) << r.err;

  std::ofstream(dir + "/windows.json", std::ios::trunc) << "[]";
  std::ofstream(dir + "/no-token") << "t0ken\n";
  std::ofstream(path, std::ios::trunc) << "silences_file: " << dir << "/windows.json\napi_token_file: " << dir
                                       << "/no-token\ndata_dir: " << dir << "/data\n";
  r = run_process({kBinary, "config", "check", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::filesystem::remove_all(dir);
}

TEST(ConfigCommand, CheckAcceptsAValidFileAndPrintsTheSettings) {
  const std::string path = "/tmp/gpuwatch-cli-config-ok-" + std::to_string(::getpid()) + ".yaml";
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs("interval: 250ms\nnaming: dcgm\n", f);
  std::fclose(f);
  auto r = run_process({kBinary, "config", "check", path});
  std::remove(path.c_str());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("interval: 250ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("naming: dcgm"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gpuwatch::test

namespace gpuwatch::test {
namespace {

TEST(StatusCommand, AHungDriverEndsWithAClearMessageInsteadOfHanging) {
  const std::string path = "/tmp/gpuwatch-cli-hang-" + std::to_string(::getpid()) + ".yaml";
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs(
      "node: {seed: 3}\ndevices:\n  - {model: H200, count: 2}\nfaults:\n  - {type: driver_hang, at: 0s}\n",
      f);
  std::fclose(f);
  auto r = run_process({kBinary, "status", "--sim-scenario", path, "--deadline", "100ms"}, {},
                       std::chrono::seconds(30));
  std::remove(path.c_str());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("did not answer"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpuwatch::test
