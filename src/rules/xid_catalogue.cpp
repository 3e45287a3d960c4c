#include "rules/xid_catalogue.h"

#include <array>

namespace gpuwatch::rules {
namespace {

using enum XidClass;

// Page: DCGM's always-serious codes (48, 74, 79, 95, 119, 120, 140) and every code whose recovery is a GPU
// reset or more. Ticket: hardware trouble that can wait, and application faults.
constexpr std::array<XidInfo, 30> kXids = {{
    {8, kApplication, "GPU stopped processing (idle timeout)", "restart the application"},
    {13, kApplication, "graphics engine exception, usually an out-of-bounds access by the application",
     "restart the application; run it under compute-sanitizer; suspect hardware only if it repeats on this "
     "GPU"},
    {31, kApplication, "GPU memory page fault (MMU), usually an application bug", "restart the application"},
    {32, kHardware, "corrupted push buffer, mostly PCIe signal quality",
     "restart the application; check PCIe"},
    {43, kInformational, "the application hit a software fault; the GPU stays healthy", "none"},
    {45, kInformational, "preemptive cleanup (kill, Ctrl-C, reset, or after a double-bit error)",
     "follow the XIDs it came with"},
    {46, kCritical, "GPU timeout", "reset the GPU"},
    {48, kCritical, "double-bit ECC error",
     "drain the GPU, reset it or reboot; run field diagnostics; RMA if it repeats"},
    {54, kHardware, "auxiliary power not connected", "check the GPU's power cabling"},
    {62, kCritical, "internal micro-controller halt", "reset the GPU"},
    {63, kHardware, "row remap / page retirement event", "none now; trend it (a reset applies the remap)"},
    {64, kCritical, "row remap / page retirement failure", "reset the GPU; contact support"},
    {74, kCritical, "NVLink error (may follow a failed peer)",
     "reset the GPU or reboot; vendor if it persists"},
    {79, kCritical, "GPU has fallen off the bus", "drain and reboot the node; contact support"},
    {92, kHardware, "high single-bit ECC error rate", "none; contact support if it persists"},
    {94, kHardware, "contained memory error, one application affected",
     "restart the application; reset the GPU when convenient"},
    {95, kCritical, "uncontained memory error, several applications affected",
     "reset the GPU before restarting applications"},
    {109, kCritical, "context-switch timeout", "reset the GPU"},
    {110, kCritical, "security fault, likely hardware", "cold-reset the GPU (power cycle)"},
    {119, kCritical, "GSP RPC timeout", "reset the GPU; power-cycle if it persists"},
    {120, kCritical, "GSP error", "reset the GPU; power-cycle if it persists"},
    {121, kHardware, "C2C corrected link errors", "none; retrain the link in a service window"},
    {136, kCritical, "NVLink training failed", "reset the GPU"},
    {137, kApplication, "NVLink privilege error, usually an application bug", "none"},
    {140, kCritical, "ECC error escaped row remapping", "reset the GPU"},
    {143, kCritical, "GPU initialisation error", "reset the GPU"},
    {154, kCritical, "GPU recovery action changed",
     "do the recovery action the driver names (drain, reset, reboot)"},
    {155, kCritical, "NVLink link down", "reset the GPU"},
    {156, kCritical, "NVLink resource retirement", "reset the GPU"},
    {158, kCritical, "NVLink fatal timeout", "reset the GPU"},
}};

}  // namespace

std::optional<XidInfo> xid_info(unsigned code) {
  for (const auto& x : kXids)
    if (x.code == code) return x;
  return std::nullopt;
}

XidInfo xid_info_or_generic(unsigned code) {
  if (auto x = xid_info(code)) return *x;
  return {code, XidClass::kHardware, "an XID not in gpuwatch's catalogue",
          "look the code up in NVIDIA's XID catalogue; check the kernel log around it"};
}

std::span<const XidInfo> xid_catalogue() {
  return kXids;
}

HealthVerdict xid_verdict(XidClass cls) {
  switch (cls) {
    case XidClass::kCritical:
      return HealthVerdict::kCritical;
    case XidClass::kHardware:
    case XidClass::kApplication:
      return HealthVerdict::kWarning;
    case XidClass::kInformational:
      return HealthVerdict::kHealthy;
  }
  return HealthVerdict::kWarning;
}

}  // namespace gpuwatch::rules
