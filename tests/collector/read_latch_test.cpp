#include "collector/read_latch.h"

#include <gtest/gtest.h>

#include <thread>

namespace gpuwatch {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

TEST(ReadLatch, WaitsUntilTheLastReadOfTheTickEnds) {
  ReadLatch latch;
  latch.begin(1);
  latch.expect();
  latch.expect();
  latch.done(1);
  EXPECT_FALSE(latch.wait_until(steady_clock::now() + milliseconds(20))) << "one read is still out";
  std::thread last([&] { latch.done(1); });
  EXPECT_TRUE(latch.wait_until(steady_clock::now() + milliseconds(10000)));
  last.join();
}

TEST(ReadLatch, ALateReadOfAnEarlierTickCountsForNothing) {
  ReadLatch latch;
  latch.begin(1);
  latch.expect();  // this read hangs past its tick
  latch.begin(2);
  latch.expect();
  latch.done(1);  // the hung read of tick 1 ends during tick 2
  EXPECT_FALSE(latch.wait_until(steady_clock::now() + milliseconds(20)));
  latch.done(2);
  EXPECT_TRUE(latch.wait_until(steady_clock::now()));
}

TEST(ReadLatch, AReadThatDidNotStartIsCancelled) {
  ReadLatch latch;
  latch.begin(7);
  latch.expect();
  latch.cancel();
  EXPECT_TRUE(latch.wait_until(steady_clock::now()));
  // More ends than reads expected (a worker that ended twice) do not wrap the count.
  latch.done(7);
  latch.expect();
  EXPECT_FALSE(latch.wait_until(steady_clock::now()));
}

}  // namespace
}  // namespace gpuwatch
