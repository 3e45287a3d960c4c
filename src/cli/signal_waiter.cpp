#include "cli/signal_waiter.h"

#include <pthread.h>

namespace gpuwatch {

SignalWaiter::SignalWaiter() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGTERM);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set_, &previous_);
}

SignalWaiter::~SignalWaiter() {
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

int SignalWaiter::wait() const {
  int sig = 0;
  while (sigwait(&set_, &sig) != 0) {
  }
  return sig;
}

int SignalWaiter::poll() const {
  const timespec now{};
  const int sig = sigtimedwait(&set_, nullptr, &now);
  return sig > 0 ? sig : 0;
}

}  // namespace gpuwatch
