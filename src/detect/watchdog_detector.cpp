// A condition that always holds, so a receiver can page when it stops arriving (the agent or its node is
// gone): Alertmanager's "dead man's switch".
//   Watchdog  ticket  always
#include "detect/detector_table.h"

namespace gpuwatch::detect {
namespace {

class WatchdogDetector final : public Detector {
 public:
  void evaluate(const DetectionInput& in, std::vector<Condition>& out) override {
    out.push_back({"Watchdog",
                   Severity::kTicket,
                   {},
                   "gpuwatch is evaluating its detectors",
                   "always firing while gpuwatch runs; " + std::to_string(in.snapshot.devices.size()) +
                       " device(s) watched",
                   "none; route it to a dead man's switch that pages when it stops arriving",
                   {}});
  }
};

}  // namespace

DetectorInfo watchdog_detector() {
  return detector_row<WatchdogDetector>("watchdog", "Watchdog");
}

}  // namespace gpuwatch::detect
