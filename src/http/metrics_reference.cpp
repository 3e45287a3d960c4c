#include "http/metrics_reference.h"

#include <cmath>
#include <string_view>

#include "core/metric_catalogue.h"
#include "exposition/dcgm_metrics.h"
#include "exposition/native_metrics.h"
#include "http/json_api.h"

namespace gpuwatch {
namespace {

std::string_view scope_labels(MetricScope scope) {
  switch (scope) {
    case MetricScope::kDevice:
      return "gpu, uuid";
    case MetricScope::kProcess:
      return "gpu, uuid, pid, process";
    case MetricScope::kAgent:
      break;
  }
  return "";
}

std::string labels_of(const MetricDef& def) {
  std::string out(scope_labels(def.scope));
  for (auto l : def.labels) {
    if (l.empty()) continue;
    if (!out.empty()) out += ", ";
    out += l;
  }
  return out;
}

std::string scale_text(const DcgmField& f) {
  if (f.source == DcgmSource::kLastXid) return "last XID code seen (`last_xid`), 0 when none";
  std::string out = "`";
  out += metric_def(f.metric).name;
  if (!f.label0.empty()) {
    out += "{";
    out += metric_def(f.metric).labels[0];
    out += "=\"";
    out += f.label0;
    out += "\"}";
  }
  out += "`";
  if (f.also) {
    out += " + `";
    out += metric_def(*f.also).name;
    out += "`";
  }
  if (f.scale != 1) {
    const double inverse = 1 / f.scale;
    if (f.scale >= 1) {
      out += " × " + std::to_string(static_cast<long long>(std::llround(f.scale)));
    } else {
      out += " ÷ " + std::to_string(static_cast<long long>(std::llround(inverse)));
    }
  }
  if (f.integer) out += ", rounded";
  return out;
}

void native_section(std::string& out) {
  out += R"(## Native metrics

Names follow Prometheus conventions: base units (bytes, seconds, watts, celsius, hertz, ratio 0..1) and
counters ending in `_total`. Device metrics carry `gpu` (NVML index) and `uuid`; MIG instances add
`gpu_instance_id` and `compute_instance_id`. A lost GPU exports `gpu_up 0` and nothing else stale; a GPU whose
reads missed the deadline exports `gpu_up 0`, `gpu_stale 1` and its last values. Per-process metrics add, where
known, the workload's `namespace`, `pod` and `container` (the kubelet's allocation of the GPU), `slurm_job` (the
cgroup or the job mapping) and `user` (docs/cost.md); a label that is not known is absent.

| Name | Type | Unit | Labels | Help |
|---|---|---|---|---|
)";
  for (const auto& def : kMetricCatalogue) {
    out += "| `" + std::string(def.name) + "` | " + (def.kind == MetricKind::kCounter ? "counter" : "gauge") +
           " | " + (def.unit.empty() ? "" : std::string(def.unit)) + " | " + labels_of(def) + " | " +
           std::string(def.help) + " |\n";
  }
  out +=
      R"(| `gpu_info` | info (gauge in text 0.0.4) | | gpu, uuid, name, serial, pci_bus_id, vbios_version | GPU identity; always 1 |
| `gpu_driver_info` | info (gauge in text 0.0.4) | | driver_version, nvml_version, cuda_driver_version | driver versions; always 1 |
| `gpuwatch_build_info` | info (gauge in text 0.0.4) | | version | gpuwatch build; always 1 |
| `gpuwatch_source_error_info` | info (gauge in text 0.0.4) | | source, reason, message | why a source could not be read this tick; absent while it works |
| `gpu_pcie_shared_link_info` | info (gauge in text 0.0.4) | | gpu, uuid, pcie_link | each GPU below a PCIe link it shares with other GPUs (sysfs); always 1 |
| `gpu_pcie_shared_link_capacity_bytes_per_second` | gauge | bytes_per_second | pcie_link, upstream | what a shared PCIe link carries each way at its current speed and width |
| `ALERTS` | gauge | | alertname, alertstate, severity, ... | pending and firing alerts, as Prometheus's rule manager exposes them; always 1 |
| `ALERTS_FOR_STATE` | gauge | | alertname, severity, ... | when each pending or firing alert became active, seconds since the epoch |
| `gpuwatch_alerts_sent_total`, `gpuwatch_alerts_delivery_failures_total`, `gpuwatch_alerts_queued` | counter, counter, gauge | | receiver | alert deliveries per receiver |
| `gpuwatch_gpu_state_seconds_total` | counter | seconds | gpu, uuid, gpu_instance_id, model, state | time each GPU or MIG instance spent active, idle_held, unallocated or unavailable (docs/cost.md) |
| `gpuwatch_gpu_cost_total` | counter | | gpu, uuid, gpu_instance_id, model, state | cost of that time: GPU-hours times gpu_hour_price, plus measured energy times energy_price_per_kwh |
| `gpuwatch_workload_gpu_seconds_total` | counter | seconds | namespace, pod, container, slurm_job, user, team, state | GPU time of each workload (pod, job or user), active or idle_held; a shared GPU's time split evenly |
| `gpuwatch_workload_cost_total` | counter | | namespace, pod, container, slurm_job, user, team, state | cost of each workload's GPU time, active or idle_held |
| `gpuwatch_accounting_workloads` | gauge | | | workloads with accounting counters (at most accounting_max_workloads; more are summed as pod "other") |
| `gpuwatch_slo_objective_ratio` | gauge | ratio | slo, service | each SLO's objective, the share of good events it promises over its period (docs/slo.md) |
| `gpuwatch_slo_sli_ratio` | gauge | ratio | slo, service, window | share of good events over the window (5m, 30m, 1h, 2h, 6h, 1d, 3d, period); 1 with no events |
| `gpuwatch_slo_burn_rate` | gauge | | slo, service, window | how fast the window spends the error budget: its bad ratio over the allowed one |
| `gpuwatch_slo_error_budget_remaining_ratio` | gauge | ratio | slo, service | error budget left in the period, 1 - the period's burn rate; negative when overspent |
| `gpuwatch_slo_error_budget_state` | gauge | | slo, service, state | 1 for the SLO's alert state (ok, ticket or page), 0 for the other two |

### Not stored

Every family above that `/metrics` serves is also kept in the history (queried through `/api/v1/query`),
under the same name and labels, except:

| Name | Why it is not stored |
|---|---|
)";
  for (const auto& f : kNotStoredFamilies) {
    out += "| `" + std::string(f.name) + "` | " + std::string(f.reason) + " |\n";
  }
  out += R"(
