#include "collector/read_relay.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "gate.h"

namespace gpuwatch {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

using test::Gate;

steady_clock::time_point soon() {
  return steady_clock::now() + std::chrono::seconds(10);
}

TEST(ReadRelay, RunsTheReadsInOrderOnOneThread) {
  struct Seen {
    std::mutex mutex;
    std::vector<int> order;
    std::vector<std::thread::id> threads;
  };
  auto seen = std::make_shared<Seen>();
  std::vector<ReadRelay::Read> reads;
  for (int i = 0; i < 4; ++i) {
    reads.emplace_back([seen, i] {
      std::lock_guard lock(seen->mutex);
      seen->order.push_back(i);
      seen->threads.push_back(std::this_thread::get_id());
    });
  }
  ReadRelay relay;
  ASSERT_TRUE(relay.start(std::move(reads)));
  for (std::size_t i = 0; i < 4; ++i) EXPECT_TRUE(relay.wait_for(i, soon())) << i;
  EXPECT_EQ(seen->order, (std::vector<int>{0, 1, 2, 3}));
  for (const auto& id : seen->threads) EXPECT_EQ(id, seen->threads.front());
  EXPECT_NE(seen->threads.front(), std::this_thread::get_id());
  EXPECT_EQ(relay.take_back(), 4U) << "every read had begun";
}

TEST(ReadRelay, AStuckReadLeavesTheOthersToBeTakenBack) {
  auto held = std::make_shared<Gate>();
  auto ran = std::make_shared<std::atomic<int>>(0);
  std::vector<ReadRelay::Read> reads;
  reads.emplace_back([ran] { ++*ran; });
  reads.emplace_back([held, ran] {
    ++*ran;
    held->wait();
  });
  reads.emplace_back([ran] { ++*ran; });
  reads.emplace_back([ran] { ++*ran; });
  ReadRelay relay;
  ASSERT_TRUE(relay.start(std::move(reads)));
  EXPECT_TRUE(relay.wait_for(0, soon()));
  EXPECT_FALSE(relay.wait_for(1, steady_clock::now() + milliseconds(30)));
  EXPECT_EQ(relay.running(), 1U);
  EXPECT_TRUE(relay.busy());
  EXPECT_EQ(relay.take_back(), 2U) << "reads 2 and 3 had not begun";
  EXPECT_FALSE(relay.start({[] {}})) << "still inside read 1";
  held->release();
  EXPECT_TRUE(relay.wait_for(1, soon()));
  // The reads taken back never run here; the relay is free again.
  for (auto until = soon(); relay.busy() && steady_clock::now() < until;) std::this_thread::yield();
  EXPECT_EQ(ran->load(), 2);
  EXPECT_EQ(relay.running(), ReadRelay::kNone);
  auto again = std::make_shared<std::atomic<bool>>(false);
  ASSERT_TRUE(relay.start({[again] { *again = true; }}));
  EXPECT_TRUE(relay.wait_for(0, soon()));
  EXPECT_TRUE(again->load());
}

TEST(ReadRelay, WaitingForAllEndsWhenTheyHaveOrWhenOneOverrunsItsShare) {
  ReadRelay relay;
  ASSERT_TRUE(relay.start({[] {}, [] {}, [] {}}));
  EXPECT_TRUE(relay.wait_for_all(std::chrono::seconds(10), soon()));
  EXPECT_TRUE(relay.all_ended());
  for (auto until = soon(); relay.busy() && steady_clock::now() < until;) std::this_thread::yield();

  auto held = std::make_shared<Gate>();
  // Read 1's share runs from when it starts, on the worker, which can be before start() returns.
  const auto before = steady_clock::now();
  ASSERT_TRUE(relay.start({[] {}, [held] { held->wait(); }, [] {}}));
  EXPECT_TRUE(relay.wait_for_all(milliseconds(30), soon())) << "read 1 overran its 30 ms";
  EXPECT_GE(steady_clock::now() - before, milliseconds(30));
  EXPECT_FALSE(relay.all_ended());
  EXPECT_EQ(relay.running(), 1U);
  EXPECT_FALSE(relay.wait_for_all(std::chrono::seconds(10), steady_clock::now() + milliseconds(20)))
      << "the deadline came before read 1's share ran out";
  EXPECT_EQ(relay.take_back(), 2U);
  held->release();
  EXPECT_TRUE(relay.wait_for(1, soon()));
  EXPECT_FALSE(relay.all_ended()) << "read 2 was taken back";
}

TEST(ReadRelay, DestructionReturnsWhileAReadIsStuck) {
  auto held = std::make_shared<Gate>();
  {
    ReadRelay relay;
    ASSERT_TRUE(relay.start({[held] { held->wait(); }}));
    EXPECT_FALSE(relay.wait_for(0, steady_clock::now() + milliseconds(10)));
  }  // the worker's grace passes; the read owns what it uses
  held->release();
}

}  // namespace
}  // namespace gpuwatch
