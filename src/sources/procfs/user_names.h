// Who runs a process: the user name of a uid, from the host's passwd file, which gpuwatch parses itself.
//
// Not getpwuid: it is not thread-safe, and like getpwuid_r it goes through NSS, which loads modules into the
// agent and may block on a network directory (LDAP, sssd) for longer than a tick's deadline; and neither
// knows the users of a host gpuwatch reads through a root of its own (--proc-root /host/proc, a container,
// the simulator's tree). The file is all it takes: a user known only to a network directory shows as its uid.
//
// Which file: the host's, as its init sees it, <proc_root>/1/root/etc/passwd (readable by root only; right in
// a container that shares the host's PID namespace, whose own /etc/passwd is not the host's), else the file
// beside the proc root, <proc_root>/../etc/passwd: /etc/passwd for /proc, /host/etc/passwd for /host/proc.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::procfs {

// The passwd files tried for the host whose /proc is at `proc_root`, in order (see above).
std::vector<std::string> passwd_paths(const std::string& proc_root);

// uid -> user name from passwd text (name:password:uid:gid:gecos:home:shell). Comments, blank, NIS (+/-) and
// malformed lines are skipped; the first entry of a uid wins, as with getpwuid.
std::map<unsigned, std::string> parse_passwd(std::string_view text);

// User names by uid, from the first passwd file of `paths` that can be read. The file is looked at again at
// most every `recheck` and parsed again only when it changed (another inode, size or modification time).
// Not thread-safe: the host reader that owns it reads on one thread at a time.
class UserNames {
 public:
  static constexpr std::chrono::seconds kRecheck{10};
  explicit UserNames(std::vector<std::string> paths, std::chrono::steady_clock::duration recheck = kRecheck);

  // The user name of `uid`, or the uid in decimal when no passwd file names it.
  std::string name_of(unsigned uid);

 private:
  struct FileVersion {
    std::string path;
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = 0;
    std::int64_t mtime_ns = 0;
    bool operator==(const FileVersion&) const = default;
  };
  void refresh();

  std::vector<std::string> paths_;
  std::chrono::steady_clock::duration recheck_;
  std::optional<std::chrono::steady_clock::time_point> checked_;
  std::optional<FileVersion> version_;  // of the file names_ came from
  std::map<unsigned, std::string> names_;
};

}  // namespace gpuwatch::procfs
