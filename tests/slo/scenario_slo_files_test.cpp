// SLO files named in a scenario's `gpuwatch:` section: found beside the scenario, added to the agent's
// slo_files unless the config names some, and the section's mistakes reported at the scenario's file:line.
#include <gtest/gtest.h>

#include <fstream>

#include "config/scrape_section.h"
#include "sim_support.h"
#include "slo/spec_files.h"

namespace gpuwatch {
namespace {

TEST(ScenarioSloFiles, TheShippedGameDayNamesItsSlos) {
  AgentOptions o;
  const std::string scenario = std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/inference-slo-8xh200.yaml";
  const auto errors = apply_scenario_settings(scenario, o);
  ASSERT_TRUE(errors.empty()) << errors.front().to_string();
  EXPECT_EQ(o.slo_files, std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/inference-slo-8xh200.slos.yaml");
  EXPECT_EQ(slo::load_slo_file(o.slo_files).size(), 8u);
  EXPECT_FALSE(o.scrape.empty());
}

TEST(ScenarioSloFiles, TheConfigsSloFilesWin) {
  AgentOptions o;
  o.slo_files = "/etc/gpuwatch/slos.yaml";
  const auto errors =
      apply_scenario_settings(std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/inference-slo-8xh200.yaml", o);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(o.slo_files, "/etc/gpuwatch/slos.yaml");
}

TEST(ScenarioSloFiles, MistakesSayTheScenariosFileAndLine) {
  test::TempDir dir;
  std::ofstream(dir.path() + "/here.slos.yaml") << "version: \"prometheus/v1\"\n";
  const std::string scenario = dir.path() + "/game.yaml";
  std::ofstream(scenario) << "devices:\n  - {model: H200, count: 1}\ngpuwatch:\n  slo_files:\n"
                          << "    - here.slos.yaml\n    - missing.slos.yaml\n    - {not: a file}\n";
  AgentOptions o;
  const auto errors = apply_scenario_settings(scenario, o);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].file, scenario);
  EXPECT_EQ(errors[0].line, 6);
  EXPECT_NE(errors[0].message.find("missing.slos.yaml"), std::string::npos) << errors[0].message;
  EXPECT_EQ(errors[1].line, 7);
  EXPECT_EQ(o.slo_files, dir.path() + "/here.slos.yaml");  // the good one is kept

  std::ofstream(scenario) << "gpuwatch:\n  slo_files: here.slos.yaml\n";
  AgentOptions single;
  const auto not_a_list = apply_scenario_settings(scenario, single);
  ASSERT_EQ(not_a_list.size(), 1u);
  EXPECT_EQ(not_a_list[0].line, 2);
  EXPECT_NE(not_a_list[0].message.find("expected a list"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch
