// A file descriptor that closes itself.
#pragma once

#include <unistd.h>

#include <string>
#include <utility>

namespace gpuwatch::store {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// fsyncs a directory so that files created or removed in it survive a power loss; errors are ignored
// (some filesystems refuse fsync on directories, and nothing better can be done).
void sync_directory(const std::string& path);

}  // namespace gpuwatch::store
