#include <gtest/gtest.h>

#include <sstream>

#include "exposition/dcgm_metrics.h"
#include "exposition_parser.h"
#include "snapshot_fixture.h"
#include "test_support.h"

namespace gpuwatch {
namespace {

using testing::find_sample;
using testing::parse_exposition;

Snapshot one_full_h200() {
  Snapshot s = testing::h200_node();
  s.devices.resize(2);  // GPU 0 and 1: both complete and healthy
  return s;
}

TEST(DcgmRender, FullRenderingMatchesGolden) {
  testing::expect_golden("dcgm.txt", render_dcgm(testing::h200_node(), DcgmOptions{}));
}

TEST(DcgmRender, EveryDefaultCounterIsRenderedOrKnowinglyAbsent) {
  const std::string text = render_dcgm(one_full_h200(), DcgmOptions{});
  const auto r = parse_exposition(text, ExpositionFormat::kText004);
  ASSERT_TRUE(r.errors.empty());
  std::istringstream csv(
      testing::read_file(std::string(GPUWATCH_SOURCE_DIR) + "/tests/http/golden/dcgm-default-counters.csv"));
  int rows = 0;
  for (std::string line; std::getline(csv, line);) {
    if (line.empty() || line.starts_with('#')) continue;
    ++rows;
    const std::string name = line.substr(0, line.find(','));
    const std::string type = line.substr(line.find(',') + 1);
    bool absent = false;
    for (const auto& a : dcgm_absent_fields()) {
      if (a.name == name) {
        absent = true;
        EXPECT_FALSE(a.reason.empty()) << name;
      }
    }
    if (absent) {
      EXPECT_EQ(text.find(name), std::string::npos) << name << " is listed absent but rendered";
      continue;
    }
    if (type == "label") {
      EXPECT_NE(find_sample(r, "DCGM_FI_DEV_GPU_TEMP", {{name, "550.54.15"}}), nullptr) << name;
      continue;
    }
    const testing::ParsedFamily* family = nullptr;
    for (const auto& f : r.families) {
      if (f.name == name) family = &f;
    }
    ASSERT_NE(family, nullptr) << name << " is neither rendered nor listed in dcgm_absent_fields()";
    EXPECT_EQ(family->type, type) << name;
    EXPECT_EQ(family->samples.size(), 2U) << name;
  }
  EXPECT_GE(rows, 26);
}

TEST(DcgmRender, UnitsLabelsAndValuesAsDcgmExporterPrintsThem) {
  const auto r =
      parse_exposition(render_dcgm(testing::h200_node(), DcgmOptions{}), ExpositionFormat::kText004);
  ASSERT_TRUE(r.errors.empty());
  const auto* sm = find_sample(r, "DCGM_FI_DEV_SM_CLOCK", {{"gpu", "0"}});
  ASSERT_NE(sm, nullptr);
  EXPECT_EQ(sm->value, 1980);
  const std::vector<std::string> names = {
      "gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname", "DCGM_FI_DRIVER_VERSION"};
  ASSERT_EQ(sm->labels.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(sm->labels[i].first, names[i]);
  EXPECT_EQ(sm->labels[2].second, "00000000:1B:00.0");
  EXPECT_EQ(sm->labels[3].second, "nvidia0");
  EXPECT_EQ(sm->labels[5].second, "gpu-node-07");
  EXPECT_EQ(find_sample(r, "DCGM_FI_DEV_GPU_UTIL", {{"gpu", "0"}})->value, 87);
  EXPECT_EQ(find_sample(r, "DCGM_FI_DEV_FB_USED", {{"gpu", "0"}})->value, 92160);
  // nvmlDeviceGetMemoryInfo_v2's reserved field, 540 MiB on the fixture's H200.
  EXPECT_EQ(find_sample(r, "DCGM_FI_DEV_FB_RESERVED", {{"gpu", "0"}})->value, 540);
  EXPECT_EQ(find_sample(r, "DCGM_FI_DEV_POWER_USAGE", {{"gpu", "0"}})->value, 512.25);
  EXPECT_EQ(find_sample(r, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", {{"gpu", "0"}})->value, 123456789);
  EXPECT_EQ(find_sample(r, "DCGM_FI_DEV_XID_ERRORS", {{"gpu", "1"}})->value, 79);
  EXPECT_EQ(find_sample(r, "DCGM_FI_DEV_XID_ERRORS", {{"gpu", "0"}})->value, 0);
  EXPECT_EQ(find_sample(r, "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", {{"gpu", "0"}})->value, 2);
  EXPECT_EQ(find_sample(r, "DCGM_FI_PROF_PCIE_TX_BYTES", {{"gpu", "0"}})->value, 1.2e9);
  // The lost GPU 3 is left out; the stale GPU 2 keeps its last values.
  EXPECT_EQ(find_sample(r, "DCGM_FI_DEV_GPU_TEMP", {{"gpu", "3"}}), nullptr);
  EXPECT_NE(find_sample(r, "DCGM_FI_DEV_GPU_TEMP", {{"gpu", "2"}}), nullptr);
}

TEST(DcgmRender, HostnameLabelSpellingIsSelectable) {
  const auto r =
      parse_exposition(render_dcgm(one_full_h200(), DcgmOptions{"hostname"}), ExpositionFormat::kText004);
  EXPECT_NE(find_sample(r, "DCGM_FI_DEV_GPU_TEMP", {{"hostname", "gpu-node-07"}}), nullptr);
  EXPECT_EQ(find_sample(r, "DCGM_FI_DEV_GPU_TEMP", {{"Hostname", "gpu-node-07"}}), nullptr);
}

TEST(DcgmRender, MissingValuesAreLeftOutNotZeroed) {
  Snapshot s = one_full_h200();
  s.devices.resize(1);
  std::erase_if(s.devices[0].samples, [](const Sample& x) { return x.metric == Metric::kMemoryTemperature; });
  const auto r = parse_exposition(render_dcgm(s, DcgmOptions{}), ExpositionFormat::kText004);
  EXPECT_EQ(find_sample(r, "DCGM_FI_DEV_MEMORY_TEMP"), nullptr);
  EXPECT_NE(find_sample(r, "DCGM_FI_DEV_GPU_TEMP"), nullptr);
}

TEST(DcgmRender, PromtoolParsesItAndOnlyLintsDcgmNames) {
  const auto result = testing::promtool_check_metrics(render_dcgm(testing::h200_node(), DcgmOptions{}));
  for (const auto& line : result.lines) {
    // dcgm-exporter's own names break naming conventions (counters without _total, camelCase label names such
    // as modelName, "COUNTER" in a name); keeping them is the point of this mode. Anything else is a finding.
    const bool naming_lint =
        line.starts_with("DCGM_FI_") &&
        (line.ends_with("counter metrics should have \"_total\" suffix") ||
         line.ends_with("label names should be written in 'snake_case' not 'camelCase'") ||
         line.ends_with("metric name should not include type 'counter'"));
    EXPECT_TRUE(naming_lint) << line;
  }
  EXPECT_TRUE(result.exit_code == 0 || result.exit_code == 3) << result.exit_code;  // 3: lint findings only
}

TEST(DcgmRender, NvmlBusIdSpelling) {
  EXPECT_EQ(nvml_bus_id("0000:3b:00.0"), "00000000:3B:00.0");
  EXPECT_EQ(nvml_bus_id("00000000:3B:00.0"), "00000000:3B:00.0");
}

}  // namespace
}  // namespace gpuwatch