`/metrics` serves text format 0.0.4, or OpenMetrics 1.0 when the request's `Accept` header asks for
`application/openmetrics-text` (native naming only). Before the first collection it serves the agent's own
families only.

)";
}

void dcgm_section(std::string& out) {
  out += R"(## dcgm-exporter naming

With `naming: dcgm` (or `/metrics?naming=dcgm`) gpuwatch serves dcgm-exporter's default counters in text 0.0.4,
with dcgm-exporter's names, units, types and help texts. Every series carries the labels `gpu`, `UUID`,
`pci_bus_id` (NVML spelling, `00000000:3B:00.0`), `device` (`nvidia<index>`), `modelName`, `Hostname` (or
`hostname`, as newer dcgm-exporter releases spell it: configurable) and `DCGM_FI_DRIVER_VERSION`; MIG instances
add `GPU_I_ID`. A lost GPU is left out, as dcgm-exporter does. The agent's own `gpuwatch_*` families follow.

| dcgm field | Type | Unit | From |
|---|---|---|---|
)";
  for (const auto& f : dcgm_fields()) {
    out += "| `" + std::string(f.name) + "` | " + std::string(type_word(f.type, ExpositionFormat::kText004)) +
           " | " + std::string(f.unit) + " | " + scale_text(f) + " |\n";
  }
  out += R"(
`DCGM_FI_DEV_XID_ERRORS` keeps dcgm's meaning, the code of the last XID; `gpu_xid_errors_total{xid}` counts
each code and is the better series to alert on. `DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL` counts bytes sent and
received on all links. `DCGM_FI_DEV_PCIE_TX_THROUGHPUT` and `_RX_` are typed counter as dcgm-exporter types
them, although NVML reports them as a rate over 20 ms; prefer `gpu_pcie_tx_bytes_per_second`.

The list was checked against `etc/default-counters.csv` of dcgm-exporter 4.5.3-4.8.2, its newest release
(`tests/http/golden/dcgm-default-counters.csv` holds it; a test fails when a field of it is neither rendered
nor listed below). Beyond it gpuwatch renders the two PCIe THROUGHPUT fields (defaults up to 3.3.6-3.4.2,
which older dashboards still chart) and `DCGM_FI_PROF_SM_ACTIVE` and `DCGM_FI_PROF_SM_OCCUPANCY` (DCP fields the
list names but comments out). The other fields it comments out are not rendered: the violation times, ECC and
retired-page totals and NVLink error counters are native families (`gpu_throttle_violation_seconds_total`,
`gpu_ecc_errors_total`, `gpu_retired_pages`, `gpu_nvlink_errors_total`); of dcgm-exporter's own `DCGM_EXP_*`
counters, clock events and XIDs are `gpu_clock_event_active` and `gpu_xid_errors_total`, health is the verdict
of `/api/v1/gpus`, and the P2P NVLink status has no counterpart.

Default counters of dcgm-exporter that gpuwatch does not render:

)";
  for (const auto& a : dcgm_absent_fields()) {
    out += "- `" + std::string(a.name) + "`: " + std::string(a.reason) + ".\n";
  }
  out += R"(
### dcgm names in the query API

The query API (docs/query.md) answers dcgm-exporter's names too, whatever naming `/metrics` uses: a selector
naming a field above (by name, by regex, or with no name matcher) selects the native series it comes from,
converted and labelled as this table and the labels above say, with the device's `gpu_info` and the node's
`gpu_driver_info` at the time of each point (a driver upgrade starts new series, as in a Prometheus that
scraped `/metrics?naming=dcgm`) and the node's hostname as the latest snapshot reports it. They are listed by
`/api/v1/label/__name__/values`, `/api/v1/series`, `/api/v1/labels` and `/api/v1/metadata`. Not answered:
)";
  for (const auto& f : dcgm_fields()) {
    if (f.source == DcgmSource::kLastXid)
      out +=
          "`" + std::string(f.name) +
          "`, since the history keeps how often each XID came (`gpu_xid_errors_total{xid}`), not which came "
          "last.\n";
  }
  out += "\n";
}

}  // namespace

std::string metrics_reference_markdown() {
  std::string out = R"(# gpuwatch metrics

This file is generated from the metric catalogue (`src/core/metric_catalogue.h`), the dcgm mapping table
(`src/exposition/dcgm_metrics.cpp`) and the JSON API (`src/http/json_api.cpp`); a test fails when it differs.
Regenerate it with `build/tests/http/metrics_doc > docs/metrics.md`.

)";
  native_section(out);
  dcgm_section(out);
  out += json_schema_markdown();
  return out;
}

}  // namespace gpuwatch
