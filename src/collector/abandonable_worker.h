// A thread that runs one job on request and that its owner can walk away from; the thread starts with the
// first run. An NVML call stuck in the driver cannot be cancelled, so the owner never waits for a run longer
// than it chooses (wait_until), and the destructor detaches a thread that is still busy after a short grace
// period instead of joining it forever.
//
// Rule for jobs: everything a job touches must be owned by the job itself (shared_ptrs captured in it, such
// as the NvmlLibrary that keeps the driver's code mapped), never borrowed from the owner, because an
// abandoned job outlives its owner.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <stop_token>
#include <thread>

namespace gpuwatch {

class AbandonableWorker {
 public:
  // The job is run once per start(). A long-running job (a loop) should return when its stop_token says so.
  using Job = std::function<void(std::stop_token)>;

  explicit AbandonableWorker(Job job,
                             std::chrono::milliseconds shutdown_grace = std::chrono::milliseconds(250));
  // Requests stop, waits up to the grace period for the thread to finish, and detaches it otherwise.
  ~AbandonableWorker();
  AbandonableWorker(const AbandonableWorker&) = delete;
  AbandonableWorker& operator=(const AbandonableWorker&) = delete;

  // Starts one run of the job. False, and nothing started, while the previous run has not returned.
  bool start();
  // True when no run is in progress, waiting for the current one until `deadline` at most.
  bool wait_until(std::chrono::steady_clock::time_point deadline);
  bool busy() const;
  // Asks the job to stop (its stop_token) and the thread to exit after it; does not wait.
  void request_stop();

 private:
  struct State;
  void launch();
  std::shared_ptr<State> state_;  // shared with the thread, so an abandoned thread still has it
  std::thread thread_;
  std::chrono::milliseconds grace_;
};

}  // namespace gpuwatch
