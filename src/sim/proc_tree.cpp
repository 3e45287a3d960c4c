// gpuwatchSimWriteProcTree: a fake /proc with the scenario's processes (comm, cmdline, cgroup, status, maps),
// so the agent's process attribution can run against the same scenario as its NVML readings, and the host's
// passwd file where the agent looks for it in a proc tree, <dir>/1/root/etc/passwd (init's view of /etc),
// naming the scenario's users.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <system_error>

#include "sim/api_support.h"
#include "sim/tree_files.h"

using namespace gpuwatch::sim;

namespace {

std::string maps_text(const ProcessSpec& p, const std::string& driver_version) {
  std::vector<std::string> libraries = p.libraries;
  if (libraries.empty()) libraries.push_back("/usr/lib/x86_64-linux-gnu/libcuda.so." + driver_version);
  std::string text;
  unsigned long long base = 0x7f0000000000ULL + (static_cast<unsigned long long>(p.pid) << 24);
  unsigned long inode = 1000000 + p.pid * 16UL;
  for (const auto& lib : libraries) {
    // Each library maps as text then data, as the dynamic loader lays it out.
    const char* perms[] = {"r-xp", "rw-p"};
    for (int seg = 0; seg < 2; ++seg) {
      char line[512];
      std::snprintf(line, sizeof line, "%012llx-%012llx %s %08llx 08:01 %lu %s\n", base, base + 0x200000,
                    perms[seg], static_cast<unsigned long long>(seg) * 0x200000, inode, lib.c_str());
      text += line;
      base += 0x200000;
    }
    ++inode;
  }
  return text;
}

nvmlReturn_t write_process(const std::filesystem::path& root, const ProcessSpec& p,
                           const std::string& driver_version) {
  const std::filesystem::path dir = root / std::to_string(p.pid);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return NVML_ERROR_OPERATING_SYSTEM;
  std::string cmdline;
  for (const auto& arg : p.cmdline) cmdline += arg + '\0';
  const std::string uid = std::to_string(p.uid);
  const std::string cgroup =
      p.cgroup.empty() ? "/user.slice/user-" + uid + ".slice/session-1.scope" : p.cgroup;
  const std::string comm = p.name.substr(0, 15);
  // Real, effective, saved and filesystem ids, as the kernel lists them; the group is the user's own.
  const std::string ids = uid + "\t" + uid + "\t" + uid + "\t" + uid + "\n";
  const std::string status = "Name:\t" + comm + "\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t" +
                             std::to_string(p.pid) + "\nPid:\t" + std::to_string(p.pid) + "\nPPid:\t" +
                             std::to_string(p.ppid) + "\nTracerPid:\t0\nUid:\t" + ids + "Gid:\t" + ids;
  const bool ok = write_file(dir / "comm", comm + "\n") && write_file(dir / "cmdline", cmdline) &&
                  write_file(dir / "cgroup", "0::" + cgroup + "\n") && write_file(dir / "status", status) &&
                  write_file(dir / "maps", maps_text(p, driver_version));
  return ok ? NVML_SUCCESS : NVML_ERROR_OPERATING_SYSTEM;
}

// root and every user the scenario names, each once.
nvmlReturn_t write_passwd(const std::filesystem::path& root, const std::vector<ProcessSpec>& processes) {
  std::map<unsigned, std::string> users;
  for (const auto& p : processes)
    if (!p.user.empty()) users.emplace(p.uid, p.user);
  users.emplace(0, "root");
  std::string text;
  for (const auto& [uid, name] : users) {
    const std::string id = std::to_string(uid);
    const std::string home = uid == 0 ? "/root" : "/home/" + name;
    text += name + ":x:" + id + ":" + id + "::" + home + ":/bin/bash\n";
  }
  const std::filesystem::path etc = root / "1" / "root" / "etc";
  std::error_code ec;
  std::filesystem::create_directories(etc, ec);
  if (ec) return NVML_ERROR_OPERATING_SYSTEM;
  return write_file(etc / "passwd", text) ? NVML_SUCCESS : NVML_ERROR_OPERATING_SYSTEM;
}

}  // namespace

extern "C" int gpuwatchSimWriteProcTree(const char* dir) {
  return guarded([&]() -> nvmlReturn_t {
    if (!dir || !*dir) return NVML_ERROR_INVALID_ARGUMENT;
    const auto node = sim().node();
    if (!node) return NVML_ERROR_UNINITIALIZED;
    for (const auto& p : node->scenario.processes)
      if (const nvmlReturn_t r = write_process(dir, p, node->scenario.node.driver_version); r != NVML_SUCCESS)
        return r;
    return write_passwd(dir, node->scenario.processes);
  });
}
