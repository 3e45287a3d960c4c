#include "cli/top/wakeup.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace gpuwatch::top {

Wakeup::Wakeup() {
  event_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  sigset_t stops;
  sigemptyset(&stops);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stops, s);
  signal_fd_ = ::signalfd(-1, &stops, SFD_CLOEXEC | SFD_NONBLOCK);
  if (event_fd_ < 0 || signal_fd_ < 0) {
    const std::string why = std::strerror(errno);
    if (event_fd_ >= 0) ::close(event_fd_);
    if (signal_fd_ >= 0) ::close(signal_fd_);
    throw std::runtime_error("top cannot wait for its readings: " + why);
  }
}

Wakeup::~Wakeup() {
  ::close(event_fd_);
  ::close(signal_fd_);
}

void Wakeup::notify() const {
  const std::uint64_t one = 1;
  // A full counter (never, at one a reading) or a closed descriptor only loses a wake the timeout covers.
  [[maybe_unused]] const auto written = ::write(event_fd_, &one, sizeof one);
}

void Wakeup::wait(std::chrono::milliseconds timeout) const {
  std::array<pollfd, 3> fds{{{STDIN_FILENO, POLLIN, 0}, {event_fd_, POLLIN, 0}, {signal_fd_, POLLIN, 0}}};
  if (::poll(fds.data(), fds.size(), static_cast<int>(std::max<std::int64_t>(timeout.count(), 0))) <= 0)
    return;  // the time passed, or a signal (SIGWINCH) interrupted it
  std::uint64_t count = 0;
  if (fds[1].revents & POLLIN) [[maybe_unused]]
    const auto taken = ::read(event_fd_, &count, sizeof count);
  // The signalfd is not read: the signal stays pending for the SignalWaiter's poll().
}

}  // namespace gpuwatch::top
