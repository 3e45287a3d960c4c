// Reads run one after another on one abandonable worker, for a collector that reads once (`gpuwatch status`):
// a thread started for each GPU costs more than the GPU's read. The owner sleeps until the reads have ended
// or one is slow (a hung GPU), then takes back the reads not begun and gives them workers of their own, so
// one GPU that never answers still leaves only itself unread.
//
// The reads follow AbandonableWorker's rule: each owns what it touches, since a read stuck in the driver
// outlives the relay's owner.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "collector/abandonable_worker.h"

namespace gpuwatch {

class ReadRelay {
 public:
  using Read = std::function<void()>;
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  ReadRelay();

  // Runs `reads` in order. False, and nothing started, while a read of an earlier start is still running.
  bool start(std::vector<Read> reads);
  // Whether read `i` of the last start ended, waiting until `deadline` at most. A read taken back never ends
  // here.
  bool wait_for(std::size_t i, std::chrono::steady_clock::time_point deadline);
  // Waits until every read of the last start has ended, or the one running (or about to begin) has taken
  // `share` or longer: true then, false when `deadline` came first. all_ended() tells the two apart.
  bool wait_for_all(std::chrono::steady_clock::duration share,
                    std::chrono::steady_clock::time_point deadline);
  bool all_ended() const;
  // Takes back the reads of the last start that have not begun; returns the index of the first of them
  // (all from there on), or the number of reads when every one had begun.
  std::size_t take_back();
  // The read of the last start that is running now, kNone when none is.
  std::size_t running() const;
  bool busy() const { return worker_.busy(); }
  void request_stop() { worker_.request_stop(); }

 private:
  struct State;
  std::shared_ptr<State> state_;  // shared with the worker's thread
  AbandonableWorker worker_;
};

}  // namespace gpuwatch
