// The heap trim gives free pages in the middle of the heap back, and at most once per interval.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <vector>

#include "agent/heap_trim.h"

namespace gpuwatch {
namespace {

long resident_kib() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

TEST(HeapTrim, TrimsAtMostOncePerIntervalAndNotOnTheFirstCall) {
  HeapTrim trim(std::chrono::seconds(60));
  const HeapTrim::Clock::time_point t0{std::chrono::hours(1)};
  EXPECT_FALSE(trim.maybe_trim(t0));
  EXPECT_FALSE(trim.maybe_trim(t0 + std::chrono::seconds(59)));
#if defined(__GLIBC__)
  EXPECT_TRUE(trim.maybe_trim(t0 + std::chrono::seconds(60)));
#endif
  EXPECT_FALSE(trim.maybe_trim(t0 + std::chrono::seconds(119)));
}

#if defined(__GLIBC__)
TEST(HeapTrim, GivesBackPagesFreedInTheMiddleOfTheHeap) {
  // 64 MiB in 16 KiB blocks (below malloc's mmap threshold: they come from the heap), then every block freed
  // but one in 64 and the last: the free pages are in the middle, where free() alone keeps them resident.
  std::vector<std::unique_ptr<char[]>> blocks;
  for (int i = 0; i < 4096; ++i) {
    blocks.push_back(std::make_unique<char[]>(16 * 1024));
    for (int b = 0; b < 16 * 1024; b += 4096) blocks.back()[b] = 1;  // touched: resident
  }
  for (std::size_t i = 0; i + 1 < blocks.size(); ++i)
    if (i % 64 != 0) blocks[i].reset();
  const long before = resident_kib();
  HeapTrim trim(std::chrono::seconds(1));
  const HeapTrim::Clock::time_point t0{std::chrono::hours(1)};
  trim.maybe_trim(t0);
  ASSERT_TRUE(trim.maybe_trim(t0 + std::chrono::seconds(1)));
  EXPECT_LT(resident_kib(), before - 32 * 1024) << "resident before the trim: " << before << " KiB";
}
#endif

}  // namespace
}  // namespace gpuwatch
