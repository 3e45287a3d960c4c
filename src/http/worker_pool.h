// A fixed number of threads with a bounded queue, for the requests that may take long (queries and the other
// added routes), so that they never hold the threads that answer scrapes. When the queue is full a job is
// refused at once: the server answers 503 instead of queueing without bound.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpuwatch {

class WorkerPool {
 public:
  struct Job {
    std::function<void()> run;     // called on a pool thread
    std::function<void()> cancel;  // called instead of run for a job still queued at stop()
  };

  WorkerPool(unsigned threads, std::size_t queue_capacity);
  ~WorkerPool();  // stop()
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues the job unless `queue_capacity` jobs already wait or the pool is stopping; says whether it did.
  bool try_submit(Job job);
  // Cancels the queued jobs, waits for the running ones and joins the threads. Safe to call twice.
  void stop();

  std::size_t running() const;
  std::size_t queued() const;

 private:
  void work();

  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  std::size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace gpuwatch
