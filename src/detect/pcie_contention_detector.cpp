// Shared PCIe contention: two GPUs or more below one PCIe switch uplink (read from sysfs, --sysfs-root)
// together move as much as the uplink carries in one direction, so each gets less than its own link could
// give it. The uplink is full when the GPUs' summed mean throughput over the newest `measure` reaches
// at_capacity of what it carries (its encoded rate: packet headers keep real transfers 10-20% under that),
// and it is contention when at least min_gpus of them each move min_share of it: one GPU filling the uplink
// alone has a busy link, not a contest. When the uplink fills, each GPU's normal is frozen (its mean over
// `baseline` before), so the description can say who arrived and whose transfers slowed. Throughput alone
// decides; NVML's 20 ms throughput samples are noisy, hence the means.
//   GpuPcieContention  ticket; labels pcie_link (the bridge below the uplink) and direction
//
// Without sysfs there are no shared links and this detector stays silent: NVML knows each GPU's own link
// only, and a flat-topped total over several GPUs looks the same as several jobs that each read at a
// steady rate.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <map>

#include "core/pcie_link.h"
#include "detect/detector_table.h"
#include "detect/device_facts.h"
#include "detect/device_window.h"

namespace gpuwatch::detect {
namespace {

// Its settings, each an option detect.pcie_contention.<name> (docs/configuration.md).
struct PcieContentionSettings {
  double at_capacity = 0.8;
  double min_share = 0.15;
  unsigned min_gpus = 2;
  milliseconds measure = 1min;
  milliseconds baseline = 3min;
  double min_drop = 0.2;
  milliseconds for_duration = 3min;
};

constexpr Tunables<PcieContentionSettings, 7> kPcieContentionTunables = {
    "pcie_contention",
    {{
        {"at_capacity", &PcieContentionSettings::at_capacity, TunableUnit::kFraction,
         "An uplink is full when its GPUs together move this fraction of what it carries (headers keep real "
         "transfers 10-20% under it)",
         0, 1},
        {"min_share", &PcieContentionSettings::min_share, TunableUnit::kFraction,
         "A GPU takes part when it moves this fraction of the uplink or more", 0, 1},
        {"min_gpus", &PcieContentionSettings::min_gpus, TunableUnit::kCount,
         "GPUs taking part needed: one GPU filling the uplink is not a contest", 1},
        {"measure", &PcieContentionSettings::measure, TunableUnit::kDuration,
         "Throughput is the mean over the newest this much", 1000},
        {"baseline", &PcieContentionSettings::baseline, TunableUnit::kDuration,
         "Each GPU's normal: its mean over this window before the uplink filled", 10000},
        {"min_drop", &PcieContentionSettings::min_drop, TunableUnit::kFraction,
         "A GPU whose mean fell by this fraction is named as slowed", 0, 1},
        {"for_duration", &PcieContentionSettings::for_duration, TunableUnit::kDuration,
         "How long it must last before it alerts", 0},
    }}};

struct Direction {
  Metric metric;
  const char* label;  // the alert's direction label
  const char* words;  // in a sentence
};
constexpr Direction kDirections[] = {
    {Metric::kPcieRx, "host_to_device", "host to device"},
    {Metric::kPcieTx, "device_to_host", "device to host"},
};

struct GpuTraffic {
  unsigned index = 0;
  std::array<ValueWindow, 2> bytes_per_second;  // by kDirections
};

std::string gbps(double bytes_per_second) {
  return fmt::format("{:.1f} GB/s", bytes_per_second / 1e9);
}

std::string link_text(const kernel::PcieLinkState& s) {
  const unsigned gen = pcie_generation(s.gt_per_s);
  return gen ? fmt::format("Gen{} x{}", gen, s.width) : fmt::format("{} GT/s x{}", s.gt_per_s, s.width);
}

// The uplink filled in one direction: since when, and each GPU's mean before (by bus id).
struct Episode {
  std::int64_t since_ms = 0;
  std::map<std::string, WindowMean> normals;
};

class PcieContentionDetector final : public Detector {
 public:
  explicit PcieContentionDetector(PcieContentionSettings s) : s_(s) {}

