// The GPU's PCIe link.
//   GpuPcieReplayRate           ticket  replays per minute above what a 1e-12 bit error rate allows for the
//                                       link's generation and width (DCGM's budget), over replay_window
//   GpuPcieLinkDegraded         ticket  link generation or width below its maximum while the GPU is busy
//                                       (idle GPUs lower their generation to save power), for downtrain_for
//   GpuPcieUncorrectableError   page    an uncorrectable AER error (kernel log, or the sysfs nonfatal/fatal
//                                       counters rising), held for uncorrectable_hold
#include <fmt/format.h>

#include <array>

#include "detect/detector_table.h"
#include "detect/device_facts.h"
#include "detect/device_window.h"

namespace gpuwatch::detect {
namespace {

using rules::PcieSettings;  // the rule book's (src/rules/pcie_settings.h): health judges by it too

// Replays per lane per minute that a 1e-12 bit error rate implies, by PCIe generation (index = gen).
constexpr std::array<double, 7> kReplaysPerLanePerMinute = {0, 0.15, 0.3, 0.48, 0.96, 1.92, 3.84};

double replay_budget_per_minute(unsigned gen, unsigned width) {
  const unsigned g = std::min<unsigned>(gen, kReplaysPerLanePerMinute.size() - 1);
  return kReplaysPerLanePerMinute[g] * width;
}

struct LinkState {
  ValueWindow replays;
  std::optional<kernel::AerCounters> aer_first;  // sysfs totals when first seen
  std::uint64_t aer_uncorrectable_seen = 0;
  std::int64_t last_uncorrectable_ms = INT64_MIN;
  std::string last_uncorrectable_source;
};

class PcieDetector final : public Detector {
 public:
  explicit PcieDetector(PcieSettings s) : s_(s) {}

  void evaluate(const DetectionInput& in, std::vector<Condition>& out) override {
    const auto now = in.snapshot.timestamp_ms;
    for (const auto& ev : in.kernel_events) {
      if (ev.kind != kernel::KernelEventKind::kAerUncorrected) continue;
      if (const DeviceSnapshot* d = device_at_bus(in.snapshot, ev.pci_bus_id)) {
        auto& st = links_[d->identity.uuid];
        st.last_uncorrectable_ms = now;
        st.last_uncorrectable_source = "kernel log: " + ev.message;
      }
    }
    for (const auto& d : in.snapshot.devices) {
      if (d.identity.is_mig_instance) continue;
      auto& st = links_[d.identity.uuid];
      check_aer_counters(in, d, st, now);
      if (st.last_uncorrectable_ms >= now - s_.uncorrectable_hold.count()) {
        out.push_back(
            {"GpuPcieUncorrectableError",
             Severity::kPage,
             device_labels(d),
             fmt::format("uncorrectable PCIe error on {}", gpu_name(d)),
             fmt::format("{} ({}): {}", gpu_name(d), d.identity.pci_bus_id, st.last_uncorrectable_source),
             "drain the GPU; check the kernel log for XID 79 and the slot, riser and cables; reseat or "
             "replace",
             {}});
      }
      if (d.state != DeviceState::kOk) continue;
      check_replays(d, st, now, out);
      check_link(d, out);
    }
  }

 private:
  void check_aer_counters(const DetectionInput& in, const DeviceSnapshot& d, LinkState& st,
                          std::int64_t now) {
    auto it = in.aer.find(d.identity.pci_bus_id);
    if (it == in.aer.end()) return;
    if (!st.aer_first) st.aer_first = it->second;
    const std::uint64_t uncorrectable = it->second.nonfatal + it->second.fatal;
    const std::uint64_t base = st.aer_first->nonfatal + st.aer_first->fatal;
    if (uncorrectable > base + st.aer_uncorrectable_seen) {
      st.aer_uncorrectable_seen = uncorrectable - base;
      st.last_uncorrectable_ms = now;
      st.last_uncorrectable_source =
          fmt::format("sysfs AER counters: {} non-fatal, {} fatal since the agent started",
                      it->second.nonfatal - st.aer_first->nonfatal, it->second.fatal - st.aer_first->fatal);
    }
  }

  void check_replays(const DeviceSnapshot& d, LinkState& st, std::int64_t now,
                     std::vector<Condition>& out) const {
    const Sample* replays = d.find(Metric::kPcieReplays);
    if (!replays) return;
    st.replays.add(now, replays->value, s_.replay_window.count());
    if (st.replays.span_ms() < 60000) return;  // a rate needs a minute of history
    const double minutes = static_cast<double>(st.replays.span_ms()) / 60000.0;
    const double per_minute = st.replays.increase() / minutes;
    double gen = value_or(d, Metric::kPcieLinkGeneration, 0), width = value_or(d, Metric::kPcieLinkWidth, 0);
    if (gen <= 0) gen = value_or(d, Metric::kPcieLinkMaxGeneration, 0);
    if (width <= 0) width = value_or(d, Metric::kPcieLinkMaxWidth, 16);
    const double budget = replay_budget_per_minute(static_cast<unsigned>(gen), static_cast<unsigned>(width));
    if (budget <= 0 || per_minute <= budget) return;
    out.push_back(
        {"GpuPcieReplayRate",
         Severity::kTicket,
         device_labels(d),
         fmt::format("PCIe replays on {} above the bit-error budget", gpu_name(d)),
         fmt::format(
             "{:.1f} replays/min over the last {:.1f} min; budget for gen {:.0f} x{:.0f} is {:.2f}/min",
             per_minute, minutes, gen, width, budget),
         "check the slot, riser and cables; watch for a link downtrain or XID 79; reseat at the next "
         "maintenance",
         {}});
  }

  void check_link(const DeviceSnapshot& d, std::vector<Condition>& out) const {
    const double gen = value_or(d, Metric::kPcieLinkGeneration, 0),
                 max_gen = value_or(d, Metric::kPcieLinkMaxGeneration, 0);
    const double width = value_or(d, Metric::kPcieLinkWidth, 0),
                 max_width = value_or(d, Metric::kPcieLinkMaxWidth, 0);
    const double util = value_or(d, Metric::kUtilization, 0);
    const bool narrow = width > 0 && max_width > 0 && width < max_width;
    const bool slow = gen > 0 && max_gen > 0 && gen < max_gen;
    if (!(narrow || slow) || util < s_.busy_utilization) return;
    Condition c{"GpuPcieLinkDegraded",
                Severity::kTicket,
                device_labels(d),
                fmt::format("PCIe link of {} runs below its maximum", gpu_name(d)),
                fmt::format("link gen {:.0f} x{:.0f}, maximum gen {:.0f} x{:.0f}, while {:.0f}% busy", gen,
                            width, max_gen, max_width, util * 100),
                "reseat the GPU or its riser at the next maintenance; check for PCIe replays and AER errors",
                s_.downtrain_for,
                0};
    out.push_back(std::move(c));
  }

  PcieSettings s_;
  std::map<std::string, LinkState> links_;  // by GPU uuid
};

}  // namespace

DetectorInfo pcie_detector() {
  return detector_row<PcieDetector, rules::kPcieTunables>(
      "GpuPcieReplayRate, GpuPcieLinkDegraded, GpuPcieUncorrectableError");
}

}  // namespace gpuwatch::detect
