// GPU memory errors and memory repair (row remapping on Ampere and later, page retirement before).
//   GpuEccUncorrectable       page    any volatile uncorrectable (double-bit) error since the driver loaded
//   GpuRowRemapFailed         page    a row remap failed: the GPU needs service
//   GpuEccCorrectedStorm      ticket  corrected errors >= corrected_storm_count within storm_window
//   GpuMemoryRepairPending    ticket  a row remap or page retirement waits for the next GPU reset
//   GpuMemoryRepairExhausted  ticket  retired pages >= retired_pages_limit, or uncorrectable remapped rows
//                                     >= uncorrectable_remapped_rows_limit
// A trickle of corrected errors is normal for HBM and never alerts.
#include <fmt/format.h>

#include "detect/detector_table.h"
#include "detect/device_facts.h"
#include "detect/device_window.h"

namespace gpuwatch::detect {
namespace {

using rules::EccSettings;  // the rule book's (src/rules/ecc_settings.h): health judges by it too

class EccDetector final : public Detector {
 public:
  explicit EccDetector(EccSettings s) : s_(s) {}

  void evaluate(const DetectionInput& in, std::vector<Condition>& out) override {
    const auto now = in.snapshot.timestamp_ms;
    for (const auto& d : in.snapshot.devices) {
      if (d.state != DeviceState::kOk || d.identity.is_mig_instance) continue;
      auto emit = [&](const char* name, Severity sev, std::string summary, std::string description,
                      const char* action) {
        out.push_back({name, sev, device_labels(d), std::move(summary), std::move(description), action, {}});
      };
      const double dbe = value_or(d, Metric::kEccErrors, 0, "uncorrected", "volatile");
      const double dbe_life = value_or(d, Metric::kEccErrors, 0, "uncorrected", "aggregate");
      if (dbe > 0)
        emit("GpuEccUncorrectable", Severity::kPage,
             fmt::format("uncorrectable ECC error on {}", gpu_name(d)),
             fmt::format(
                 "{:.0f} uncorrectable (double-bit) ECC error(s) since the driver loaded, {:.0f} over the "
                 "GPU's life; the application that touched the memory has likely failed",
                 dbe, dbe_life),
             "drain the GPU and reset it (applies the pending row remap); run field diagnostics; RMA if it "
             "repeats");
      if (value_or(d, Metric::kRemappedRowsFailure, 0) > 0)
        emit("GpuRowRemapFailed", Severity::kPage, fmt::format("row remapping failed on {}", gpu_name(d)),
             fmt::format(
                 "the GPU could not remap a failing memory row; {:.0f} rows remapped for uncorrectable "
                 "errors",
                 value_or(d, Metric::kRemappedRows, 0, "uncorrectable")),
             "drain the GPU and take it out of service; contact support (RMA)");

      auto& window = corrected_[d.identity.uuid];
      if (const Sample* s = d.find(Metric::kEccErrors, "corrected", "volatile"))
        window.add(now, s->value, s_.storm_window.count());
      const double storm = window.increase();
      if (storm >= s_.corrected_storm_count)
        emit("GpuEccCorrectedStorm", Severity::kTicket,
             fmt::format("corrected ECC error storm on {}", gpu_name(d)),
             fmt::format("{:.0f} corrected ECC errors in the last {:.0f} min (threshold {})", storm,
                         static_cast<double>(window.span_ms()) / 60000.0, s_.corrected_storm_count),
             "watch for uncorrectable errors and pending remaps; schedule a GPU reset and diagnostics");

      const bool remap_pending = value_or(d, Metric::kRemappedRowsPending, 0) > 0;
      const bool retire_pending = value_or(d, Metric::kRetiredPagesPending, 0) > 0;
      if (remap_pending || retire_pending)
        emit("GpuMemoryRepairPending", Severity::kTicket,
             fmt::format("{} waits for a reset to repair its memory", gpu_name(d)),
             remap_pending ? "a row remap is pending; it takes effect at the next GPU reset"
                           : "a page retirement is pending; it takes effect at the next GPU reset",
             "drain the GPU and reset it when convenient");

      double retired = 0;
      for (const auto& s : d.samples)
        if (s.metric == Metric::kRetiredPages) retired += s.value;
      const double unc_rows = value_or(d, Metric::kRemappedRows, 0, "uncorrectable");
      if (retired >= s_.retired_pages_limit || unc_rows >= s_.uncorrectable_remapped_rows_limit)
        emit("GpuMemoryRepairExhausted", Severity::kTicket,
             fmt::format("{} has used up its memory repair budget", gpu_name(d)),
             fmt::format(
                 "{:.0f} retired pages (limit {}), {:.0f} rows remapped for uncorrectable errors (limit {})",
                 retired, s_.retired_pages_limit, unc_rows, s_.uncorrectable_remapped_rows_limit),
             "plan the GPU's replacement (RMA); run field diagnostics");
    }
  }

 private:
  EccSettings s_;
  std::map<std::string, ValueWindow> corrected_;  // by GPU uuid
};

}  // namespace

DetectorInfo ecc_detector() {
  return detector_row<EccDetector, rules::kEccTunables>(
      "GpuEccUncorrectable, GpuRowRemapFailed, GpuEccCorrectedStorm, GpuMemoryRepairPending, "
      "GpuMemoryRepairExhausted");
}

}  // namespace gpuwatch::detect
