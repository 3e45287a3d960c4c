// The kernel-log reader on recorded logs: it reads what the log already held (marked before_start), then only
// what is appended, never blocks, and survives a log it cannot open.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim_support.h"
#include "sources/kernel_log/kmsg_reader.h"

namespace gpuwatch::kernel {
namespace {

std::string recorded_log() {
  return std::string(GPUWATCH_SOURCE_DIR) + "/tests/kernel/data/h100-node-kmsg.txt";
}

TEST(KmsgReader, ReadsTheRecordedLogOnceAndMarksItAsHistory) {
  test::TempDir dir;
  const std::string path = dir.path() + "/kmsg";
  std::filesystem::copy_file(recorded_log(), path);
  KmsgReader reader(path);
  auto first = reader.poll();
  ASSERT_EQ(first.size(), 8U);
  EXPECT_EQ(first[0].kind, KernelEventKind::kDriverLoaded);
  EXPECT_EQ(first[1].xid, 13U);
  EXPECT_EQ(first[1].process, "python3");
  EXPECT_EQ(first[5].kind, KernelEventKind::kXid);
  EXPECT_EQ(first[5].xid, 79U);
  EXPECT_EQ(first[5].pci_bus_id, "0000:86:00.0");
  for (const auto& ev : first) EXPECT_TRUE(ev.before_start);
  EXPECT_TRUE(reader.status().readable);
  EXPECT_EQ(reader.status().records, 10U);

  EXPECT_TRUE(reader.poll().empty()) << "nothing new";

  // Appended in two writes, the first one cut mid-line: only the complete record counts.
  {
    std::ofstream out(path, std::ios::app);
    out << "4,1800,99900000000,-;NVRM: Xid (PCI:0000:3b:00): 48, pid=777, na";
  }
  EXPECT_TRUE(reader.poll().empty());
  {
    std::ofstream out(path, std::ios::app);
    out << "me=trainer, DBE (double bit error) ECC error.\n";
  }
  auto next = reader.poll();
  ASSERT_EQ(next.size(), 1U);
  EXPECT_EQ(next[0].xid, 48U);
  EXPECT_EQ(next[0].pid, 777U);
  EXPECT_EQ(next[0].process, "trainer");
  EXPECT_FALSE(next[0].before_start);
}

TEST(KmsgReader, RecordsSeenBeforeAreSkippedBySequenceNumber) {
  test::TempDir dir;
  const std::string path = dir.path() + "/kmsg";
  {
    std::ofstream out(path);
    out << "4,10,1,-;NVRM: Xid (PCI:0000:3b:00): 31, pid=1, name=a, MMU Fault\n";
    out << "4,10,1,-;NVRM: Xid (PCI:0000:3b:00): 31, pid=1, name=a, MMU Fault\n";
    out << "4,11,2,-;NVRM: Xid (PCI:0000:3b:00): 43, pid=1, name=a, Ch 00000008\n";
  }
  KmsgReader reader(path);
  auto events = reader.poll();
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[0].xid, 31U);
  EXPECT_EQ(events[1].xid, 43U);
}

TEST(KmsgReader, AnAbsentLogGivesNoEventsAndSaysWhy) {
  test::TempDir dir;
  KmsgReader reader(dir.path() + "/no-such-kmsg");
  EXPECT_TRUE(reader.poll().empty());
  EXPECT_TRUE(reader.poll().empty());
  EXPECT_FALSE(reader.status().readable);
  EXPECT_NE(reader.status().error.find("No such file"), std::string::npos) << reader.status().error;
  EXPECT_EQ(reader.status().open_failures, 2U);

  // It appears later (a recorded log copied in, a permission fixed): the next poll reads it.
  std::filesystem::copy_file(recorded_log(), dir.path() + "/no-such-kmsg");
  EXPECT_EQ(reader.poll().size(), 8U);
  EXPECT_TRUE(reader.status().readable);
  EXPECT_EQ(reader.status().error, "");
}

TEST(KmsgReader, AnUnreadableLogIsAnErrorNotACrash) {
  test::TempDir dir;
  KmsgReader reader(dir.path());  // a directory opens, but read() fails with EISDIR
  EXPECT_TRUE(reader.poll().empty());
  EXPECT_FALSE(reader.status().readable);
  EXPECT_NE(reader.status().error.find("directory"), std::string::npos) << reader.status().error;
}

}  // namespace
}  // namespace gpuwatch::kernel
