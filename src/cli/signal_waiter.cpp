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

}  // namespace gpuwatch
