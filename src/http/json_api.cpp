#include "http/json_api.h"

#include "rules/health.h"

namespace gpuwatch {
namespace {

using nlohmann::json;

template <typename T>
json optional_value(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json metrics_json(const DeviceSnapshot& d) {
  json metrics = json::object();
  if (d.state == DeviceState::kLost) return metrics;  // a lost GPU has no current values
  for (const auto& s : d.samples) {
    const MetricDef& def = metric_def(s.metric);
    json labels = json::object();
    for (std::size_t i = 0; i < def.labels.size(); ++i) {
      if (!def.labels[i].empty()) labels[std::string(def.labels[i])] = s.labels[i];
    }
    metrics[std::string(def.name)].push_back({{"labels", std::move(labels)}, {"value", s.value}});
  }
  return metrics;
}

json text_or_null(const std::string& text) {
  return text.empty() ? json(nullptr) : json(text);
}

// The workload fields are the process's own (collector/workload_names.h sets them from the host reading), so
// the JSON, /metrics and alerts name a process from one place.
json process_json(const ProcessSample& p) {
  return {{"pid", p.pid},
          {"name", p.name},
          {"uid", optional_value(p.uid)},
          {"user", text_or_null(p.user)},
          {"command", text_or_null(p.command)},
          {"namespace", text_or_null(p.namespace_name)},
          {"pod", text_or_null(p.pod)},
          {"container", text_or_null(p.container)},
          {"slurm_job", text_or_null(p.slurm_job)},
          {"type", p.type},
          {"used_memory_bytes", optional_value(p.used_memory_bytes)},
          {"sm_utilization", optional_value(p.sm_utilization)},
          {"memory_utilization", optional_value(p.memory_utilization)},
          {"gpu_instance_id", optional_value(p.gpu_instance_id)},
          {"compute_instance_id", optional_value(p.compute_instance_id)},
          {"container_id", text_or_null(p.container_id)},
          {"pod_uid", text_or_null(p.pod_uid)}};
}

json device_json(const DeviceSnapshot& d, const rules::DetectorSettings& settings) {
  const DeviceIdentity& id = d.identity;
  json mig = nullptr;
  if (id.is_mig_instance) {
    mig = {{"parent_uuid", id.parent_uuid},
           {"gpu_instance_id", id.gpu_instance_id},
           {"compute_instance_id", id.compute_instance_id}};
  }
  const Health health = assess_health(d, settings);
  json processes = json::array();
  for (const auto& p : d.processes) processes.push_back(process_json(p));
  json holders = json::array();
  for (const auto& h : d.holders) {
    holders.push_back({{"namespace", text_or_null(h.namespace_name)},
                       {"pod", text_or_null(h.pod)},
                       {"container", text_or_null(h.container)},
                       {"slurm_job", text_or_null(h.slurm_job)}});
  }
  json xids = json::object();
  for (const auto& [xid, count] : d.xid_counts) xids[std::to_string(xid)] = count;
  return {{"index", id.index},
          {"uuid", id.uuid},
          {"name", id.name},
          {"serial", id.serial},
          {"pci_bus_id", id.pci_bus_id},
          {"vbios_version", id.vbios_version},
          {"mig", std::move(mig)},
          {"state", device_state_name(d.state)},
          {"last_read_ms", d.last_read_ms},
          {"health", {{"verdict", to_string(health.verdict)}, {"reasons", health.reasons}}},
          {"metrics", metrics_json(d)},
          {"processes", std::move(processes)},
          {"holders", std::move(holders)},
          {"xid_counts", std::move(xids)},
          {"last_xid", optional_value(d.last_xid)},
          {"unsupported", d.unsupported}};
}

}  // namespace

json snapshot_to_json(const Snapshot& snapshot, const rules::DetectorSettings& settings) {
  json devices = json::array();
  for (const auto& d : snapshot.devices) devices.push_back(device_json(d, settings));
  json errors = json::array();
  for (const auto& [key, count] : snapshot.collector_errors) {
    const auto& [uuid, call, code] = key;
    errors.push_back({{"uuid", uuid}, {"call", call}, {"code", code}, {"count", count}});
  }
  const NodeInfo& n = snapshot.node;
  return {{"schema_version", kJsonSchemaVersion},
          {"sequence", snapshot.sequence},
          {"timestamp_ms", snapshot.timestamp_ms},
          {"ticks", snapshot.ticks},
          {"collection_seconds", snapshot.collection_seconds},
          {"source_error", snapshot.source_error},
          {"node",
           {{"hostname", n.hostname},
            {"driver_version", n.driver_version},
            {"nvml_version", n.nvml_version},
            {"cuda_driver_version", n.cuda_driver_version},
            {"nvml_library", n.nvml_library}}},
          {"devices", std::move(devices)},
          {"collector_errors", std::move(errors)}};
}

std::string_view json_schema_markdown() {
  return R"(## JSON schema

`GET /api/v1/gpus` and `gpuwatch status --json` print one object. `schema_version` is 1. Within a version,
fields may be added but are never renamed, retyped or removed. Non-finite numbers (NaN, infinities) are
written as `null`.

| Field | Type | Meaning |
|---|---|---|
| `schema_version` | integer | 1 |
| `sequence` | integer | snapshot number, one more per collection tick |
| `timestamp_ms` | integer | when the snapshot was taken, ms since the Unix epoch (on a lockstep simulator, its clock: never ahead of the wall clock) |
| `ticks` | integer | collection ticks completed |
| `collection_seconds` | number | wall time of the last tick |
| `source_error` | string | why no device could be read at all; `""` when devices were read |
| `node` | object | `hostname`, `driver_version`, `nvml_version`, `cuda_driver_version`, `nvml_library` (strings) |
| `devices` | array | one object per GPU or MIG instance, below |
| `collector_errors` | array | `{uuid, call, code, count}`: failed NVML calls; `uuid` is `""` for node-wide calls |

Each element of `devices`:

| Field | Type | Meaning |
|---|---|---|
| `index` | integer | NVML index at enumeration (display only; the UUID is the identity) |
| `uuid`, `name`, `serial`, `pci_bus_id`, `vbios_version` | string | identity; `pci_bus_id` in sysfs form `0000:3b:00.0` |
| `mig` | object or null | for MIG instances: `parent_uuid`, `gpu_instance_id`, `compute_instance_id` |
| `state` | string | `ok`, `stale` (last read missed the deadline; values are old) or `lost` (fell off the bus) |
| `last_read_ms` | integer | when the values below were read |
| `health` | object | `verdict` (`healthy`, `warning`, `critical`) and `reasons` (strings, worst first) |
| `metrics` | object | native metric name -> array of `{labels: {name: value}, value: number}`; empty for a lost GPU |
| `processes` | array | `{pid, name, uid, user, command, namespace, pod, container, slurm_job, type, used_memory_bytes, sm_utilization, memory_utilization, gpu_instance_id, compute_instance_id, container_id, pod_uid}`; absent values are `null`; `namespace`, `pod`, `container` from the kubelet's allocation of the GPU, `slurm_job` from the cgroup or the job mapping; `container_id` (`<runtime>://<id>`) and `pod_uid` are what the process's cgroup names |
| `holders` | array | `{namespace, pod, container, slurm_job}`: who the GPU is allocated to (kubelet, job mapping), with or without processes |
| `xid_counts` | object | XID code (string) -> count since the agent started |
| `last_xid` | integer or null | the last XID code seen |
| `unsupported` | array of strings | NVML calls the GPU answered NOT_SUPPORTED |

Of a process, `name` is its `comm` (at most 15 bytes on Linux); `uid` its real uid, `user` the name the host's
passwd file gives that uid (else the uid in decimal) and `command` its command line with the arguments joined
by spaces, all read from `/proc` under `--proc-root` (`docs/status.md` says which passwd file). They are `null`
until the host reader has read the process, and always with `--proc-root ""`. `container_id`
(`<runtime>://<id>`), `pod_uid` and `slurm_job` are the workload its cgroup names, `null` where it names none.
)";
}

}  // namespace gpuwatch
