// A gate a test opens: jobs and reads wait on it like a call stuck in the driver until the test lets it
// return.
#pragma once

#include <condition_variable>
#include <mutex>

namespace gpuwatch::test {

struct Gate {
  std::mutex mutex;
  std::condition_variable cv;
  bool open = false;
  void wait() {
    std::unique_lock lock(mutex);
    cv.wait(lock, [&] { return open; });
  }
  void release() {
    {
      std::lock_guard lock(mutex);
      open = true;
    }
    cv.notify_all();
  }
};

}  // namespace gpuwatch::test
