// Who runs a GPU process and how it was started, from /proc/<pid>/status (its real uid) and
// /proc/<pid>/cmdline, with the user name from the host's passwd (user_names.h). Read once per process by the
// host reader and carried into each ProcessSample of the snapshot, so the status table, its CSV and the JSON
// API agree.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sources/procfs/user_names.h"

namespace gpuwatch::procfs {

struct ProcessDetails {
  std::optional<unsigned> uid;  // the real uid; nullopt when <pid>/status cannot be read
  std::string user;             // the passwd name of uid, else uid in decimal; "" when uid is unknown
  std::string command;          // the command line, arguments joined by spaces; "" when unknown or empty
};

// The real uid of a status file's "Uid:\treal\teffective\tsaved\tfs" line.
std::optional<unsigned> uid_from_status(std::string_view status_text);

// A cmdline file's arguments (each ends in NUL) joined by spaces, as ps shows them: other control characters
// become '?', the text is made valid UTF-8 and cut to kMaxOutsideTextBytes.
std::string command_from_cmdline(std::string_view cmdline);

// Reads <proc_root>/<pid>/status and cmdline; what cannot be read stays empty.
ProcessDetails read_process_details(const std::string& proc_root, unsigned pid, UserNames& users);

}  // namespace gpuwatch::procfs
