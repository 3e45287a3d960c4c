#include "sources/procfs/process_details.h"

#include <charconv>

#include "core/file_io.h"
#include "core/utf8.h"

namespace gpuwatch::procfs {

std::optional<unsigned> uid_from_status(std::string_view status_text) {
  constexpr std::string_view kKey = "Uid:";
  for (std::size_t at = 0; at < status_text.size();) {
    const auto eol = status_text.find('\n', at);
    const std::string_view line =
        status_text.substr(at, eol == std::string_view::npos ? std::string_view::npos : eol - at);
    at = eol == std::string_view::npos ? status_text.size() : eol + 1;
    if (!line.starts_with(kKey)) continue;
    std::string_view rest = line.substr(kKey.size());
    while (!rest.empty() && (rest.front() == '\t' || rest.front() == ' ')) rest.remove_prefix(1);
    unsigned uid = 0;
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), uid);
    if (error != std::errc{} || end == rest.data()) return std::nullopt;
    return uid;
  }
  return std::nullopt;
}

std::string command_from_cmdline(std::string_view cmdline) {
  while (!cmdline.empty() && cmdline.back() == '\0') cmdline.remove_suffix(1);
  std::string command(cmdline.substr(0, kMaxOutsideTextBytes + 4));  // a cut text still ends in "..."
  for (char& c : command) {
    if (c == '\0') {
      c = ' ';
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      c = '?';  // a line feed or escape in an argument would break the table and the CSV rows
    }
  }
  return to_valid_utf8(command);
}

ProcessDetails read_process_details(const std::string& proc_root, unsigned pid, UserNames& users) {
  ProcessDetails details;
  const std::string dir = proc_root + "/" + std::to_string(pid);
  if (const auto status = read_file(dir + "/status")) details.uid = uid_from_status(*status);
  if (details.uid) details.user = users.name_of(*details.uid);
  if (const auto cmdline = read_file(dir + "/cmdline")) details.command = command_from_cmdline(*cmdline);
  return details;
}

}  // namespace gpuwatch::procfs
