// A directory under /tmp for one test, removed with everything in it when the test ends.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace gpuwatch::store::test {

class TempDir {
 public:
  // `base`: /dev/shm for a test that measures memory or CPU, not the disk's syncs.
  explicit TempDir(const std::string& base = "/tmp") {
    static std::atomic<int> counter{0};
    path_ = base + "/gpuwatch-store-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace gpuwatch::store::test
