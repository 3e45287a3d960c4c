// What each XID means and what to do about it, and how loud it is: the one table the XID detector, the health
// verdict, the runbooks and docs/detection.md follow (NVIDIA's public XID catalogue; DCGM's always-serious
// codes).
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "rules/verdict.h"

namespace gpuwatch::rules {

enum class XidClass {
  kCritical,       // the GPU needs a reset or more: page (GpuXidCritical)
  kHardware,       // a hardware problem that can wait for working hours: ticket (GpuXidHardware)
  kApplication,    // an application's own fault: ticket, escalated when it repeats (GpuXidApplication)
  kInformational,  // nothing to do once (Ctrl-C, a clean-up): alerts only when it repeats (GpuXidApplication)
};

struct XidInfo {
  unsigned code;
  XidClass cls;
  std::string_view meaning;
  std::string_view action;
};

// nullopt for a code not in the table (treated as kHardware with a generic meaning).
std::optional<XidInfo> xid_info(unsigned code);
XidInfo xid_info_or_generic(unsigned code);
std::span<const XidInfo> xid_catalogue();

// What one occurrence makes of the GPU's health: critical for kCritical, a warning for hardware and
// application faults, nothing for an informational code (it alerts only when it repeats).
HealthVerdict xid_verdict(XidClass cls);

}  // namespace gpuwatch::rules
