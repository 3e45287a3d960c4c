#include "sources/procfs/workload.h"

#include <algorithm>
#include <optional>

#include "sources/sysfs/sysfs_file.h"

namespace gpuwatch::procfs {
namespace {

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}
bool is_hex_or_dash(char c) {
  return is_hex(c) || c == '-';
}
bool is_uid_char(char c) {
  return is_hex(c) || c == '-' || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// How many of `s`'s first characters are in the set.
std::size_t span(std::string_view s, bool (*in_set)(char)) {
  std::size_t n = 0;
  while (n < s.size() && in_set(s[n])) ++n;
  return n;
}

// What `match` finds in the rest of `path` after the first `prefix` where it finds anything. These layouts
// are read by hand, not by regular expressions: a one-shot `status` reads every GPU process's cgroup once,
// and compiling six expressions cost more than all of its other procfs reads together.
template <typename Match>
std::optional<std::string_view> first_after(std::string_view path, std::string_view prefix, Match match) {
  for (auto at = path.find(prefix); at != std::string_view::npos; at = path.find(prefix, at + 1)) {
    if (auto found = match(path.substr(at + prefix.size()))) return found;
  }
  return std::nullopt;
}

// The container's scope or directory: the runtime it names, and its id: a run of hexadecimal digits at least
// `min_id` long, followed by `suffix`; with `below_pod_dir` the id is the directory right below the pod's.
struct ContainerLayout {
  std::string_view prefix;
  const char* runtime;
  std::size_t min_id;
  std::string_view suffix;
  bool below_pod_dir;
};

constexpr ContainerLayout kContainerLayouts[] = {
    {"/cri-containerd-", "containerd", 1, ".scope", false},
    {"/crio-", "cri-o", 1, ".scope", false},
    {"/docker-", "docker", 1, ".scope", false},
    {"/docker/", "docker", 12, "", false},
    // cgroupfs driver: "/pod<uid>/<id>", runtime unknown from the path.
    {"/pod", "containerd", 12, "", true},
};

std::optional<std::string_view> container_id(const ContainerLayout& layout, std::string_view rest) {
  if (layout.below_pod_dir) {
    const std::size_t n = span(rest, is_hex_or_dash);
    if (n == 0 || !rest.substr(n).starts_with('/')) return std::nullopt;
    rest.remove_prefix(n + 1);
  }
  const std::size_t n = span(rest, is_hex);
  if (n < layout.min_id || !rest.substr(n).starts_with(layout.suffix)) return std::nullopt;
  return rest.substr(0, n);
}

// "pod<uid>" ending at ".slice", "/" or the end of the path; the systemd driver writes the uid's dashes as
// underscores.
std::optional<std::string_view> pod_uid(std::string_view rest) {
  if (rest.empty() || !is_hex(rest.front())) return std::nullopt;
  const std::size_t n = span(rest, is_uid_char);
  const auto after = rest.substr(n);
  if (!after.empty() && !after.starts_with(".slice") && !after.starts_with('/')) return std::nullopt;
  return rest.substr(0, n);
}

std::optional<std::string_view> slurm_job(std::string_view rest) {
  const std::size_t n = span(rest, is_digit);
  if (n == 0 || (n < rest.size() && rest[n] != '/')) return std::nullopt;
  return rest.substr(0, n);
}

Workload from_path(std::string_view path) {
  Workload w;
  for (const auto& layout : kContainerLayouts) {
    const auto id =
        first_after(path, layout.prefix, [&](std::string_view rest) { return container_id(layout, rest); });
    if (id) {
      w.container_id = std::string(layout.runtime) + "://" + std::string(*id);
      break;
    }
  }
  if (path.find("kubepods") != std::string_view::npos) {
    if (const auto uid = first_after(path, "pod", pod_uid)) {
      w.pod_uid = *uid;
      std::replace(w.pod_uid.begin(), w.pod_uid.end(), '_', '-');
    }
  }
  if (const auto job = first_after(path, "/job_", slurm_job)) w.slurm_job = *job;
  return w;
}

}  // namespace

Workload workload_from_cgroup(std::string_view cgroup_text) {
  while (!cgroup_text.empty()) {
    const auto end = cgroup_text.find('\n');
    const std::string_view line = cgroup_text.substr(0, end);
    cgroup_text.remove_prefix(end == std::string_view::npos ? cgroup_text.size() : end + 1);
    // hierarchy-id:controllers:path; the path may itself hold colons.
    const auto first = line.find(':');
    const auto second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    Workload w = from_path(line.substr(second + 1));
    if (!w.empty()) return w;
  }
  return {};
}

std::string slurm_account_from_environ(std::string_view environ_text) {
  constexpr std::string_view kName = "SLURM_JOB_ACCOUNT=";
  while (!environ_text.empty()) {
    const auto end = environ_text.find('\0');
    const auto entry = environ_text.substr(0, end);
    if (entry.starts_with(kName)) return std::string(entry.substr(kName.size()));
    if (end == std::string_view::npos) break;
    environ_text.remove_prefix(end + 1);
  }
  return "";
}

std::optional<Workload> read_workload(const std::string& proc_root, unsigned pid) {
  const std::string dir = proc_root + "/" + std::to_string(pid);
  const auto text = kernel::read_sysfs_file(dir + "/cgroup");
  if (!text) return std::nullopt;
  Workload w = workload_from_cgroup(*text);
  if (const auto env = kernel::read_sysfs_file(dir + "/environ"))
    w.slurm_account = slurm_account_from_environ(*env);
  return w;
}

}  // namespace gpuwatch::procfs
