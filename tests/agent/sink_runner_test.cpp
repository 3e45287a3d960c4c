// A sink on its own thread and queue: errors are counted and the next snapshot still comes, a full queue
// drops by the sink's policy, a new snapshot wakes the sink at once, and a stuck sink cannot hold up stop().
#include "agent/sink_runner.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>
#include <thread>

#include "test_sinks.h"

namespace gpuwatch {
namespace {

using namespace std::chrono_literals;
using test::BlockingSink;
using test::RecordingSink;

SnapshotPtr snapshot(std::uint64_t sequence) {
  auto s = std::make_shared<Snapshot>();
  s->sequence = sequence;
  s->timestamp_ms = static_cast<std::int64_t>(sequence) * 1000;
  return s;
}

TEST(SinkRunner, CountsEveryErrorAndKeepsConsuming) {
  auto sink = std::make_shared<RecordingSink>("throws", true);
  SinkRunner runner(sink);
  for (std::uint64_t i = 1; i <= 3; ++i) {
    runner.offer(snapshot(i));
    ASSERT_TRUE(sink->wait_for(i));
  }
  ASSERT_TRUE(runner.stop());
  const SinkStats s = runner.stats();
  EXPECT_EQ(s.name, "throws");
  EXPECT_EQ(s.errors, 3U);
  EXPECT_EQ(s.consumed, 3U);
  EXPECT_EQ(sink->sequences(), (std::vector<std::uint64_t>{1, 2, 3}));
}

TEST(SinkRunner, LogsTheFirstErrorAndThenAtMostOnceAMinute) {
  std::ostringstream log;
  const auto previous = spdlog::default_logger();
  spdlog::set_default_logger(
      std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::ostream_sink_mt>(log)));
  {
    auto sink = std::make_shared<RecordingSink>("throws", true, SinkQueueOptions{8, WhenFull::kDropNewest});
    SinkRunner runner(sink);
    for (std::uint64_t i = 1; i <= 5; ++i) runner.offer(snapshot(i));
    ASSERT_TRUE(sink->wait_for(5));
    ASSERT_TRUE(runner.stop());
    EXPECT_EQ(runner.stats().errors, 5U);
  }
  spdlog::set_default_logger(previous);
  const std::string text = log.str();
  std::size_t lines = 0;
  for (auto at = text.find("sink throws: this sink always fails"); at != std::string::npos;
       at = text.find("sink throws:", at + 1))
    ++lines;
  EXPECT_EQ(lines, 1U) << text;
}

TEST(SinkRunner, AFullDropOldestQueueKeepsTheNewestSnapshots) {
  auto sink = std::make_shared<BlockingSink>("detection", SinkQueueOptions{4, WhenFull::kDropOldest});
  SinkRunner runner(sink);
  runner.offer(snapshot(1));
  ASSERT_TRUE(sink->wait_until_blocked());
  for (std::uint64_t i = 2; i <= 7; ++i) runner.offer(snapshot(i));  // 6 for 4 places
  EXPECT_EQ(runner.stats().queue_length, 4U);
  EXPECT_EQ(runner.stats().dropped, 2U);
  sink->release();
  ASSERT_TRUE(sink->wait_for(5));
  EXPECT_EQ(sink->sequences(), (std::vector<std::uint64_t>{1, 4, 5, 6, 7}));
}

TEST(SinkRunner, AFullDropNewestQueueKeepsWhatItHolds) {
  auto sink = std::make_shared<BlockingSink>("history", SinkQueueOptions{4, WhenFull::kDropNewest});
  SinkRunner runner(sink);
  runner.offer(snapshot(1));
  ASSERT_TRUE(sink->wait_until_blocked());
  for (std::uint64_t i = 2; i <= 7; ++i) runner.offer(snapshot(i));
  EXPECT_EQ(runner.stats().dropped, 2U);
  sink->release();
  ASSERT_TRUE(sink->wait_for(5));
  EXPECT_EQ(sink->sequences(), (std::vector<std::uint64_t>{1, 2, 3, 4, 5}));
}

TEST(SinkRunner, ASnapshotReachesAnIdleSinkAtOnce) {
  auto sink = std::make_shared<RecordingSink>("detection");
  SinkRunner runner(sink);
  std::chrono::nanoseconds worst{0};
  for (std::uint64_t i = 1; i <= 20; ++i) {
    std::this_thread::sleep_for(5ms);  // the sink is waiting when the snapshot comes
    const auto offered = std::chrono::steady_clock::now();
    runner.offer(snapshot(i));
    ASSERT_TRUE(sink->wait_for(i));
    worst = std::max(worst, sink->arrivals().back() - offered);
  }
  // A wake-up, not a poll: well under a millisecond on an idle machine; 50 ms leaves room for a loaded one.
  EXPECT_LT(worst, 50ms);
}

TEST(SinkRunner, StopLeavesAStuckSinkBehindWithinTheGrace) {
  auto sink = std::make_shared<BlockingSink>("stuck");
  SinkRunner runner(sink, 200ms);
  runner.offer(snapshot(1));
  ASSERT_TRUE(sink->wait_until_blocked());
  runner.offer(snapshot(2));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(runner.stop());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_GE(runner.stats().duration_seconds, 0.2);  // the running consume shows in the duration
  sink->release();                                  // the thread left behind finishes on its own
}

TEST(SinkRunner, StopLetsTheSinkFinishItsQueue) {
  auto sink = std::make_shared<BlockingSink>("history", SinkQueueOptions{8, WhenFull::kDropNewest}, 100ms);
  SinkRunner runner(sink);
  for (std::uint64_t i = 1; i <= 5; ++i) runner.offer(snapshot(i));
  EXPECT_TRUE(runner.stop());
  EXPECT_EQ(sink->sequences().size(), 5U);
  runner.offer(snapshot(6));  // ignored once stopped
  EXPECT_EQ(runner.stats().queue_length, 0U);
}

}  // namespace
}  // namespace gpuwatch
