// dcgm-exporter's names over gpuwatch's native history, so dashboards written for dcgm-exporter work with
// the agent as their data source whatever naming /metrics uses. A selector whose name matchers admit a
// DCGM_FI_* field of the dcgm table (by name, by regex, or with no name matcher at all) gets that field's
// series too, made at selection time from the native series the table maps it to, as /metrics?naming=dcgm
// renders them: the value scaled (and rounded) as the field says; the labels of dcgm-exporter (gpu, UUID,
// pci_bus_id, device, modelName, the hostname label, GPU_I_ID, DCGM_FI_DRIVER_VERSION) from the device's
// gpu_info and the node's gpu_driver_info at the time of each point, so a driver upgrade within the range
// starts a new series as it would in a Prometheus that scraped the dcgm naming. Native series pass through
// unchanged. DCGM_FI_DEV_XID_ERRORS (the code of the last XID) is not answered: the history keeps how often
// each code came (gpu_xid_errors_total{xid}), not which came last.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>

#include "core/series.h"
#include "core/step_sampled_source.h"

namespace gpuwatch::query {

struct DcgmViewOptions {
  std::string hostname_label = "Hostname";  // the agent's dcgm_hostname_label
  // The node's hostname, as the snapshot reports it and /metrics?naming=dcgm labels it; "" or unset: none.
  std::function<std::string()> hostname;
};

class DcgmSeriesSource final : public store::SeriesSource, public StepSampledSource {
 public:
  DcgmSeriesSource(std::shared_ptr<const store::SeriesSource> native, DcgmViewOptions options);

  std::vector<store::SeriesPoints> select(std::span<const store::LabelMatcher> matchers, std::int64_t min_t,
                                          std::int64_t max_t) const override;
  std::vector<store::Labels> series(std::span<const store::LabelMatcher> matchers, std::int64_t min_t,
                                    std::int64_t max_t) const override;
  void for_each_series(
      std::span<const store::LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
      const std::function<void(const store::Labels&, std::span<const store::Point>)>& fn) const override;
  void for_each_series_checked(
      std::span<const store::LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
      const std::function<void(const store::Labels&, std::span<const store::Point>)>& fn,
      const Checkpoint& checkpoint) const override;
  void for_each_series_at(std::span<const store::LabelMatcher> matchers, std::int64_t min_t,
                          std::int64_t max_t, const EvalTimes& times,
                          const std::function<void(const store::Labels&, std::span<const store::Point>)>& fn,
                          const Checkpoint& checkpoint) const override;

 private:
  // The dcgm-exporter series made from the native ones that the matchers select.
  void for_each_dcgm_series(
      std::span<const store::LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
      const std::function<void(const store::Labels&, std::span<const store::Point>)>& fn,
      const Checkpoint& checkpoint) const;
  std::string hostname() const;

  std::shared_ptr<const store::SeriesSource> native_;
  DcgmViewOptions options_;
};

}  // namespace gpuwatch::query
