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

// The process table names who runs each process and with which command line (gpustat's user and command).
TEST(StatusTable, ProcessesShowTheirUserAndCommandLine) {
  const std::string text = render_status_table(testing::h200_node(), StatusTableStyle{false, 0});
  const std::string procs = text.substr(text.rfind("\n\n") + 2);
  std::istringstream in(procs);
  std::string header, alice, unnamed;
  std::getline(in, header);
  std::getline(in, alice);
  std::getline(in, unnamed);
  EXPECT_EQ(header, "GPU  PID   USER   NAME           TYPE      MEMORY    SM   COMMAND") << procs;
  EXPECT_EQ(alice,
            "0    4242  alice  python3        compute   80.0 GiB  80%  python3 train.py --config "
            "configs/llama-70b.yaml --epochs 3")
      << procs;
  // A uid passwd does not name, a command line not read, and a line feed in a name that cannot break the
  // table.
  EXPECT_EQ(unnamed, "0    4343  1001   we\"ird\\name?x  graphics  1.0 GiB   -    -") << procs;
}

TEST(StatusTable, ALongCommandLineIsCutToFitTheTerminal) {
  Snapshot snap = testing::h200_node();
  snap.devices[0].processes[1].name = "worker";
  snap.devices[0].processes[0].command += " --data /datasets/" + std::string(200, 'x');
  const std::string text = render_status_table(snap, StatusTableStyle{false, 80});
  const std::string procs = text.substr(text.rfind("\n\n") + 2);
  EXPECT_LE(widest_line(procs), 80U) << procs;
  EXPECT_NE(procs.find("USER"), std::string::npos) << procs;
  EXPECT_NE(procs.find("  python3 train.py --config"), std::string::npos) << procs;
  EXPECT_NE(procs.find("...\n"), std::string::npos) << "the cut says so\n" << procs;
  // Piped (no width), the whole command line is there for scripts.
  const std::string piped = render_status_table(snap, StatusTableStyle{false, 0});
  EXPECT_NE(piped.find(std::string(200, 'x') + "\n"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch
