// What each XID means and what to do about it, and how loud it is: the one table the XID detector, its
// runbooks and docs/detection.md follow (NVIDIA's public XID catalogue; DCGM's always-serious codes).
#pragma once

#include <optional>
#include <string_view>

#include "alerting/condition.h"

namespace gpuwatch::detect {

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

}  // namespace gpuwatch::detect
