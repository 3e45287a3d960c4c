#include "core/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/unique_fd.h"

namespace gpuwatch {
namespace {

std::string failure(const std::string& path, int error_number) {
  return path + ": " + std::strerror(error_number);
}

std::string read_failure(const std::string& path, int error_number) {
  return path + ": cannot read: " + std::strerror(error_number);
}

std::string write_all(int fd, std::string_view bytes, const std::string& path) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failure(path, errno);
    done += static_cast<std::size_t>(n);
  }
  return "";
}

}  // namespace

std::optional<std::string> read_file(const std::string& path, std::string* error, std::size_t max_bytes) {
  const auto fail = [&](std::string why) -> std::optional<std::string> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return fail(read_failure(path, errno));
  std::string text;
  char buf[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(read_failure(path, errno));
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes)
      return fail(path + ": larger than " + std::to_string(max_bytes) + " bytes");
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

std::string write_file_durably(const std::string& path, std::string_view bytes) {
  const std::string tmp = path + ".tmp";
  {
    const UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (fd.get() < 0) return failure(tmp, errno);
    std::string problem = write_all(fd.get(), bytes, tmp);
    if (problem.empty() && ::fsync(fd.get()) != 0) problem = failure(tmp, errno);
    if (!problem.empty()) {
      ::unlink(tmp.c_str());
      return problem;
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    return failure(path, e);
  }
  // The rename is durable only once the directory entry is.
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  const UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.get() < 0) return failure(dir, errno);
  if (::fsync(dir_fd.get()) != 0) return failure(dir, errno);
  return "";
}

}  // namespace gpuwatch
