#include "sources/kernel_log/kmsg_reader.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "sources/kernel_log/kmsg_parser.h"

namespace gpuwatch::kernel {

KmsgReader::KmsgReader(std::string path) : path_(std::move(path)) {}

KmsgReader::~KmsgReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool KmsgReader::ensure_open() {
  if (fd_ >= 0) return true;
  fd_ = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) {
    const int err = errno;
    ++status_.open_failures;
    status_.readable = false;
    status_.error = path_ + ": " + std::strerror(err);
    if (!warned_) {
      warned_ = true;
      spdlog::warn(
          "kernel log {} cannot be read ({}){}; XIDs come from NVML alone, without pid or process name",
          path_, std::strerror(err), err == EPERM || err == EACCES ? ": the agent needs CAP_SYSLOG" : "");
    }
    return false;
  }
  struct stat st {};
  regular_file_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
  status_.readable = true;
  status_.error.clear();
  return true;
}

void KmsgReader::take_line(std::string_view line, std::vector<KernelEvent>& out) {
  if (line.empty() || line.front() == ' ') return;  // continuation lines carry no message
  // A record seen again (the log reopened, a file rewritten with the same beginning, or read by the reader
  // this one carries on from) is not news.
  const KernelRecord record = split_kernel_record(line);
  if (record.sequence != 0) {
    if (record.sequence <= status_.last_sequence) return;
    status_.last_sequence = record.sequence;
  }
  ++status_.records;
  auto ev = parse_kernel_record(record);
  if (!ev) return;
  ev->before_start = first_poll_;
  ++status_.events;
  out.push_back(std::move(*ev));
}

void KmsgReader::resume(const KmsgStatus& earlier) {
  status_.records = earlier.records;
  status_.events = earlier.events;
  status_.open_failures = earlier.open_failures;
  status_.overruns = earlier.overruns;
  status_.last_sequence = earlier.last_sequence;
  first_poll_ = false;
}

std::vector<KernelEvent> KmsgReader::poll(std::size_t max_records) {
  std::vector<KernelEvent> out;
  if (!ensure_open()) return out;
  std::array<char, 8192> buf{};  // a kmsg record is at most ~1 KiB of text plus its dictionary
  for (std::size_t records = 0; records < max_records; ++records) {
    const ssize_t n = ::read(fd_, buf.data(), buf.size());
    if (n > 0) {
      if (!regular_file_) {
        take_line(std::string_view(buf.data(), static_cast<std::size_t>(n)), out);
        continue;
      }
      partial_.append(buf.data(), static_cast<std::size_t>(n));
      std::size_t start = 0;
      for (auto nl = partial_.find('\n'); nl != std::string::npos; nl = partial_.find('\n', start)) {
        take_line(std::string_view(partial_).substr(start, nl - start), out);
        start = nl + 1;
      }
      partial_.erase(0, start);
      continue;
    }
    if (n == 0) break;  // end of a plain file; it may grow before the next poll
    if (errno == EINTR) continue;
    if (errno == EAGAIN) break;  // /dev/kmsg: nothing new
    if (errno == EPIPE) {        // records overwritten before we read them; the next read goes on
      ++status_.overruns;
      continue;
    }
    const int err = errno;
    status_.error = path_ + ": " + std::strerror(err);
    if (!warned_)
      spdlog::warn("reading kernel log {}: {}; retrying on later polls", path_, std::strerror(err));
    warned_ = true;
    ::close(fd_);
    fd_ = -1;
    status_.readable = false;
    break;
  }
  if (status_.readable && warned_) {
    spdlog::info("kernel log {} is readable again", path_);
    warned_ = false;
  }
  first_poll_ = false;
  return out;
}

}  // namespace gpuwatch::kernel
