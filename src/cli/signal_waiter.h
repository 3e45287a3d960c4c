// Turns SIGTERM, SIGINT and SIGHUP into values a thread can wait for. Construct it before any other thread
// starts: the signals are blocked in the constructing thread and every thread created after it, and only
// wait() receives them, so no handler runs in the middle of a driver call.
#pragma once

#include <signal.h>

namespace gpuwatch {

class SignalWaiter {
 public:
  SignalWaiter();
  ~SignalWaiter();  // restores the previous signal mask
  SignalWaiter(const SignalWaiter&) = delete;
  SignalWaiter& operator=(const SignalWaiter&) = delete;

  // Blocks until one of the signals arrives and returns its number.
  int wait() const;
  // The signal that arrived since the last call, without waiting; 0 when none did (a loop that draws
  // between keys, as top's, asks between redraws).
  int poll() const;

 private:
  sigset_t set_{};
  sigset_t previous_{};
};

}  // namespace gpuwatch
