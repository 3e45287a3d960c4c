// `gpuwatch status`' table on a terminal: it fits the terminal's width, and no health reason is hidden.
#include "cli/status_table.h"

#include <gtest/gtest.h>

#include <sstream>

#include "rules/health.h"
#include "snapshot_fixture.h"

namespace gpuwatch {
namespace {

std::size_t widest_line(const std::string& text) {
  std::istringstream in(text);
  std::size_t widest = 0;
  for (std::string line; std::getline(in, line);) widest = std::max(widest, line.size());
  return widest;
}

TEST(StatusTable, FitsAnEightyColumnTerminal) {
  const Snapshot snap = testing::h200_node();
  const std::string wide = render_status_table(snap, StatusTableStyle{false, 0});
  ASSERT_GT(widest_line(wide.substr(0, wide.find("\n\n", wide.find("HEALTH")))), 80U)
      << "the fixture's table must need fitting for this test to mean anything";
  const std::string narrow = render_status_table(snap, StatusTableStyle{false, 80});
  const std::string gpu_table = narrow.substr(0, narrow.find("\n\n", narrow.find("HEALTH")));
  EXPECT_LE(widest_line(gpu_table), 80U) << gpu_table;
  for (const char* column : {"GPU", "UTIL", "TEMP", "HEALTH"})
    EXPECT_NE(gpu_table.find(column), std::string::npos) << column << " is kept:\n" << gpu_table;
}

TEST(StatusTable, EveryHealthReasonIsShownInFull) {
  const Snapshot snap = testing::h200_node();
  const std::string text = render_status_table(snap, StatusTableStyle{false, 80});
  EXPECT_EQ(text.find("more)"), std::string::npos) << text;
  std::size_t reasons = 0;
  for (const auto& d : snap.devices) {
    for (const auto& reason : assess_health(d).reasons) {
      ++reasons;
      EXPECT_NE(text.find(reason), std::string::npos) << reason << "\n" << text;
    }
  }
  EXPECT_GT(reasons, 1U);
}

}  // namespace
}  // namespace gpuwatch