  void evaluate(const DetectionInput& in, std::vector<Condition>& out) override {
    const std::int64_t now = in.snapshot.timestamp_ms;
    const std::int64_t span = s_.baseline.count() + s_.measure.count();
    std::map<std::string, GpuTraffic> seen;
    for (const auto& d : in.snapshot.devices) {
      if (d.identity.is_mig_instance || d.state != DeviceState::kOk || d.identity.pci_bus_id.empty())
        continue;
      auto& g = seen[d.identity.pci_bus_id];
      g = std::move(gpus_[d.identity.pci_bus_id]);
      g.index = d.identity.index;
      for (std::size_t i = 0; i < std::size(kDirections); ++i)
        if (const Sample* v = d.find(kDirections[i].metric)) g.bytes_per_second[i].add(now, v->value, span);
    }
    gpus_ = std::move(seen);  // GPUs that left or cannot be read are forgotten

    std::map<std::string, Episode> open;
    for (const auto& link : in.shared_pcie_links) {
      const double capacity = link.capacity_bytes_per_second();
      if (capacity <= 0) continue;
      for (std::size_t dir = 0; dir < std::size(kDirections); ++dir) {
        const std::string key = link.device + "/" + kDirections[dir].label;
        double total = 0;
        unsigned movers = 0;
        std::map<std::string, double> now_means;  // by bus id
        for (const auto& bus : link.gpus) {
          const auto it = gpus_.find(bus);
          if (it == gpus_.end()) continue;
          const WindowMean m = it->second.bytes_per_second[dir].mean(
              now - s_.measure.count() + 1);  // the newest minute, not one sample more
          if (m.count == 0) continue;
          now_means[bus] = m.value;
          total += m.value;
          if (m.value >= s_.min_share * capacity) ++movers;
        }
        if (total < s_.at_capacity * capacity || movers < s_.min_gpus) continue;
        auto previous = episodes_.find(key);
        Episode e = previous != episodes_.end() ? std::move(previous->second) : start(link, dir, now);
        out.push_back(condition(link, kDirections[dir], capacity, total, now_means, e, now));
        open[key] = std::move(e);
      }
    }
    episodes_ = std::move(open);  // an uplink no longer full ends its episode
  }

 private:
  Episode start(const kernel::SharedPcieLink& link, std::size_t dir, std::int64_t now) const {
    Episode e{now, {}};
    // The newest `measure` already holds the arrival: the normal is the `baseline` before it.
    const std::int64_t until = now - s_.measure.count() + 1;
    for (const auto& bus : link.gpus) {
      const auto it = gpus_.find(bus);
      if (it == gpus_.end()) continue;
      const WindowMean m = it->second.bytes_per_second[dir].mean(until - s_.baseline.count(), until);
      if (m.count) e.normals[bus] = m;
    }
    return e;
  }

  Condition condition(const kernel::SharedPcieLink& link, const Direction& dir, double capacity, double total,
                      const std::map<std::string, double>& now_means, const Episode& e,
                      std::int64_t now) const {
    std::vector<unsigned> indices;
    std::vector<std::string> details;
    for (const auto& [bus, value] : now_means) {
      const unsigned index = gpus_.at(bus).index;
      if (value >= s_.min_share * capacity) indices.push_back(index);  // the summary names those taking part
      const auto normal = e.normals.find(bus);
      if (normal == e.normals.end()) {
        details.push_back(fmt::format("GPU {}: {}", index, gbps(value)));
        continue;
      }
      const double before = normal->second.value;
      std::string change;
      if (value - before >= s_.min_share * capacity)
        change = " (arrived: it rose as the uplink filled)";
      else if (before > 0 && value <= (1 - s_.min_drop) * before)
        change = fmt::format(" (slowed by {:.0f}%)", (1 - value / before) * 100);
      details.push_back(fmt::format("GPU {}: {} -> {}{}", index, gbps(before), gbps(value), change));
    }
    std::sort(indices.begin(), indices.end());
    std::string trained;
    if (link.max.gt_per_s > 0 && link.max.width > 0 &&
        (link.current.gt_per_s < link.max.gt_per_s || link.current.width < link.max.width))
      trained = fmt::format("; the uplink runs at {}, below its {} maximum", link_text(link.current),
                            link_text(link.max));
    return {"GpuPcieContention",
            Severity::kTicket,
            {{"pcie_link", link.device}, {"direction", dir.label}},
            fmt::format("GPUs {} share the full PCIe uplink of switch port {}: {} of {} {}",
                        fmt::join(indices, ", "), link.device, gbps(total), gbps(capacity), dir.words),
            fmt::format(
                "the {} uplink from {} to {} has carried {:.0f}% of its {} {} for {:.0f} s (mean over the "
                "newest {:.0f} s); against each GPU's mean over the {:.0f} min before it filled: {}{}",
                link_text(link.current), link.upstream, link.device, total / capacity * 100, gbps(capacity),
                dir.words, static_cast<double>(now - e.since_ms) / 1000.0, s_.measure.count() / 1000.0,
                s_.baseline.count() / 60000.0, fmt::join(details, "; "), trained),
            "spread the data-heavy jobs over GPUs below different switches (nvidia-smi topo -m shows which "
            "share one); stage input in GPU memory, use pinned host memory, or overlap copies with compute; "
            "check that the uplink trains at its maximum",
            s_.for_duration};
  }

  PcieContentionSettings s_;
  std::map<std::string, GpuTraffic> gpus_;   // by bus id
  std::map<std::string, Episode> episodes_;  // by link and direction, while the uplink is full
};

}  // namespace

DetectorInfo pcie_contention_detector() {
  return detector_row<PcieContentionDetector, kPcieContentionTunables>("GpuPcieContention");
}

}  // namespace gpuwatch::detect
