// Reads the kernel log without blocking: /dev/kmsg (one record per read, from the oldest record still in
// the ring buffer, so XIDs from before the agent started are seen) or a plain file of recorded records
// (read as it grows). When the log cannot be opened (absent, or EPERM without CAP_SYSLOG) the reader logs
// one line saying so, keeps the reason in status(), retries on later polls, and returns no events: the
// agent goes on with what NVML says.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sources/kernel_log/kernel_event.h"

namespace gpuwatch::kernel {

struct KmsgStatus {
  bool readable = false;
  std::string error;                // why the log is not readable ("" when it is)
  std::uint64_t records = 0;        // records read, GPU-related or not
  std::uint64_t events = 0;         // records that became KernelEvents
  std::uint64_t open_failures = 0;  // failed attempts to open the log
  std::uint64_t overruns = 0;       // times the ring buffer overwrote records before we read them (EPIPE)
  std::uint64_t last_sequence = 0;  // the newest record's sequence number read (0: none numbered yet)
};

class KmsgReader {
 public:
  explicit KmsgReader(std::string path = "/dev/kmsg");
  ~KmsgReader();
  KmsgReader(const KmsgReader&) = delete;
  KmsgReader& operator=(const KmsgReader&) = delete;

  // Every GPU-related event logged since the last poll (on the first poll: all the log still holds, marked
  // before_start). Never blocks; reads at most max_records records per call.
  std::vector<KernelEvent> poll(std::size_t max_records = 100000);
  // Carries on where an earlier reader of the same log stopped (a reload replaces the reader): its counts
  // go on, records up to its last sequence number are not read again, and nothing is marked before_start.
  // Call before the first poll.
  void resume(const KmsgStatus& earlier);
  const KmsgStatus& status() const { return status_; }
  const std::string& path() const { return path_; }

 private:
  bool ensure_open();
  void take_line(std::string_view line, std::vector<KernelEvent>& out);

  std::string path_;
  int fd_ = -1;
  bool regular_file_ = false;
  bool first_poll_ = true;
  bool warned_ = false;
  std::string partial_;  // a plain file's incomplete last line
  KmsgStatus status_;
};

}  // namespace gpuwatch::kernel
