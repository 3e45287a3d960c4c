#include "cli/top/agent_frame.h"

#include <stdexcept>

#include "core/rfc3339.h"

namespace gpuwatch::top {
namespace {

using nlohmann::json;

std::string text(const json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

template <typename T>
std::optional<T> optional_number(const json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return std::nullopt;
  return it->get<T>();
}

const json& field(const json& o, const char* key, const char* where) {
  const auto it = o.find(key);
  if (it == o.end()) throw std::runtime_error(std::string(where) + " has no \"" + key + "\"");
  return *it;
}

DeviceState state_of(const std::string& s) {
  if (s == "stale") return DeviceState::kStale;
  if (s == "lost") return DeviceState::kLost;
  return DeviceState::kOk;
}

HealthVerdict verdict_of(const std::string& s) {
  if (s == "critical") return HealthVerdict::kCritical;
  if (s == "warning") return HealthVerdict::kWarning;
  return HealthVerdict::kHealthy;
}

// Samples of the catalogue's metrics, their label values in the catalogue's order; names this build does not
// know (a newer agent) are left out.
void read_metrics(const json& metrics, DeviceSnapshot& d) {
  for (const auto& [name, samples] : metrics.items()) {
    const auto metric = find_metric(name);
    if (!metric || !samples.is_array()) continue;
    const MetricDef& def = metric_def(*metric);
    for (const auto& s : samples) {
      if (!s.contains("value") || !s["value"].is_number()) continue;
      Sample sample(*metric, s["value"].get<double>());
      if (const auto labels = s.find("labels"); labels != s.end() && labels->is_object()) {
        for (std::size_t i = 0; i < def.labels.size(); ++i) {
          if (!def.labels[i].empty()) sample.labels[i] = text(*labels, std::string(def.labels[i]).c_str());
        }
      }
      d.samples.push_back(std::move(sample));
    }
  }
}

ProcessSample read_process(const json& p, std::map<unsigned, procfs::Workload>& workloads) {
  ProcessSample out;
  out.pid = field(p, "pid", "a process").get<unsigned>();
  out.name = text(p, "name");
  out.type = text(p, "type");
  out.used_memory_bytes = optional_number<double>(p, "used_memory_bytes");
  out.sm_utilization = optional_number<double>(p, "sm_utilization");
  out.memory_utilization = optional_number<double>(p, "memory_utilization");
  out.gpu_instance_id = optional_number<unsigned>(p, "gpu_instance_id");
  out.compute_instance_id = optional_number<unsigned>(p, "compute_instance_id");
  out.uid = optional_number<unsigned>(p, "uid");
  out.user = text(p, "user");
  out.command = text(p, "command");
  out.namespace_name = text(p, "namespace");
  out.pod = text(p, "pod");
  out.container = text(p, "container");
  out.slurm_job = text(p, "slurm_job");
  procfs::Workload w{text(p, "container_id"), text(p, "pod_uid"), text(p, "slurm_job"), ""};
  if (!w.empty()) workloads[out.pid] = std::move(w);
  return out;
}

DeviceSnapshot read_device(const json& j, Health& health, std::map<unsigned, procfs::Workload>& workloads) {
  DeviceSnapshot d;
  DeviceIdentity& id = d.identity;
  id.index = field(j, "index", "a device").get<unsigned>();
  id.uuid = text(j, "uuid");
  id.name = text(j, "name");
  id.serial = text(j, "serial");
  id.pci_bus_id = text(j, "pci_bus_id");
  id.vbios_version = text(j, "vbios_version");
  if (const auto mig = j.find("mig"); mig != j.end() && mig->is_object()) {
    id.is_mig_instance = true;
    id.parent_uuid = text(*mig, "parent_uuid");
    id.gpu_instance_id = optional_number<unsigned>(*mig, "gpu_instance_id").value_or(0);
    id.compute_instance_id = optional_number<unsigned>(*mig, "compute_instance_id").value_or(0);
  }
  d.state = state_of(text(j, "state"));
  d.last_read_ms = optional_number<std::int64_t>(j, "last_read_ms").value_or(0);
  if (const auto h = j.find("health"); h != j.end() && h->is_object()) {
    health.verdict = verdict_of(text(*h, "verdict"));
    if (const auto reasons = h->find("reasons"); reasons != h->end() && reasons->is_array()) {
      for (const auto& r : *reasons) {
        if (r.is_string()) health.reasons.push_back(r.get<std::string>());
      }
    }
  }
  if (const auto m = j.find("metrics"); m != j.end() && m->is_object()) read_metrics(*m, d);
  if (const auto ps = j.find("processes"); ps != j.end() && ps->is_array()) {
    for (const auto& p : *ps) d.processes.push_back(read_process(p, workloads));
  }
  return d;
}

std::vector<TopAlert> read_alerts(const json& alerts) {
  std::vector<TopAlert> out;
  if (!alerts.is_object() || !alerts.contains("data") || !alerts["data"].contains("alerts")) return out;
  for (const auto& a : alerts["data"]["alerts"]) {
    TopAlert alert;
    alert.state = text(a, "state");
    const json labels = a.value("labels", json::object());
    alert.name = text(labels, "alertname");
    if (alert.name == "Watchdog") continue;  // the always-firing liveness alert says nothing on a screen
    alert.severity = text(labels, "severity");
    alert.gpu = text(labels, "gpu");
    alert.summary = text(a.value("annotations", json::object()), "summary");
    if (const std::string since = text(a, "activeAt"); !since.empty()) {
      alert.active_since_ms = parse_rfc3339_ms(since).value_or(0);
    }
    out.push_back(std::move(alert));
  }
  sort_alerts(out);
  return out;
}

}  // namespace

TopFrame frame_from_agent(const json& gpus, const json& alerts) {
  if (!gpus.is_object()) throw std::runtime_error("/api/v1/gpus did not answer a JSON object");
  auto snap = std::make_shared<Snapshot>();
  TopFrame frame;
  snap->sequence = field(gpus, "sequence", "/api/v1/gpus").get<std::uint64_t>();
  snap->timestamp_ms = field(gpus, "timestamp_ms", "/api/v1/gpus").get<std::int64_t>();
  snap->source_error = text(gpus, "source_error");
  if (const auto n = gpus.find("node"); n != gpus.end() && n->is_object()) {
    snap->node = {text(*n, "hostname"), text(*n, "driver_version"), text(*n, "nvml_version"),
                  text(*n, "cuda_driver_version"), text(*n, "nvml_library")};
  }
  for (const auto& d : field(gpus, "devices", "/api/v1/gpus")) {
    Health health;
    snap->devices.push_back(read_device(d, health, frame.workloads));
    frame.health.push_back(std::move(health));
  }
  frame.snapshot = std::move(snap);
  frame.alerts = read_alerts(alerts);
  return frame;
}

}  // namespace gpuwatch::top
