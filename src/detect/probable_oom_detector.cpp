// A process that disappears from a GPU whose memory was nearly full at its last sample has probably died of
// an out-of-memory error. NVML does not say how a process ended, so this says "probable"; an exit while the
// GPU had room is a normal exit and says nothing.
//   GpuProcessProbableOom  ticket  held for `hold` after the exit
#include <fmt/format.h>

#include <deque>

#include "detect/detector_table.h"
#include "detect/device_facts.h"

namespace gpuwatch::detect {
namespace {

// Its settings, each an option detect.probable_oom.<name> (docs/configuration.md).
struct ProbableOomSettings {
  double full_ratio = 0.95;
  milliseconds hold = 15min;
};

constexpr Tunables<ProbableOomSettings, 2> kProbableOomTunables = {
    "probable_oom",
    {{
        {"full_ratio", &ProbableOomSettings::full_ratio, TunableUnit::kFraction,
         "GPU memory used / total at an exited process's last sample that makes its exit a probable OOM", 0,
         1},
        {"hold", &ProbableOomSettings::hold, TunableUnit::kDuration,
         "How long the alert holds after the exit", 1000},
    }}};

constexpr double kGiB = 1024.0 * 1024 * 1024;

struct LastSeen {
  std::map<unsigned, ProcessSample> processes;
  double used = 0, total = 0;
  bool valid = false;
};

struct Exit {
  std::int64_t t_ms;
  Labels labels;
  std::string summary, description;
};

class ProbableOomDetector final : public Detector {
 public:
  explicit ProbableOomDetector(ProbableOomSettings s) : s_(s) {}

  void evaluate(const DetectionInput& in, std::vector<Condition>& out) override {
    const auto now = in.snapshot.timestamp_ms;
    for (const auto& d : in.snapshot.devices) {
      auto& last = last_[d.identity.uuid];
      if (d.state != DeviceState::kOk) {
        last.valid = false;  // a lost or hung GPU loses its processes for another reason
        continue;
      }
      LastSeen now_seen;
      for (const auto& p : d.processes) now_seen.processes[p.pid] = p;
      now_seen.used = value_or(d, Metric::kMemoryUsed, 0);
      now_seen.total = value_or(d, Metric::kMemoryTotal, 0);
      now_seen.valid = now_seen.total > 0;
      if (last.valid && last.used >= s_.full_ratio * last.total) {
        for (const auto& [pid, p] : last.processes) {
          if (now_seen.processes.contains(pid)) continue;
          Labels labels = device_labels(d);
          labels["pid"] = std::to_string(pid);
          if (!p.name.empty()) labels["process"] = p.name;
          exits_.push_back(
              {now, std::move(labels),
               fmt::format("pid {} ({}) on {} probably ran out of GPU memory", pid, p.name, gpu_name(d)),
               fmt::format(
                   "the process left while {} was {:.1f}% full ({:.1f} of {:.1f} GiB; the process held "
                   "{:.1f} GiB); NVML does not say how a process ended, so this is probable, not certain",
                   gpu_name(d), 100 * last.used / last.total, last.used / kGiB, last.total / kGiB,
                   p.used_memory_bytes.value_or(0) / kGiB)});
        }
      }
      last = std::move(now_seen);
    }
    while (!exits_.empty() && exits_.front().t_ms < now - s_.hold.count()) exits_.pop_front();
    for (const auto& e : exits_)
      out.push_back(
          {"GpuProcessProbableOom",
           Severity::kTicket,
           e.labels,
           e.summary,
           e.description,
           "check the job's log for CUDA out-of-memory errors; lower its batch size or memory fraction, or "
           "give it a GPU of its own",
           {}});
  }

 private:
  ProbableOomSettings s_;
  std::map<std::string, LastSeen> last_;  // by GPU uuid
  std::deque<Exit> exits_;
};

}  // namespace

DetectorInfo probable_oom_detector() {
  return detector_row<ProbableOomDetector, kProbableOomTunables>("GpuProcessProbableOom");
}

}  // namespace gpuwatch::detect
