// What top's drawing loop sleeps on, so that it wakes for a reason and not on a timer: a new frame (a source
// calls notify() from its own thread), a key, SIGINT/SIGTERM/SIGHUP (blocked by the SignalWaiter and seen
// here through a signalfd, left pending for it to take), a terminal resize (ncurses's SIGWINCH ends the wait)
// or the time given, instead of waking ten times a second to look.
#pragma once

#include <chrono>

namespace gpuwatch::top {

class Wakeup {
 public:
  Wakeup();
  ~Wakeup();
  Wakeup(const Wakeup&) = delete;
  Wakeup& operator=(const Wakeup&) = delete;

  // From any thread: wakes the waiter (a wake while it is not waiting ends its next wait at once).
  void notify() const;
  // Until a frame was notified, a key is waiting on standard input, one of the signals is pending, a signal
  // interrupted it, or `timeout` passed.
  void wait(std::chrono::milliseconds timeout) const;

 private:
  int event_fd_ = -1;
  int signal_fd_ = -1;
};

}  // namespace gpuwatch::top
