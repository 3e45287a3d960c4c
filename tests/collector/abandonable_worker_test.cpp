#include "collector/abandonable_worker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>

#include "gate.h"

namespace gpuwatch {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

using test::Gate;

TEST(AbandonableWorker, RunsTheJobOncePerStart) {
  auto runs = std::make_shared<std::atomic<int>>(0);
  AbandonableWorker worker([runs](std::stop_token) { ++*runs; });
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(worker.start());
    ASSERT_TRUE(worker.wait_until(steady_clock::now() + std::chrono::seconds(10)));
    EXPECT_EQ(runs->load(), i);
  }
  EXPECT_FALSE(worker.busy());
}

TEST(AbandonableWorker, ABusyWorkerTakesNoNewWorkAndWaitingForItEndsAtTheDeadline) {
  auto gate = std::make_shared<Gate>();
  auto runs = std::make_shared<std::atomic<int>>(0);
  AbandonableWorker worker([gate, runs](std::stop_token) {
    ++*runs;
    gate->wait();
  });
  ASSERT_TRUE(worker.start());
  EXPECT_FALSE(worker.wait_until(steady_clock::now() + milliseconds(20)));
  EXPECT_TRUE(worker.busy());
  EXPECT_FALSE(worker.start());
  gate->release();
  ASSERT_TRUE(worker.wait_until(steady_clock::now() + std::chrono::seconds(10)));
  EXPECT_EQ(runs->load(), 1);
  EXPECT_TRUE(worker.start());
}

TEST(AbandonableWorker, DestructionReturnsWhileTheJobIsStuckAndTheJobKeepsWhatItOwns) {
  auto gate = std::make_shared<Gate>();
  auto owned = std::make_shared<int>(42);
  std::weak_ptr<int> watch = owned;
  auto finished = std::make_shared<std::atomic<bool>>(false);
  auto entered = std::make_shared<Gate>();
  {
    AbandonableWorker worker(
        [gate, entered, owned = std::move(owned), finished](std::stop_token) {
          entered->release();
          gate->wait();
          *finished = *owned == 42;
        },
        milliseconds(20));
    ASSERT_TRUE(worker.start());
    entered->wait();
    // Leaving the scope destroys the worker while its job is blocked.
  }
  EXPECT_FALSE(watch.expired()) << "the abandoned job still owns its state";
  EXPECT_FALSE(finished->load());
  gate->release();  // the stuck call returns at last; the detached thread finishes and frees its state
}

std::size_t threads_of_this_process() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

TEST(AbandonableWorker, AWorkerNeverStartedHasNoThread) {
  const std::size_t before = threads_of_this_process();
  {
    AbandonableWorker idle([](std::stop_token) {});
    EXPECT_EQ(threads_of_this_process(), before);
    EXPECT_FALSE(idle.busy());
    EXPECT_TRUE(idle.wait_until(steady_clock::now())) << "nothing to wait for";
  }
  AbandonableWorker used([](std::stop_token) {});
  ASSERT_TRUE(used.start());
  ASSERT_TRUE(used.wait_until(steady_clock::now() + std::chrono::seconds(10)));
  EXPECT_EQ(threads_of_this_process(), before + 1);
}

TEST(AbandonableWorker, ALoopingJobStopsWhenAsked) {
  auto iterations = std::make_shared<std::atomic<long>>(0);
  auto worker = std::make_unique<AbandonableWorker>([iterations](std::stop_token stop) {
    while (!stop.stop_requested()) ++*iterations;
  });
  ASSERT_TRUE(worker->start());
  worker->request_stop();
  EXPECT_TRUE(worker->wait_until(steady_clock::now() + std::chrono::seconds(10)));
}

}  // namespace
}  // namespace gpuwatch
