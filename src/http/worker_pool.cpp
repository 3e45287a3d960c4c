#include "http/worker_pool.h"

#include <algorithm>

namespace gpuwatch {

WorkerPool::WorkerPool(unsigned threads, std::size_t queue_capacity) : capacity_(queue_capacity) {
  for (unsigned i = 0; i < std::max(1U, threads); ++i) threads_.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() {
  stop();
}

bool WorkerPool::try_submit(Job job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || queue_.size() >= capacity_) return false;
    queue_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void WorkerPool::stop() {
  std::deque<Job> left;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    left.swap(queue_);
  }
  wake_.notify_all();
  for (Job& job : left) {
    if (job.cancel) job.cancel();
  }
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

std::size_t WorkerPool::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

std::size_t WorkerPool::queued() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

void WorkerPool::work() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left to run
    Job job = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    lock.unlock();
    job.run();
    lock.lock();
    --running_;
  }
}

}  // namespace gpuwatch
