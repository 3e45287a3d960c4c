#include "http/json_api.h"

#include <charconv>
#include <set>
#include <stdexcept>

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

json device_json(const DeviceSnapshot& d, const rules::DetectorSettings& settings, bool with_processes) {
  const DeviceIdentity& id = d.identity;
  json mig = nullptr;
  if (id.is_mig_instance) {
    mig = {{"parent_uuid", id.parent_uuid},
           {"gpu_instance_id", id.gpu_instance_id},
           {"compute_instance_id", id.compute_instance_id}};
  }
  const Health health = assess_health(d, settings);
  json holders = json::array();
  for (const auto& h : d.holders) {
    holders.push_back({{"namespace", text_or_null(h.namespace_name)},
                       {"pod", text_or_null(h.pod)},
                       {"container", text_or_null(h.container)},
                       {"slurm_job", text_or_null(h.slurm_job)}});
  }
  json xids = json::object();
  for (const auto& [xid, count] : d.xid_counts) xids[std::to_string(xid)] = count;
  json device = {{"index", id.index},
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
                 {"process_count", d.processes.size()},
                 {"holders", std::move(holders)},
                 {"xid_counts", std::move(xids)},
                 {"last_xid", optional_value(d.last_xid)},
                 {"unsupported", d.unsupported}};
  if (with_processes) {
    json processes = json::array();
    for (const auto& p : d.processes) processes.push_back(process_json(p));
    device["processes"] = std::move(processes);
  }
  return device;
}

std::optional<unsigned> parse_index(std::string_view text) {
  unsigned index = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), index);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return index;
}

// An index names the GPU and its MIG instances (which carry their parent's index); a UUID names one device.
bool is_selected(const DeviceIdentity& id, std::string_view gpu) {
  if (const auto index = parse_index(gpu)) return id.index == *index;
  return id.uuid == gpu;
}

// Why `gpu` matches nothing, with what would: the indexes the node has.
std::string no_such_gpu(const Snapshot& snapshot, std::string_view gpu) {
  std::set<unsigned> indexes;
  for (const auto& d : snapshot.devices) indexes.insert(d.identity.index);
  std::string known;
  for (const unsigned i : indexes) known += (known.empty() ? "" : ", ") + std::to_string(i);
  return "no GPU \"" + std::string(gpu) + "\" on this node; gpu is " +
         (known.empty() ? std::string("a GPU's index") : "the index of one of its GPUs (" + known + ")") +
         " or a GPU or MIG UUID";
}

}  // namespace

GpusSelection parse_gpus_selection(std::optional<std::string_view> processes,
                                   std::optional<std::string_view> gpu) {
  GpusSelection selection;
  if (processes) {
    if (*processes == "false") {
      selection.processes = false;
    } else if (*processes != "true") {
      throw std::invalid_argument("processes must be true or false, not \"" + std::string(*processes) + "\"");
    }
  }
  if (gpu) {
    if (gpu->empty()) throw std::invalid_argument("gpu must be a GPU index or UUID, not empty");
    // Digits that overflow are no index and no UUID: say so rather than "no such GPU".
    if (gpu->find_first_not_of("0123456789") == std::string_view::npos && !parse_index(*gpu)) {
      throw std::invalid_argument("gpu " + std::string(*gpu) + " is too large for a GPU index");
    }
    selection.gpu = std::string(*gpu);
  }
  return selection;
}

json snapshot_to_json(const Snapshot& snapshot, const rules::DetectorSettings& settings,
                      const GpusSelection& selection) {
  json devices = json::array();
  for (const auto& d : snapshot.devices) {
    if (selection.gpu && !is_selected(d.identity, *selection.gpu)) continue;
    devices.push_back(device_json(d, settings, selection.processes));
  }
  if (selection.gpu && devices.empty()) throw std::invalid_argument(no_such_gpu(snapshot, *selection.gpu));
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
| `devices` | array | one object per GPU or MIG instance, below (with `gpu=`, only the GPU asked for) |
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
| `process_count` | integer | how many processes use the GPU now: the length of `processes`, also when it is left out |
| `processes` | array | absent with `processes=false`; else `{pid, name, uid, user, command, namespace, pod, container, slurm_job, type, used_memory_bytes, sm_utilization, memory_utilization, gpu_instance_id, compute_instance_id, container_id, pod_uid}`; absent values are `null`; `namespace`, `pod`, `container` from the kubelet's allocation of the GPU, `slurm_job` from the cgroup or the job mapping; `container_id` (`<runtime>://<id>`) and `pod_uid` are what the process's cgroup names |
| `holders` | array | `{namespace, pod, container, slurm_job}`: who the GPU is allocated to (kubelet, job mapping), with or without processes |
| `xid_counts` | object | XID code (string) -> count since the agent started |
| `last_xid` | integer or null | the last XID code seen |
| `unsupported` | array of strings | NVML calls the GPU answered NOT_SUPPORTED |

`/api/v1/gpus` takes two query parameters, for a page that needs less than every process on the node (a node of
1,000 processes answers about half a megabyte with them, a few kilobytes a GPU without):

| Parameter | Values | Effect |
|---|---|---|
| `processes` | `true` (the default) or `false` | `false` leaves each GPU's `processes` out; `process_count` stays |
| `gpu` | a GPU's index, or a GPU or MIG UUID | `devices` holds only that GPU: for an index, the GPU and its MIG instances (they carry its index); for a UUID, that one device |

They combine (`?gpu=0&processes=false`), and other parameters are ignored. A value that is neither (`processes=no`,
an empty `gpu`) or a GPU the node does not have is answered `400` with `{"error": "..."}` saying what is
accepted, e.g. `no GPU "9" on this node; gpu is the index of one of its GPUs (0, 1, 2, 3, 4, 5, 6, 7) or a GPU or
MIG UUID`. `gpuwatch status --json` prints every GPU with its processes.

Of a process, `name` is its `comm` (at most 15 bytes on Linux); `uid` its real uid, `user` the name the host's
passwd file gives that uid (else the uid in decimal) and `command` its command line with the arguments joined
by spaces, all read from `/proc` under `--proc-root` (`docs/status.md` says which passwd file). They are `null`
until the host reader has read the process, and always with `--proc-root ""`. `container_id`
(`<runtime>://<id>`), `pod_uid` and `slurm_job` are the workload its cgroup names, `null` where it names none.
)";
}

}  // namespace gpuwatch
