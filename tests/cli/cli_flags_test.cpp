// Each command takes and documents its own flags only, with their defaults: a flag of another command (the
// agent's --listen given to status) is a usage error naming it, never silently ignored.
#include <gtest/gtest.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "run_process.h"

namespace gpuwatch::test {
namespace {

const std::string kHealthy = std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/healthy-8xh200.yaml";

// What `gpuwatch COMMAND --help` prints.
std::string help_of(const std::vector<std::string>& command) {
  std::vector<std::string> argv = {kGpuwatchBinary};
  argv.insert(argv.end(), command.begin(), command.end());
  argv.push_back("--help");
  const ProcessResult r = run_process(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// The long flags it lists, every spelling ("--nvml-library", "--nvml-lib").
std::set<std::string> flags_in_help(const std::vector<std::string>& command) {
  std::set<std::string> flags;
  std::istringstream lines(help_of(command));
  for (std::string line; std::getline(lines, line);) {
    const auto start = line.find_first_not_of(' ');
    if (start == std::string::npos || line[start] != '-') continue;  // a description, not an option
    std::istringstream names(line.substr(start, line.find(' ', start) - start));
    for (std::string name; std::getline(names, name, ',');)
      if (name.starts_with("--")) flags.insert(name);
  }
  return flags;
}

TEST(CommandFlags, StatusListsWhatOneReadingUsesAndNoneOfTheAgentsServing) {
  const auto flags = flags_in_help({"status"});
  for (const char* flag : {"--json", "--config", "--nvml-lib", "--nvml-library", "--sim-scenario",
                           "--scenario", "--proc-root", "--sysfs-root", "--kmsg", "--hostname", "--deadline",
                           "--detect.throttle.temperature-margin-c", "--node-power-budget-watts"})
    EXPECT_TRUE(flags.contains(flag)) << flag;
  for (const char* flag :
       {"--listen", "--data-dir", "--interval", "--store", "--retention-time", "--alertmanager-url",
        "--external-url", "--http-workers", "--query-timeout", "--naming", "--log-level"})
    EXPECT_FALSE(flags.contains(flag)) << flag << " is the agent's";
}

TEST(CommandFlags, TheSimTreeWritersListOnlyTheScenarioTheLibraryAndTheirTree) {
  const std::set<std::string> common = {"--help", "--nvml-library", "--nvml-lib", "--sim-scenario",
                                        "--scenario"};
  auto proc = common, sysfs = common;
  proc.insert("--proc-root");
  sysfs.insert("--sysfs-root");
  EXPECT_EQ(flags_in_help({"sim", "proc-tree"}), proc);
  EXPECT_EQ(flags_in_help({"sim", "sysfs-tree"}), sysfs);
}

TEST(CommandFlags, TheAgentListsEverySetting) {
  const auto flags = flags_in_help({"agent"});
  for (const char* flag : {"--config", "--listen", "--data-dir", "--interval", "--sim-scenario",
                           "--proc-root", "--http-workers", "--detect.throttle.temperature-margin-c"})
    EXPECT_TRUE(flags.contains(flag)) << flag;
}

TEST(CommandFlags, HelpShowsTheDefaults) {
  const std::string agent = help_of({"agent"});
  EXPECT_NE(agent.find("--listen ADDR:PORT=0.0.0.0:19400"), std::string::npos) << agent;
  EXPECT_NE(agent.find("--data-dir DIR=/var/lib/gpuwatch"), std::string::npos) << agent;
  EXPECT_NE(agent.find("--interval DURATION=1s"), std::string::npos) << agent;
  const std::string status = help_of({"status"});
  EXPECT_NE(status.find("--proc-root DIR=/proc"), std::string::npos) << status;
  EXPECT_NE(status.find("--kmsg PATH=/dev/kmsg"), std::string::npos) << status;
  EXPECT_NE(status.find("--deadline DURATION=800ms"), std::string::npos) << status;
  EXPECT_NE(status.find("--detect.throttle.temperature-margin-c CELSIUS=5"), std::string::npos) << status;
  // The tree writers never write the host's trees: no default there, the directory must be given.
  const std::string tree = help_of({"sim", "proc-tree"});
  EXPECT_NE(tree.find("--proc-root DIR "), std::string::npos) << tree;
  EXPECT_EQ(tree.find("=/proc"), std::string::npos) << tree;
}

TEST(CommandFlags, AFlagOfAnotherCommandIsAUsageErrorNamingIt) {
  struct Case {
    std::vector<std::string> args;
    std::string named;
  };
  const std::vector<Case> cases = {
      {{"status", "--sim-scenario", kHealthy, "--listen", "127.0.0.1:1"},
       "gpuwatch status does not take --listen"},
      {{"status", "--sim-scenario", kHealthy, "--data-dir=/tmp"}, "gpuwatch status does not take --data-dir"},
      {{"sim", "proc-tree", "--sim-scenario", kHealthy, "--proc-root", "/tmp/x", "--kmsg", ""},
       "gpuwatch sim proc-tree does not take --kmsg"},
      {{"sim", "sysfs-tree", "--sim-scenario", kHealthy, "--sysfs-root", "/tmp/x", "--proc-root", "/tmp/y"},
       "gpuwatch sim sysfs-tree does not take --proc-root"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> argv = {kGpuwatchBinary};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    const ProcessResult r = run_process(argv);
    EXPECT_EQ(r.exit_code, 1) << c.named << "\n" << r.err;
    EXPECT_NE(r.err.find(c.named), std::string::npos) << r.err;
  }
}

TEST(CommandFlags, AlertsFlagsAreAnErrorBesideInhibitRulesWhichAsksNoAgent) {
  const ProcessResult r =
      run_process({kGpuwatchBinary, "alerts", "--url", "http://127.0.0.1:1", "inhibit-rules"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.err.find("--url"), std::string::npos) << r.err;
  EXPECT_EQ(run_process({kGpuwatchBinary, "alerts", "inhibit-rules"}).exit_code, 0);
}

// status shares the agent's configuration file: it applies the settings it takes (a detector's threshold
// moves its verdict) and skips the agent's, even one the agent would refuse.
TEST(CommandFlags, StatusReadsOnlyItsSettingsFromTheAgentsConfigFile) {
  const std::string path = "/tmp/gpuwatch-flags-test-" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(path) << "listen: 127.0.0.1:19400\n"
                         "interval: soon\n"
                         "detect.throttle.temperature_margin_c: 25\n";
  // An hour into the scenario, its GPUs at their working temperature.
  const ProcessResult r =
      run_process({kGpuwatchBinary, "status", "--config", path, "--sim-scenario", kHealthy},
                  {{"GPUWATCH_SIM_EPOCH", std::to_string(std::time(nullptr) - 3600)}});
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_NE(r.out.find("near the slowdown threshold"), std::string::npos) << r.out;
  std::ofstream(path) << "lisen: 127.0.0.1:19400\n";
  const ProcessResult typo =
      run_process({kGpuwatchBinary, "status", "--config", path, "--sim-scenario", kHealthy});
  EXPECT_EQ(typo.exit_code, 1) << typo.err;
  EXPECT_NE(typo.err.find("did you mean 'listen'"), std::string::npos) << typo.err;
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gpuwatch::test
