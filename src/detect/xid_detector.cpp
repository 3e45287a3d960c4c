// XIDs, per code, from NVML's XID events (counted in the snapshot) and the kernel log's NVRM: Xid lines
// (which add the pid and process name, and XIDs from before the agent started). The two sources see the same
// XIDs: per GPU and code, the occurrences are the larger of the two running totals, so an XID is never
// counted twice when one source lags the other.
//   GpuXidCritical     page    a code whose recovery is a GPU reset or more (48, 74, 79, 95, 119, 120, 140,
//   ...) GpuXidHardware     ticket  hardware trouble that can wait (32, 54, 63, 92, 94, 121, unknown codes)
//   GpuXidApplication  ticket  an application fault (8, 13, 31, 137), or 43/45 repeating
//   GpuXidRepeating    page    an application fault repeating repeat_count times within repeat_window
// Each holds for `hold` after the last occurrence.
#include <fmt/format.h>

#include <algorithm>
#include <deque>

#include "detect/detector_table.h"
#include "detect/device_facts.h"
#include "rules/xid_catalogue.h"

namespace gpuwatch::detect {
namespace {

using rules::xid_info_or_generic;
using rules::XidClass;
using rules::XidInfo;

// Its settings, each an option detect.xid.<name> (docs/configuration.md).
struct XidSettings {
  milliseconds hold = 1h;
  unsigned repeat_count = 3;
  milliseconds repeat_window = 10min;
};

constexpr Tunables<XidSettings, 3> kXidTunables = {
    "xid",
    {{
        {"hold", &XidSettings::hold, TunableUnit::kDuration,
         "An XID alert holds this long after the XID (like increase(...[1h]) > 0)", 1000},
        {"repeat_count", &XidSettings::repeat_count, TunableUnit::kCount,
         "Application XIDs this often within repeat_window escalate to a page", 2},
        {"repeat_window", &XidSettings::repeat_window, TunableUnit::kDuration,
         "The window repeat_count is counted over", 1000},
    }}};

struct Occurrence {
  std::int64_t t_ms = 0;
  std::optional<unsigned> pid;
  std::string process;
  bool before_start = false;
};

struct CodeState {
  std::uint64_t nvml_total = 0;
  std::uint64_t kernel_total = 0;
  std::uint64_t counted = 0;
  std::optional<unsigned> last_pid;  // from the kernel log, not yet attached to an occurrence
  std::string last_process;
  bool last_before_start = false;
  std::deque<Occurrence> seen;
};

class XidDetector final : public Detector {
 public:
  explicit XidDetector(XidSettings s) : s_(s) {}

  void evaluate(const DetectionInput& in, std::vector<Condition>& out) override {
    const auto now = in.snapshot.timestamp_ms;
    for (const auto& d : in.snapshot.devices)
      for (const auto& [code, count] : d.xid_counts) codes_[d.identity.uuid][code].nvml_total = count;
    for (const auto& ev : in.kernel_events) {
      if (ev.kind != kernel::KernelEventKind::kXid) continue;
      const DeviceSnapshot* d = device_at_bus(in.snapshot, ev.pci_bus_id);
      if (!d) continue;
      auto& st = codes_[d->identity.uuid][ev.xid];
      ++st.kernel_total;
      st.last_pid = ev.pid;
      st.last_process = ev.process;
      st.last_before_start = ev.before_start;
    }
    const auto keep = std::max(s_.hold, s_.repeat_window).count();
    for (auto& [uuid, codes] : codes_) {
      for (auto& [code, st] : codes) {
        const std::uint64_t total = std::max(st.nvml_total, st.kernel_total);
        for (; st.counted < total; ++st.counted)
          st.seen.push_back({now, st.last_pid, st.last_process, st.last_before_start});
        while (!st.seen.empty() && st.seen.front().t_ms < now - keep) st.seen.pop_front();
      }
    }
    for (const auto& d : in.snapshot.devices) {
      auto it = codes_.find(d.identity.uuid);
      if (it == codes_.end()) continue;
      for (const auto& [code, st] : it->second) report(d, code, st, now, out);
    }
  }

 private:
  void report(const DeviceSnapshot& d, unsigned code, const CodeState& st, std::int64_t now,
              std::vector<Condition>& out) const {
    std::size_t in_hold = 0, in_repeat = 0;
    std::int64_t last_in_hold_ms = 0;
    for (const auto& o : st.seen) {
      if (o.t_ms >= now - s_.hold.count()) {
        ++in_hold;
        last_in_hold_ms = std::max(last_in_hold_ms, o.t_ms);
      }
      if (o.t_ms >= now - s_.repeat_window.count()) ++in_repeat;
    }
    if (in_hold == 0) return;
    const XidInfo info = xid_info_or_generic(code);
    const bool repeating = in_repeat >= s_.repeat_count;
    Condition c;
    c.labels = device_labels(d);
    c.labels["xid"] = std::to_string(code);
    switch (info.cls) {
      case XidClass::kCritical:
        c.alertname = "GpuXidCritical";
        c.severity = Severity::kPage;
        break;
      case XidClass::kHardware:
        c.alertname = "GpuXidHardware";
        c.severity = Severity::kTicket;
        break;
      case XidClass::kApplication:
        c.alertname = repeating ? "GpuXidRepeating" : "GpuXidApplication";
        c.severity = repeating ? Severity::kPage : Severity::kTicket;
        break;
      case XidClass::kInformational:
        if (!repeating) return;  // a Ctrl-C or a clean-up once is nothing to act on
        c.alertname = "GpuXidApplication";
        c.severity = Severity::kTicket;
        break;
    }
    const Occurrence& last = st.seen.back();
    if (last.pid && (info.cls == XidClass::kApplication || info.cls == XidClass::kInformational)) {
      // Application faults are the process's own: one alert per process.
      c.labels["pid"] = std::to_string(*last.pid);
      if (!last.process.empty()) c.labels["process"] = last.process;
    }
    c.summary = fmt::format("XID {} on {}: {}", code, gpu_name(d), info.meaning);
    std::string who;
    if (last.pid)
      who =
          fmt::format(", last by pid {}{}", *last.pid, last.process.empty() ? "" : " (" + last.process + ")");
    c.description = fmt::format(
        "XID {} ({}) on {} ({}): {} time(s) in the last {} min, {} in the last {} min{}{}", code,
        info.meaning, gpu_name(d), d.identity.pci_bus_id, in_hold, s_.hold.count() / 60000, in_repeat,
        s_.repeat_window.count() / 60000, who, last.before_start ? "; logged before gpuwatch started" : "");
    c.action = std::string(info.action);
    // The alert outlives this detector's memory (an agent restart): it holds `hold` after the last XID.
    c.holds_until_ms = last_in_hold_ms + s_.hold.count();
    out.push_back(std::move(c));
  }

  XidSettings s_;
  std::map<std::string, std::map<unsigned, CodeState>> codes_;  // by GPU uuid, then XID code
};

}  // namespace

DetectorInfo xid_detector() {
  return detector_row<XidDetector, kXidTunables>(
      "GpuXidCritical, GpuXidHardware, GpuXidApplication, GpuXidRepeating");
}

}  // namespace gpuwatch::detect
