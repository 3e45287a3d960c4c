#include "sources/procfs/user_names.h"

#include <sys/stat.h>

#include <charconv>
#include <filesystem>

#include "core/file_io.h"
#include "core/utf8.h"

namespace gpuwatch::procfs {
namespace {

// A passwd file is a few kilobytes; one synced from a large directory can hold a few hundred thousand users.
constexpr std::size_t kMaxPasswdBytes = std::size_t{64} << 20;
constexpr std::size_t kMaxUserNameBytes = 256;

std::optional<unsigned> whole_number(std::string_view text) {
  unsigned value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::vector<std::string> passwd_paths(const std::string& proc_root) {
  std::filesystem::path root = std::filesystem::path(proc_root).lexically_normal();
  if (!root.has_filename()) root = root.parent_path();  // "/host/proc/"
  return {(root / "1/root/etc/passwd").string(), (root.parent_path() / "etc/passwd").string()};
}

std::map<unsigned, std::string> parse_passwd(std::string_view text) {
  std::map<unsigned, std::string> names;
  while (!text.empty()) {
    const auto eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    if (line.empty() || line.front() == '#' || line.front() == '+' || line.front() == '-') continue;
    const auto name_end = line.find(':');
    const auto password_end = name_end == std::string_view::npos ? name_end : line.find(':', name_end + 1);
    if (name_end == 0 || password_end == std::string_view::npos) continue;
    const auto uid_end = line.find(':', password_end + 1);
    if (uid_end == std::string_view::npos) continue;  // a uid needs at least the gid field after it
    const auto uid = whole_number(line.substr(password_end + 1, uid_end - password_end - 1));
    if (!uid) continue;
    names.emplace(*uid, to_valid_utf8(line.substr(0, name_end), kMaxUserNameBytes));
  }
  return names;
}

UserNames::UserNames(std::vector<std::string> paths, std::chrono::steady_clock::duration recheck)
    : paths_(std::move(paths)), recheck_(recheck) {}

void UserNames::refresh() {
  const auto now = std::chrono::steady_clock::now();
  if (checked_ && now - *checked_ < recheck_) return;
  checked_ = now;
  for (const auto& path : paths_) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    FileVersion version{path, st.st_dev, st.st_ino, st.st_size,
                        std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec};
    if (version_ == version) return;
    auto text = read_file(path, nullptr, kMaxPasswdBytes);
    if (!text) continue;  // there but not readable by this user (1/root as non-root): the next one
    names_ = parse_passwd(*text);
    version_ = std::move(version);
    return;
  }
  names_.clear();
  version_.reset();
}

std::string UserNames::name_of(unsigned uid) {
  refresh();
  const auto it = names_.find(uid);
  return it != names_.end() ? it->second : std::to_string(uid);
}

}  // namespace gpuwatch::procfs
