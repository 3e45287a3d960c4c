#include "exposition/native_metrics.h"

#include <string>

#include "exposition/catalogue_family.h"
#include "sources/host/host_snapshot.h"

namespace gpuwatch {
namespace {

using Labels = std::vector<std::pair<std::string_view, std::string>>;

Labels device_labels(const DeviceIdentity& id) {
  Labels labels{{"gpu", std::to_string(id.index)}, {"uuid", id.uuid}};
  if (id.is_mig_instance) {
    labels.emplace_back("gpu_instance_id", std::to_string(id.gpu_instance_id));
    labels.emplace_back("compute_instance_id", std::to_string(id.compute_instance_id));
  }
  return labels;
}

// Identity labels first, then the catalogue's extra labels that this sample fills.
Series make_series(Labels identity, const MetricDef& def, const std::array<std::string, 3>& extra,
                   double value, std::int64_t read_ms) {
  for (std::size_t i = 0; i < def.labels.size(); ++i) {
    if (!def.labels[i].empty()) identity.emplace_back(def.labels[i], extra[i]);
  }
  return Series{std::move(identity), value, read_ms};
}

void add(std::vector<Family>& by_metric, Metric m, Labels identity, const std::array<std::string, 3>& extra,
         double value, std::int64_t read_ms = 0) {
  const MetricDef& def = metric_def(m);
  by_metric[static_cast<std::size_t>(m)].series.push_back(
      make_series(std::move(identity), def, extra, value, read_ms));
}

void add_process_series(std::vector<Family>& by_metric, const DeviceSnapshot& d) {
  for (const auto& p : d.processes) {
    Labels id{{"gpu", std::to_string(d.identity.index)},
              {"uuid", d.identity.uuid},
              {"pid", std::to_string(p.pid)},
              {"process", p.name}};
    // Who it runs for, where known (absent, not empty, where not: a label Prometheus would drop anyway).
    for (const auto& [name, value] :
         {std::pair<std::string_view, const std::string*>{"namespace", &p.namespace_name},
          {"pod", &p.pod},
          {"container", &p.container},
          {"slurm_job", &p.slurm_job},
          {"user", &p.user}}) {
      if (!value->empty()) id.emplace_back(name, *value);
    }
    if (p.used_memory_bytes) add(by_metric, Metric::kProcessMemoryUsed, id, {p.type}, *p.used_memory_bytes);
    if (p.sm_utilization) add(by_metric, Metric::kProcessSmUtilization, id, {}, *p.sm_utilization);
    if (p.memory_utilization)
      add(by_metric, Metric::kProcessMemoryUtilization, id, {}, *p.memory_utilization);
  }
}

void add_device_series(std::vector<Family>& by_metric, const DeviceSnapshot& d) {
  const Labels id = device_labels(d.identity);
  add(by_metric, Metric::kUp, id, {}, d.state == DeviceState::kOk ? 1 : 0);
  add(by_metric, Metric::kStale, id, {}, d.state == DeviceState::kStale ? 1 : 0);
  if (d.state == DeviceState::kLost) return;
  bool xid_samples = false;
  for (const auto& s : d.samples) {
    // gpu_up and gpu_stale come from the device state above, so a sample of them cannot contradict it.
    if (s.metric == Metric::kUp || s.metric == Metric::kStale) continue;
    if (metric_def(s.metric).scope != MetricScope::kDevice) continue;
    xid_samples = xid_samples || s.metric == Metric::kXidErrors;
    add(by_metric, s.metric, id, s.labels, s.value, s.read_ms);
  }
  // XID counts are kept as a map by the collector; render them unless it already made samples of them.
  if (!xid_samples) {
    for (const auto& [xid, count] : d.xid_counts) {
      add(by_metric, Metric::kXidErrors, id, {std::to_string(xid)}, static_cast<double>(count));
    }
  }
  add_process_series(by_metric, d);
}

std::string gpu_index_of(const Snapshot& snapshot, const std::string& uuid) {
  for (const auto& d : snapshot.devices) {
    if (d.identity.uuid == uuid) return std::to_string(d.identity.index);
  }
  return uuid;  // a device that is no longer enumerated: its uuid still says which one
}

void add_agent_series(std::vector<Family>& by_metric, const Snapshot& snapshot) {
  for (const auto& [key, count] : snapshot.collector_errors) {
    const auto& [uuid, call, code] = key;
    add(by_metric, Metric::kCollectorErrors, {},
        {uuid.empty() ? "" : gpu_index_of(snapshot, uuid), call, std::to_string(code)},
        static_cast<double>(count));
  }
  add(by_metric, Metric::kTicks, {}, {}, static_cast<double>(snapshot.ticks));
  if (snapshot.ticks > 0) add(by_metric, Metric::kCollectionSeconds, {}, {}, snapshot.collection_seconds);
  for (const auto& source : snapshot.sources) {
    add(by_metric, Metric::kSourceSuccess, {}, {source.name}, source.success ? 1 : 0);
    add(by_metric, Metric::kSourceDuration, {}, {source.name}, source.duration_seconds);
  }
  if (snapshot.host && snapshot.host->kernel_log) {
    const kernel::KmsgStatus& log = *snapshot.host->kernel_log;
    add(by_metric, Metric::kKernelLogReadable, {}, {}, log.readable ? 1 : 0);
    add(by_metric, Metric::kKernelLogRecords, {}, {}, static_cast<double>(log.records));
    for (const auto& [kind, n] : snapshot.host->kernel_event_counts)
      add(by_metric, Metric::kKernelLogEvents, {}, {kind}, static_cast<double>(n));
    add(by_metric, Metric::kKernelLogOpenFailures, {}, {}, static_cast<double>(log.open_failures));
    add(by_metric, Metric::kKernelLogOverruns, {}, {}, static_cast<double>(log.overruns));
  }
}

const DeviceSnapshot* device_at_bus(const Snapshot& snapshot, const std::string& bus) {
  for (const auto& d : snapshot.devices)
    if (!d.identity.is_mig_instance && d.identity.pci_bus_id == bus) return &d;
  return nullptr;
}

// The PCIe links GPUs share, from the host reading (sysfs topology): which GPUs sit below each, and what
// it carries.
void add_shared_link_families(const Snapshot& snapshot, std::vector<Family>& out) {
  Family info{"gpu_pcie_shared_link_info",
              FamilyType::kInfo,
              "",
              "1 for each GPU below a PCIe link it shares with other GPUs (a switch uplink, from sysfs); "
              "pcie_link names the bridge below the link",
              {}};
  Family capacity{
      "gpu_pcie_shared_link_capacity_bytes_per_second",
      FamilyType::kGauge,
      "bytes_per_second",
      "What a shared PCIe link carries each way at its current speed and width, after line encoding",
      {}};
  if (snapshot.host && snapshot.host->shared_pcie_links) {
    for (const auto& link : *snapshot.host->shared_pcie_links) {
      for (const auto& bus : link.gpus) {
        if (const DeviceSnapshot* d = device_at_bus(snapshot, bus))
          info.series.push_back({{{"gpu", std::to_string(d->identity.index)},
                                  {"uuid", d->identity.uuid},
                                  {"pcie_link", link.device}},
                                 1});
      }
      if (const double c = link.capacity_bytes_per_second(); c > 0)
        capacity.series.push_back({{{"pcie_link", link.device}, {"upstream", link.upstream}}, c});
    }
  }
  out.push_back(std::move(info));
  out.push_back(std::move(capacity));
}

// Why a source failed, as labels: the reason (a fixed vocabulary) for alert rules, the message for people.
Family source_error_family(const Snapshot& snapshot) {
  Family f{"gpuwatch_source_error_info",
           FamilyType::kInfo,
           "",
           "Why a source could not be read this tick (reason, message); absent while it works; always 1",
           {}};
  for (const auto& source : snapshot.sources) {
    if (source.success) continue;
    f.series.push_back(
        Series{{{"source", source.name}, {"reason", source.reason}, {"message", source.message}}, 1});
  }
  return f;
}

std::vector<Family> empty_catalogue_families() {
  std::vector<Family> by_metric;
  by_metric.reserve(kMetricCount);
  for (const auto& def : kMetricCatalogue) by_metric.push_back(catalogue_family(def));
  return by_metric;
}

Family build_info_family() {
  return Family{"gpuwatch_build_info",
                FamilyType::kInfo,
                "",
                "gpuwatch build; the value is always 1",
                {Series{{{"version", std::string(gpuwatch_version())}}, 1}}};
}

Family gpu_info_family(const Snapshot& snapshot) {
  Family f{"gpu_info", FamilyType::kInfo, "", "GPU identity; the value is always 1", {}};
  for (const auto& d : snapshot.devices) {
    Labels labels = device_labels(d.identity);
    const auto& id = d.identity;
    for (auto [name, value] : {std::pair<std::string_view, const std::string*>{"name", &id.name},
                               {"serial", &id.serial},
                               {"pci_bus_id", &id.pci_bus_id},
                               {"vbios_version", &id.vbios_version}}) {
      labels.emplace_back(name, *value);
    }
    f.series.push_back(Series{std::move(labels), 1});
  }
  return f;
}

// Who each GPU is allocated to (collector/workload_names.h): one series per holder, so the history keeps who
// held a GPU when, and the dcgm view of the query API labels a GPU's series with its pod as /metrics does.
Family allocation_info_family(const Snapshot& snapshot) {
  Family f{"gpu_allocation_info",
           FamilyType::kInfo,
           "",
           "Each pod container or batch job a GPU is allocated to; the value is always 1",
           {}};
  for (const auto& d : snapshot.devices) {
    for (const auto& h : d.holders) {
      Labels labels = device_labels(d.identity);
      for (auto [name, value] :
           {std::pair<std::string_view, const std::string*>{"namespace", &h.namespace_name},
            {"pod", &h.pod},
            {"container", &h.container},
            {"slurm_job", &h.slurm_job}}) {
        if (!value->empty()) labels.emplace_back(name, *value);
      }
      f.series.push_back(Series{std::move(labels), 1});
    }
  }
  return f;
}

Family driver_info_family(const Snapshot& snapshot) {
  Family f{
      "gpu_driver_info", FamilyType::kInfo, "", "NVIDIA driver, NVML and CUDA driver versions; always 1", {}};
  const NodeInfo& n = snapshot.node;
  if (!n.driver_version.empty() || !n.nvml_version.empty()) {
    f.series.push_back(Series{{{"driver_version", n.driver_version},
                               {"nvml_version", n.nvml_version},
                               {"cuda_driver_version", n.cuda_driver_version}},
                              1});
  }
  return f;
}

}  // namespace

bool is_stored(std::string_view family) {
  for (const auto& f : kNotStoredFamilies)
    if (f.name == family) return false;
  return true;
}

std::string_view gpuwatch_version() {
  return GPUWATCH_VERSION;
}

std::vector<Family> native_families(const Snapshot& snapshot) {
  std::vector<Family> by_metric = empty_catalogue_families();
  for (const auto& d : snapshot.devices) add_device_series(by_metric, d);
  add_agent_series(by_metric, snapshot);

  std::vector<Family> out;
  out.reserve(by_metric.size() + 5);
  out.push_back(gpu_info_family(snapshot));
  out.push_back(allocation_info_family(snapshot));
  out.push_back(driver_info_family(snapshot));
  for (auto& f : by_metric) out.push_back(std::move(f));
  add_shared_link_families(snapshot, out);
  out.push_back(source_error_family(snapshot));
  out.push_back(build_info_family());
  return out;
}

std::vector<Family> agent_families(const Snapshot& snapshot) {
  std::vector<Family> by_metric = empty_catalogue_families();
  add_agent_series(by_metric, snapshot);
  std::vector<Family> out;
  for (auto& f : by_metric) {
    if (!f.series.empty()) out.push_back(std::move(f));
  }
  if (Family errors = source_error_family(snapshot); !errors.series.empty()) out.push_back(std::move(errors));
  out.push_back(build_info_family());
  return out;
}

std::string render_native(const Snapshot& snapshot, ExpositionFormat format, const ExtraFamilies& extra) {
  std::string out;
  out.reserve(64 * 1024);
  for (const auto& f : native_families(snapshot)) append_family(out, f, format);
  if (extra) extra(out, format);
  append_end(out, format);
  return out;
}

}  // namespace gpuwatch
