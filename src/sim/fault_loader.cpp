// Reading the faults list: one entry per fault, `type` picks which keys it takes.
#include <array>
#include <utility>

#include "core/spelling.h"
#include "sim/scenario_loader.h"

namespace gpuwatch::sim {
namespace {

struct FaultType {
  std::string_view name;
  FaultKind kind;
};
constexpr std::array<FaultType, 16> kFaultTypes = {{
    {"thermal_throttle", FaultKind::kThermalThrottle},
    {"power_cap", FaultKind::kPowerCap},
    {"memory_leak", FaultKind::kMemoryLeak},
    {"process_oom", FaultKind::kProcessOom},
    {"xid", FaultKind::kXid},
    {"fall_off_bus", FaultKind::kFallOffBus},
    {"ecc_sbe", FaultKind::kEccSbe},
    {"ecc_dbe", FaultKind::kEccDbe},
    {"row_remap", FaultKind::kRowRemap},
    {"pcie_replays", FaultKind::kPcieReplays},
    {"link_downtrain", FaultKind::kLinkDowntrain},
    {"hung_call", FaultKind::kHungCall},
    {"driver_hang", FaultKind::kDriverHang},
    {"driver_reload", FaultKind::kDriverReload},
    {"driver_unload", FaultKind::kDriverUnload},
    {"mig_reconfigure", FaultKind::kMigReconfigure},
}};

bool node_wide(FaultKind kind) {
  return kind == FaultKind::kDriverHang || kind == FaultKind::kDriverReload ||
         kind == FaultKind::kDriverUnload;
}

// NVML refuses to destroy a MIG instance that runs processes, so the ones on the old layout must be gone.
void check_mig_reconfigure(const YamlReader& in, const YAML::Node& f, const Fault& out, const Scenario& sc) {
  const DeviceSpec& dev = sc.devices[static_cast<std::size_t>(out.gpu)];
  if (!dev.mig_enabled) in.fail(f, "mig_reconfigure needs a GPU with mig enabled (mig: {enabled: true})");
  if (!f["instances"]) in.fail(f, "mig_reconfigure needs instances: [profile, ...] (may be empty)");
  if (f["duration"]) in.fail(f["duration"], "mig_reconfigure lasts until the next one; remove duration");
  for (const auto& p : sc.processes) {
    if (static_cast<int>(p.gpu) == out.gpu && p.mig >= 0 && p.stop > out.at)
      in.fail(f["at"], "process " + std::to_string(p.pid) + " still runs on a MIG instance of gpu " +
                           std::to_string(out.gpu) + " at the reconfiguration; give it a stop before then");
  }
}

Fault read_fault(const YamlReader& in, const YAML::Node& f, const Scenario& sc) {
  in.expect_map(
      f, "a fault",
      {"type", "gpu", "at", "duration", "rate", "code", "pid", "limit", "brake", "width", "gen",
       "correctable", "uncorrectable", "pending", "failure", "count", "new_driver_version", "instances"});
  if (!f["type"]) in.fail(f, "a fault needs a type");
  const std::string type = in.text(f["type"], "fault type");
  Fault out;
  bool known = false;
  std::vector<std::string_view> names;
  for (const auto& t : kFaultTypes) {
    names.push_back(t.name);
    if (t.name == type) {
      out.kind = t.kind;
      known = true;
    }
  }
  if (!known) {
    std::string message = "unknown fault type '" + type + "'";
    if (auto hint = closest_match(type, names); !hint.empty()) message += " (did you mean '" + hint + "'?)";
    in.fail(f["type"], message);
  }
  if (!node_wide(out.kind)) {
    if (!f["gpu"]) in.fail(f, "fault " + type + " needs a gpu index");
    out.gpu = static_cast<int>(in.whole(f["gpu"], "gpu"));
    if (static_cast<std::size_t>(out.gpu) >= sc.devices.size())
      in.fail(f["gpu"],
              "gpu index out of range (the scenario has " + std::to_string(sc.devices.size()) + " GPUs)");
  } else if (f["gpu"]) {
    in.fail(f["gpu"], type + " affects every GPU; remove gpu");
  }
  if (!f["at"]) in.fail(f, "fault " + type + " needs an 'at' time");
  out.at = in.seconds(f["at"]);
  if (f["duration"]) out.duration = in.seconds_or_forever(f["duration"]);
  if (out.duration <= 0) in.fail(f["duration"], "expected a duration > 0");
  const bool byte_rate = out.kind == FaultKind::kMemoryLeak || out.kind == FaultKind::kProcessOom;
  if (f["rate"]) out.rate = in.rate(f["rate"], byte_rate);
  if (f["code"]) out.code = in.whole(f["code"], "xid code");
  if (f["pid"]) out.pid = in.whole(f["pid"], "pid");
  if (f["limit"]) out.limit_w = in.watts(f["limit"]);
  if (f["brake"]) out.brake = in.flag(f["brake"]);
  if (f["width"]) out.width = in.whole(f["width"], "link width");
  if (f["gen"]) out.gen = in.whole(f["gen"], "link generation");
  if (f["correctable"]) out.correctable = in.whole(f["correctable"], "correctable");
  if (f["uncorrectable"]) out.uncorrectable = in.whole(f["uncorrectable"], "uncorrectable");
  if (f["pending"]) out.pending = in.flag(f["pending"]);
  if (f["failure"]) out.failure = in.flag(f["failure"]);
  if (f["count"]) out.count = in.whole(f["count"], "count");
  if (f["new_driver_version"]) {
    if (out.kind != FaultKind::kDriverReload && out.kind != FaultKind::kDriverUnload)
      in.fail(f["new_driver_version"], "new_driver_version belongs to driver_reload or driver_unload");
    out.new_driver_version = in.text(f["new_driver_version"], "a driver version like 550.90.07");
  }
  if (f["instances"]) {
    if (out.kind != FaultKind::kMigReconfigure)
      in.fail(f["instances"], "instances belongs to mig_reconfigure");
    out.instances =
        read_mig_instances(in, f["instances"], *sc.devices[static_cast<std::size_t>(out.gpu)].model);
  }

  switch (out.kind) {
    case FaultKind::kXid:
      if (!f["code"]) in.fail(f, "an xid fault needs a code");
      break;
    case FaultKind::kMemoryLeak:
    case FaultKind::kProcessOom: {
      if (!f["pid"]) in.fail(f, "fault " + type + " needs the pid of a process on that gpu");
      bool found = false;
      for (const auto& p : sc.processes)
        found = found || (p.pid == out.pid && static_cast<int>(p.gpu) == out.gpu);
      if (!found)
        in.fail(f["pid"],
                "no process with pid " + std::to_string(out.pid) + " on gpu " + std::to_string(out.gpu));
      if (!f["rate"])
        out.rate = out.kind == FaultKind::kProcessOom ? 1024.0 * 1024 * 1024 : 64.0 * 1024 * 1024;
      break;
    }
    case FaultKind::kEccSbe:
    case FaultKind::kPcieReplays:
      if (!f["rate"]) in.fail(f, "fault " + type + " needs a rate like 5/s or 10/m");
      break;
    case FaultKind::kPowerCap:
      if (!f["limit"] && !out.brake) in.fail(f, "power_cap needs a limit (like 350W) or brake: true");
      break;
    case FaultKind::kMigReconfigure:
      check_mig_reconfigure(in, f, out, sc);
      break;
    case FaultKind::kLinkDowntrain:
      if (!f["width"] && !f["gen"]) in.fail(f, "link_downtrain needs a width and/or a gen");
      break;
    default:
      break;
  }
  return out;
}

}  // namespace

std::vector<Fault> read_faults(const YamlReader& in, const YAML::Node& node, const Scenario& sc) {
  in.expect_list(node, "faults");
  std::vector<Fault> out;
  for (const auto& f : node) out.push_back(read_fault(in, f, sc));
  return out;
}

}  // namespace gpuwatch::sim
