#include "sim/kernel_log.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "sim/identity.h"

namespace gpuwatch::sim {
namespace {

constexpr double kBootBeforeStart = 600;  // the node booted ten minutes before the scenario starts

struct Record {
  double t;
  int priority;  // syslog level: 3 error, 4 warning, 6 info
  std::string text;
};

// "00000000:3B:00.0" -> "0000:3b:00", the form NVRM uses in Xid lines.
std::string nvrm_bus(unsigned gpu) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0000:%02x:00", pci_bus(gpu));
  return buf;
}

std::string xid_detail(unsigned code) {
  switch (code) {
    case 13:
      return "Graphics SM Warp Exception on (GPC 1, TPC 0, SM 1): Out Of Range Address";
    case 31:
      return "Ch 00000010, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ "
             "0x7f12_3a000000";
    case 43:
      return "Ch 00000008, engmask 00000101";
    case 45:
      return "Ch 00000008, engmask 00000101, intr 00000000";
    case 48:
      return "DBE (double bit error) ECC error";
    case 63:
      return "Row Remapper: New row marked for remapping, reset gpu to activate.";
    case 64:
      return "Row Remapper: Failed to remap a row";
    case 79:
      return "GPU has fallen off the bus.";
    default:
      return "";
  }
}

// The process the driver names in an Xid line: the fault's pid, else the first one running on the GPU.
std::string xid_owner(const Node& node, unsigned gpu, unsigned pid, double at) {
  const ProcessModel& pm = node.processes;
  for (std::size_t i : pm.on_gpu(gpu)) {
    const ProcessSpec& p = pm.spec(i);
    if ((pid != 0 && p.pid == pid) || (pid == 0 && pm.alive(i, at)))
      return "pid=" + std::to_string(p.pid) + ", name=" + p.name.substr(0, 15);
  }
  return pid != 0 ? "pid=" + std::to_string(pid) + ", name=<unknown>" : "pid='<unknown>', name=<unknown>";
}

void add_xid(std::vector<Record>& out, const Node& node, unsigned gpu, unsigned code, unsigned pid,
             double at) {
  const std::string owner = code == 79 ? "pid='<unknown>', name=<unknown>" : xid_owner(node, gpu, pid, at);
  out.push_back({at, 4,
                 "NVRM: Xid (PCI:" + nvrm_bus(gpu) + "): " + std::to_string(code) + ", " + owner + ", " +
                     xid_detail(code)});
}

std::string load_line(const std::string& version) {
  return "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  " + version + "  Tue Mar  5 22:23:56 UTC 2024";
}

std::vector<Record> records(const Node& node, double t) {
  std::vector<Record> out;
  out.push_back({0, 6, load_line(node.scenario.node.driver_version)});
  for (const Fault& f : node.scenario.faults) {
    if (f.at > t) continue;
    const auto gpu = static_cast<unsigned>(std::max(f.gpu, 0));
    switch (f.kind) {
      case FaultKind::kXid:
        add_xid(out, node, gpu, f.code, f.pid, f.at);
        break;
      case FaultKind::kEccDbe:
        add_xid(out, node, gpu, 48, 0, f.at);
        break;
      case FaultKind::kRowRemap:
        if (f.failure || f.pending) add_xid(out, node, gpu, f.failure ? 64 : 63, 0, f.at);
        break;
      case FaultKind::kFallOffBus:
        add_xid(out, node, gpu, 79, 0, f.at);
        out.push_back({f.at, 3, "NVRM: GPU " + nvrm_bus(gpu) + ".0: GPU has fallen off the bus."});
        break;
      case FaultKind::kPcieReplays:
        // One corrected-error report a minute while the link retries (the kernel rate-limits AER messages).
        for (double at = f.at; at <= t && at < f.end(); at += 60)
          out.push_back(
              {at, 3, "pcieport 0000:00:01.0: AER: Corrected error received: " + nvrm_bus(gpu) + ".0"});
        break;
      case FaultKind::kDriverReload:
      case FaultKind::kDriverUnload: {
        out.push_back({f.at, 6, "nvidia-nvlink: Unregistered Nvlink Core, major device number 234"});
        const std::string version =
            f.new_driver_version.empty() ? node.scenario.node.driver_version : f.new_driver_version;
        if (f.end() <= t) out.push_back({f.end(), 6, load_line(version)});
        break;
      }
      default:
        break;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Record& a, const Record& b) { return a.t < b.t; });
  return out;
}

}  // namespace

std::string kernel_log_text(const Node& node, double t, double wall_per_second) {
  std::string text;
  std::uint64_t seq = 1;
  for (const auto& r : records(node, t)) {
    const auto usec = static_cast<long long>(std::llround((r.t * wall_per_second + kBootBeforeStart) * 1e6));
    text += std::to_string(r.priority) + "," + std::to_string(seq++) + "," + std::to_string(usec) + ",-;" +
            r.text + "\n";
  }
  return text;
}

bool write_kernel_log(const std::string& path, const Node& node, double t, double wall_per_second) {
  const std::string text = kernel_log_text(node, t, wall_per_second);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size == text.size()) return true;
  if (!ec && size < text.size()) {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << text.substr(size);
    return static_cast<bool>(out);
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace gpuwatch::sim
