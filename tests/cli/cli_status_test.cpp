// `gpuwatch status` and `gpuwatch config check` as a user runs them, on the simulator.
#include <gtest/gtest.h>

#include <regex>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_process.h"
#include "text_lines.h"

namespace gpuwatch::test {
namespace {

// Scaled mode with the epoch an hour ago: scenario time is one hour in, every incident has happened.
std::map<std::string, std::string> one_hour_in() {
  return {{"GPUWATCH_SIM_EPOCH", std::to_string(std::time(nullptr) - 3600)}, {"NO_COLOR", "1"}};
}

TEST(StatusCommand, HealthyNodeExitsZeroAndListsEveryGpu) {
  auto r = run_process({kGpuwatchBinary, "status", "--sim-scenario", kScenariosDir + "healthy-8xh200.yaml"},
                       one_hour_in());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (int gpu = 0; gpu < 8; ++gpu) {
    EXPECT_NE(r.out.find("\n" + std::to_string(gpu) + "    NVIDIA H200"), std::string::npos) << r.out;
  }
  EXPECT_EQ(r.out.find("critical"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\033["), std::string::npos) << "no colour when piped";
  EXPECT_NE(r.out.find("no alert conditions"), std::string::npos) << r.out;
}

TEST(StatusCommand, IncidentsNodeIsCriticalAndNamesTheFaults) {
  auto r = run_process({kGpuwatchBinary, "status", "--sim-scenario", kScenariosDir + "incidents-8xh200.yaml"},
                       one_hour_in());
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
  auto r = run_process(
      {kGpuwatchBinary, "status", "--json", "--sim-scenario", kScenariosDir + "incidents-8xh200.yaml"},
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
  const std::vector<std::string> base = {kGpuwatchBinary,
                                         "status",
                                         "--sim-scenario",
                                         kScenariosDir + "healthy-8xh200.yaml",
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
  // The document outlives the loop: a range over parse(...).at(...) would read a destroyed temporary.
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc.at("devices").size(), 8U);
  for (const auto& d : doc.at("devices")) EXPECT_EQ(d.at("health").at("verdict"), "warning") << d.dump();
}

// nvidia-smi's --query-gpu, spelled with '=' as scripts spell it for nvidia-smi.
TEST(StatusCommand, QueryGpuPrintsTheChosenFieldsAsCsvAndALostGpuKeepsItsRow) {
  auto r = run_process(
      {kGpuwatchBinary, "status", "--sim-scenario", kScenariosDir + "incidents-8xh200.yaml",
       "--query-gpu=index,name,temperature.gpu,utilization.gpu,memory.used,memory.total,state,health",
       "--format=csv,noheader,nounits"},
      one_hour_in());
  EXPECT_EQ(r.exit_code, 3) << "the exit code is the node's health, as with the table\n" << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 8U) << r.out;
  for (const auto& line : lines) {
    if (line.starts_with("3, ")) {
      EXPECT_EQ(line, "3, [N/A], [N/A], [N/A], [N/A], [N/A], lost, critical");
    } else {
      EXPECT_TRUE(std::regex_match(line, std::regex(R"(\d, NVIDIA H200, \d+, \d+, \d+, 143771, ok, \w+)")))
          << line;
    }
  }
  r = run_process({kGpuwatchBinary, "status", "--sim-scenario", kScenariosDir + "healthy-8xh200.yaml",
                   "--query-gpu", "index,utilization.gpu,memory.used,power.draw", "--format", "csv"},
                  one_hour_in());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(lines_of(r.out).size(), 9U) << r.out;
  EXPECT_EQ(lines_of(r.out)[0], "index, utilization.gpu [%], memory.used [MiB], power.draw [W]");
  EXPECT_TRUE(std::regex_match(lines_of(r.out)[1], std::regex(R"(0, \d+ %, \d+ MiB, \d+\.\d\d W)"))) << r.out;
}

TEST(StatusCommand, AnUnknownQueryFieldIsAUsageErrorNamingTheCloseOnes) {
  auto r = run_process({kGpuwatchBinary, "status", "--query-gpu", "index,temprature.gpu"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unknown field 'temprature.gpu' (close: temperature.gpu)"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "") << "nothing was read";
  r = run_process({kGpuwatchBinary, "status", "--query-gpu", "index", "--json"});
  EXPECT_EQ(r.exit_code, 1) << "CSV or JSON, not both";
}

TEST(StatusCommand, ListsTheQueryFields) {
  for (const auto& args :
       {std::vector<std::string>{"--help-query-gpu"}, std::vector<std::string>{"--query-gpu", "help"}}) {
    auto argv = std::vector<std::string>{kGpuwatchBinary, "status"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_process(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\n  memory.used [MiB]\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\n  health.reasons  (gpuwatch)\n"), std::string::npos) << r.out;
  }
  auto r = run_process({kGpuwatchBinary, "status", "--help-query-compute-apps"});
  EXPECT_NE(r.out.find("\n  used_gpu_memory or used_memory [MiB]\n"), std::string::npos) << r.out;
}

// The simulator's /proc tree names the scenario's users; status shows who runs each process and how, in the
// table, the JSON and the compute apps' CSV alike.
TEST(StatusCommand, ProcessesShowTheirUserAndCommandLine) {
  const std::string root = "/tmp/gpuwatch-cli-users-" + std::to_string(::getpid());
  const std::string proc = root + "/proc";
  const std::string scenario = kScenariosDir + "tests/basic.yaml";
  // Twenty minutes in: all three processes run.
  const std::map<std::string, std::string> env = {
      {"GPUWATCH_SIM_EPOCH", std::to_string(std::time(nullptr) - 1200)}, {"NO_COLOR", "1"}};
  auto r = run_process({kGpuwatchBinary, "sim", "proc-tree", "--sim-scenario", scenario, "--proc-root", proc},
                       env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> base = {kGpuwatchBinary, "status",      "--sim-scenario",
                                         scenario,        "--proc-root", proc};

  r = run_process(base, env);
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nGPU +PID +USER +NAME +TYPE +MEMORY +SM +COMMAND\n")))
      << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex("\n0 +1001 +alice +python3 +compute .* python3 train.py --epochs 3\n")))
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\n0 +1002 +2001 +worker +compute .* worker\n")))
      << "a uid the passwd file does not name\n"
      << r.out;

  auto with_json = base;
  with_json.push_back("--json");
  r = run_process(with_json, env);
  std::map<unsigned, nlohmann::json> processes;
  const auto doc = nlohmann::json::parse(r.out);
  for (const auto& d : doc.at("devices"))
    for (const auto& p : d.at("processes")) processes[p.at("pid").get<unsigned>()] = p;
  ASSERT_EQ(processes.size(), 3U) << r.out;
  EXPECT_EQ(processes[1001].at("user"), "alice");
  EXPECT_EQ(processes[1001].at("uid"), 1001);
  EXPECT_EQ(processes[1001].at("command"), "python3 train.py --epochs 3");
  EXPECT_EQ(processes[1002].at("user"), "2001");
  EXPECT_EQ(processes[1003].at("uid"), 1000) << "the default uid";

  auto with_csv = base;
  for (const char* arg :
       {"--query-compute-apps", "pid,user,uid,command,process_name", "--format", "csv,noheader"})
    with_csv.push_back(arg);
  r = run_process(with_csv, env);
  EXPECT_EQ(r.out,
            "1001, alice, 1001, python3 train.py --epochs 3, python3\n1002, 2001, 2001, worker, worker\n")
      << "the graphics process (Xorg) is no compute app\n"
      << r.err;
  std::filesystem::remove_all(root);
}

TEST(StatusCommand, TakesTheScenarioUnderEitherSpelling) {
  for (const char* flag : {"--sim-scenario", "--scenario"}) {
    auto r =
        run_process({kGpuwatchBinary, "status", flag, kScenariosDir + "healthy-8xh200.yaml"}, one_hour_in());
    EXPECT_EQ(r.exit_code, 0) << flag << "\n" << r.err;
  }
}

TEST(SimExportCommand, TakesTheScenarioAndLibraryUnderTheSpellingsOfTheOtherCommands) {
  const std::string dir = "/tmp/gpuwatch-export-flags-" + std::to_string(::getpid());
  for (const char* flag : {"--scenario", "--sim-scenario"}) {
    auto r = run_process({kGpuwatchBinary, "sim", "export", flag, kScenariosDir + "healthy-8xh200.yaml",
                          "--duration", "2s", "--out-dir", dir, "--nvml-lib",
                          std::string(GPUWATCH_BINARY_DIR) + "/sim-lib/libnvidia-ml.so.1"});
    EXPECT_EQ(r.exit_code, 0) << flag << "\n" << r.err;
  }
  std::filesystem::remove_all(dir);
}

TEST(StoreCheckCommand, DefaultsToTheAgentsDataDir) {
  auto r = run_process({kGpuwatchBinary, "store", "check", "--help"});
  EXPECT_NE(r.out.find("--data-dir TEXT=/var/lib/gpuwatch"), std::string::npos) << r.out << r.err;
}

TEST(StatusCommand, AnOutOfRangeTunableIsAUsageError) {
  auto r = run_process({kGpuwatchBinary, "status", "--detect.pcie.busy-utilization", "2"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("expected a fraction from 0 to 1"), std::string::npos) << r.err;
}

TEST(StatusCommand, ANamedLibraryThatDoesNotLoadSaysWhyAndDoesNotPromiseARetry) {
  auto r = run_process({kGpuwatchBinary, "status", "--nvml-lib", "/nonexistent/libnvidia-ml.so.1"});
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
  auto r = run_process(
      {kGpuwatchBinary, "status", "--sim-scenario", kScenariosDir + "tests/bad-unknown-key.yaml"});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("bad-unknown-key.yaml:"), std::string::npos) << r.err;
}

TEST(StatusCommand, BadFlagIsAUsageError) {
  auto r = run_process({kGpuwatchBinary, "status", "--deadline", "soon"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--deadline"), std::string::npos) << r.err;
}

TEST(ConfigCommand, CheckReportsEveryErrorWithPosition) {
  const std::string path = "/tmp/gpuwatch-cli-config-" + std::to_string(::getpid()) + ".yaml";
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs("listen: 127.0.0.1:19400\nintreval: 1s\nnaming: dcgmm\n", f);
  std::fclose(f);
  auto r = run_process({kGpuwatchBinary, "config", "check", path});
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
  auto r = run_process({kGpuwatchBinary, "config", "check", path});
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
  r = run_process({kGpuwatchBinary, "config", "check", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::filesystem::remove_all(dir);
}

TEST(ConfigCommand, CheckAcceptsAValidFileAndPrintsTheSettings) {
  const std::string path = "/tmp/gpuwatch-cli-config-ok-" + std::to_string(::getpid()) + ".yaml";
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs("interval: 250ms\nnaming: dcgm\n", f);
  std::fclose(f);
  auto r = run_process({kGpuwatchBinary, "config", "check", path});
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
  auto r = run_process({kGpuwatchBinary, "status", "--sim-scenario", path, "--deadline", "100ms"}, {},
                       std::chrono::seconds(30));
  std::remove(path.c_str());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("did not answer"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpuwatch::test
