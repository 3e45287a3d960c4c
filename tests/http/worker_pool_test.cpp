#include "http/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>

namespace gpuwatch {
namespace {

TEST(WorkerPool, RefusesWhenTheQueueIsFullAndCancelsWhatIsLeftAtStop) {
  WorkerPool pool(1, 2);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  ASSERT_TRUE(pool.try_submit({[&] {
                                 started.set_value();
                                 released.wait_for(std::chrono::seconds(10));
                               },
                               {}}));
  ASSERT_EQ(started.get_future().wait_for(std::chrono::seconds(5)), std::future_status::ready);
  std::atomic<int> ran{0};
  std::atomic<int> cancelled{0};
  for (int i = 0; i < 2; ++i) EXPECT_TRUE(pool.try_submit({[&] { ++ran; }, [&] { ++cancelled; }}));
  EXPECT_FALSE(pool.try_submit({[&] { ++ran; }, [&] { ++cancelled; }}));
  EXPECT_EQ(pool.running(), 1u);
  EXPECT_EQ(pool.queued(), 2u);
  std::thread stopper([&] { pool.stop(); });
  release.set_value();
  stopper.join();
  EXPECT_EQ(ran + cancelled, 2);
  EXPECT_FALSE(pool.try_submit({[&] { ++ran; }, {}}));
}

}  // namespace
}  // namespace gpuwatch
