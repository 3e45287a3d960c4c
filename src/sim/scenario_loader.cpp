#include "sim/scenario_loader.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "config/yaml_duplicate_keys.h"
#include "core/duration.h"
#include "core/file_io.h"
#include "core/rfc3339.h"
#include "sim/service_spec.h"

namespace gpuwatch::sim {
namespace {

void read_node(const YamlReader& in, const YAML::Node& node, NodeSpec& out) {
  in.expect_map(node, "node",
                {"hostname", "driver_version", "cuda_driver_version", "nvml_version", "seed", "time_scale",
                 "mode", "start"});
  bool nvml_given = false;
  for (const auto& e : node) {
    const std::string key = e.first.Scalar();
    const YAML::Node& v = e.second;
    if (key == "hostname") out.hostname = in.text(v, "hostname");
    if (key == "driver_version") out.driver_version = in.text(v, "driver_version");
    if (key == "nvml_version") {
      out.nvml_version = in.text(v, "nvml_version");
      nvml_given = true;
    }
    if (key == "seed") out.seed = in.whole(v, "seed");
    if (key == "time_scale") {
      out.time_scale = in.number(v, "time_scale");
      if (out.time_scale <= 0) in.fail(v, "expected time_scale > 0");
    }
    if (key == "cuda_driver_version") {
      const std::string s = in.text(v, "cuda_driver_version");
      int major = 0, minor = 0;
      if (std::sscanf(s.c_str(), "%d.%d", &major, &minor) != 2)
        in.fail(v, "expected a CUDA version like 12.4, got '" + s + "'");
      out.cuda_driver_version = major * 1000 + minor * 10;
    }
    if (key == "mode") {
      const std::string s = in.text(v, "mode");
      if (s != "scaled" && s != "lockstep")
        in.fail(v, "expected mode 'scaled' or 'lockstep', got '" + s + "'");
      out.lockstep = s == "lockstep";
    }
    if (key == "start") {
      const std::string s = in.text(v, "start");
      if (s.starts_with("now-")) {
        if (const auto d = parse_duration(std::string_view(s).substr(4)); d && d->count() > 0)
          out.start_ago = static_cast<double>(d->count()) / 1000.0;
        if (!out.start_ago) in.fail(v, "expected now-DURATION like now-7d, got '" + s + "'");
      } else {
        if (const auto ms = parse_rfc3339_ms(s)) out.start_unix = static_cast<double>(*ms) / 1000.0;
        if (!out.start_unix)
          in.fail(v, "expected an RFC 3339 time like 2025-03-01T12:00:00Z or now-7d, got '" + s + "'");
      }
    }
  }
  if (!nvml_given) out.nvml_version = "12." + out.driver_version;
}

// GPU instance ids the driver hands out per instance size, first free one wins.
std::vector<unsigned> gpu_instance_ids_for(unsigned slices) {
  switch (slices) {
    case 7:
      return {0};
    case 4:
      return {5};
    case 3:
      return {1, 2};
    case 2:
      return {3, 4, 5, 6};
    default:
      return {7, 8, 9, 10, 11, 12, 13, 14};
  }
}

void read_mig(const YamlReader& in, const YAML::Node& node, DeviceSpec& dev) {
  in.expect_map(node, "mig", {"enabled", "instances"});
  if (node["enabled"]) dev.mig_enabled = in.flag(node["enabled"]);
  if (!node["instances"]) return;
  dev.mig = read_mig_instances(in, node["instances"], *dev.model);
  if (!dev.mig.empty() && !dev.mig_enabled)
    in.fail(node, "mig instances listed but mig is not enabled (enabled: true)");
}

void read_devices(const YamlReader& in, const YAML::Node& node, Scenario& sc) {
  in.expect_list(node, "devices");
  for (const auto& d : node) {
    in.expect_map(d, "a device", {"model", "count", "memory", "power_limit", "pcie", "mig", "workload"});
    if (!d["model"]) in.fail(d, "a device needs a model");
    const std::string model_name = in.text(d["model"], "model");
    DeviceSpec dev;
    dev.model = find_gpu_model(model_name);
    if (!dev.model) {
      std::string known;
      for (auto k : gpu_model_keys()) known += (known.empty() ? "" : ", ") + std::string(k);
      in.fail(d["model"], "unknown GPU model '" + model_name + "' (known: " + known + ")");
    }
    dev.memory_bytes = dev.model->memory_bytes;
    dev.power_limit_w = dev.model->max_power_w;
    dev.pcie_gen = dev.model->pcie_gen;
    dev.pcie_width = dev.model->pcie_width;
    unsigned count = 1;
    if (d["count"]) count = in.whole(d["count"], "count");
    if (count == 0 || count > 64) in.fail(d["count"], "expected count between 1 and 64");
    if (d["memory"]) dev.memory_bytes = static_cast<unsigned long long>(in.bytes(d["memory"]));
    if (d["power_limit"]) dev.power_limit_w = in.watts(d["power_limit"]);
    if (const auto p = d["pcie"]) {
      in.expect_map(p, "pcie", {"gen", "width"});
      if (p["gen"]) dev.pcie_gen = in.whole(p["gen"], "pcie gen");
      if (p["width"]) dev.pcie_width = in.whole(p["width"], "pcie width");
    }
    if (d["mig"]) read_mig(in, d["mig"], dev);
    if (const auto w = d["workload"]) {
      in.expect_map(w, "workload", {"utilization", "memory"});
      if (w["utilization"]) dev.utilization = read_shape(in, w["utilization"], ShapeUnit::kPercent);
      if (w["memory"]) dev.memory = read_shape(in, w["memory"], ShapeUnit::kBytes);
    }
    for (unsigned i = 0; i < count; ++i) sc.devices.push_back(dev);
  }
  if (sc.devices.empty()) in.fail(node, "expected at least one device");
}

void read_pcie_switches(const YamlReader& in, const YAML::Node& node, Scenario& sc) {
  in.expect_list(node, "pcie_switches");
  std::set<unsigned> placed;
  for (const auto& n : node) {
    in.expect_map(n, "a PCIe switch", {"gpus", "uplink"});
    if (!n["gpus"]) in.fail(n, "a PCIe switch needs the list of its gpus");
    in.expect_list(n["gpus"], "gpus");
    PcieSwitch sw;
    for (const auto& g : n["gpus"]) {
      const unsigned gpu = in.whole(g, "gpu index");
      if (gpu >= sc.devices.size())
        in.fail(g,
                "gpu index out of range (the scenario has " + std::to_string(sc.devices.size()) + " GPUs)");
      if (!placed.insert(gpu).second) in.fail(g, "GPU " + std::to_string(gpu) + " is below two switches");
      sw.gpus.push_back(gpu);
    }
    if (sw.gpus.empty()) in.fail(n["gpus"], "a PCIe switch needs at least one GPU");
    // The uplink defaults to the first GPU's own link, as on boards that give each switch a full-width one.
    sw.uplink_gen = sc.devices[sw.gpus.front()].pcie_gen;
    sw.uplink_width = sc.devices[sw.gpus.front()].pcie_width;
    if (const auto u = n["uplink"]) {
      in.expect_map(u, "uplink", {"gen", "width"});
      if (u["gen"]) sw.uplink_gen = in.whole(u["gen"], "uplink gen");
      if (u["width"]) sw.uplink_width = in.whole(u["width"], "uplink width");
    }
    if (sw.uplink_gen < 1 || sw.uplink_gen > 6) in.fail(n, "expected an uplink gen between 1 and 6");
    if (sw.uplink_width < 1 || sw.uplink_width > 32) in.fail(n, "expected an uplink width between 1 and 32");
    sc.pcie_switches.push_back(std::move(sw));
  }
}

ProcessSpec read_process(const YamlReader& in, const YAML::Node& p, const Scenario& sc) {
  in.expect_map(p, "a process", {"pid",  "ppid",   "gpu",     "mig",       "name",      "cmdline",   "start",
                                 "stop", "memory", "sm_util", "pcie_rx",   "pcie_tx",   "type",      "user",
                                 "uid",  "cgroup", "pod",     "container", "slurm_job", "libraries", "exit"});
  ProcessSpec out;
  if (!p["pid"]) in.fail(p, "a process needs a pid");
  out.pid = in.whole(p["pid"], "pid");
  if (p["ppid"]) out.ppid = in.whole(p["ppid"], "ppid");
  if (p["gpu"]) out.gpu = in.whole(p["gpu"], "gpu");
  if (out.gpu >= sc.devices.size())
    in.fail(p["gpu"] ? p["gpu"] : p,
            "gpu index out of range (the scenario has " + std::to_string(sc.devices.size()) + " GPUs)");
  const DeviceSpec& dev = sc.devices[out.gpu];
  if (p["mig"]) {
    out.mig = static_cast<int>(in.whole(p["mig"], "mig instance index"));
    if (static_cast<std::size_t>(out.mig) >= dev.mig.size())
      in.fail(p["mig"], "mig instance index out of range for this GPU");
  }
  if (const auto c = p["cmdline"])
    out.cmdline = c.IsSequence() ? in.text_list(c, "cmdline") : std::vector<std::string>{};
  if (p["cmdline"] && p["cmdline"].IsScalar()) {
    std::istringstream words(p["cmdline"].Scalar());
    for (std::string w; words >> w;) out.cmdline.push_back(w);
  }
  if (p["name"]) out.name = in.text(p["name"], "name");
  if (out.name.empty() && !out.cmdline.empty())
    out.name = out.cmdline.front().substr(out.cmdline.front().rfind('/') + 1);
  if (out.name.empty()) out.name = "process";
  if (out.cmdline.empty()) out.cmdline.push_back(out.name);
  if (p["start"]) out.start = in.seconds(p["start"]);
  if (p["stop"]) out.stop = in.seconds_or_forever(p["stop"]);
  if (out.stop <= out.start) in.fail(p["stop"], "stop must come after start");
  if (p["memory"]) out.memory = read_shape(in, p["memory"], ShapeUnit::kBytes);
  if (p["sm_util"]) out.sm_util = read_shape(in, p["sm_util"], ShapeUnit::kPercent);
  if (p["pcie_rx"]) out.pcie_rx = read_shape(in, p["pcie_rx"], ShapeUnit::kBytesPerSecond);
  if (p["pcie_tx"]) out.pcie_tx = read_shape(in, p["pcie_tx"], ShapeUnit::kBytesPerSecond);
  if (const auto t = p["type"]) {
    const std::string s = in.text(t, "type");
    if (s != "compute" && s != "graphics")
      in.fail(t, "expected type 'compute' or 'graphics', got '" + s + "'");
    out.type = s == "graphics" ? ProcessType::kGraphics : ProcessType::kCompute;
  }
  if (const auto u = p["user"]) {
    out.user = in.text(u, "user");
    if (out.user.empty() || out.user.find_first_of(":\n") != std::string::npos)
      in.fail(u, "a user name must not be empty nor hold ':' or a line break");
  }
  if (p["uid"]) out.uid = in.whole(p["uid"], "uid");
  if (p["cgroup"]) out.cgroup = in.text(p["cgroup"], "cgroup");
  if (p["pod"]) out.pod = in.text(p["pod"], "pod");
  if (p["container"]) out.container = in.text(p["container"], "container");
  if (p["slurm_job"]) out.slurm_job = in.text(p["slurm_job"], "slurm_job");
  if (p["libraries"]) out.libraries = in.text_list(p["libraries"], "libraries");
  if (const auto e = p["exit"]) {
    const std::string s = in.text(e, "exit");
    if (s != "normal" && s != "oom" && s != "killed")
      in.fail(e, "expected exit 'normal', 'oom' or 'killed', got '" + s + "'");
    out.exit = s == "oom" ? ProcessExit::kOom : s == "killed" ? ProcessExit::kKilled : ProcessExit::kNormal;
  }
  return out;
}

// A user named without a uid gets the first uid from 1001 up that no process has by its own `uid`; a name
// has one uid, a uid one name.
void assign_uids(const YamlReader& in, const YAML::Node& procs, Scenario& sc) {
  std::set<unsigned> taken = {1000};  // what a process without user and uid runs as
  std::map<std::string, unsigned> uid_of;
  std::map<unsigned, std::string> user_of;
  auto pair_up = [&](const YAML::Node& at, const ProcessSpec& p) {
    if (const auto [it, fresh] = uid_of.emplace(p.user, p.uid); !fresh && it->second != p.uid)
      in.fail(at, "user " + p.user + " has two uids, " + std::to_string(it->second) + " and " +
                      std::to_string(p.uid));
    if (const auto [it, fresh] = user_of.emplace(p.uid, p.user); !fresh && it->second != p.user)
      in.fail(at, "uid " + std::to_string(p.uid) + " is both " + it->second + " and " + p.user);
  };
  for (std::size_t i = 0; i < sc.processes.size(); ++i) {
    if (!procs[i]["uid"]) continue;
    taken.insert(sc.processes[i].uid);
    if (!sc.processes[i].user.empty()) pair_up(procs[i]["uid"], sc.processes[i]);
  }
  unsigned next = 1001;
  for (std::size_t i = 0; i < sc.processes.size(); ++i) {
    ProcessSpec& p = sc.processes[i];
    if (p.user.empty() || procs[i]["uid"]) continue;
    if (const auto known = uid_of.find(p.user); known != uid_of.end()) {
      p.uid = known->second;
      continue;
    }
    while (taken.contains(next) || user_of.contains(next)) ++next;
    p.uid = next;
    pair_up(procs[i]["user"], p);
  }
}

Scenario parse(const YAML::Node& root, const YamlReader& in, const std::string& name) {
  Scenario sc;
  sc.source = name;
  if (root.IsNull())
    throw ScenarioError(name + ":1:1: the scenario is empty; expected keys node, devices, processes, faults");
  if (!root.IsMap()) in.fail(root, "expected a scenario map with keys node, devices, processes, faults");
  // `gpuwatch:` holds the agent's settings for the game day (scrape targets): the agent reads it.
  in.expect_map(root, "the scenario",
                {"node", "devices", "pcie_switches", "pods", "processes", "faults", "services", "gpuwatch"});
  if (root["node"]) read_node(in, root["node"], sc.node);
  if (!root["devices"]) in.fail(root, "a scenario needs a devices list");
  read_devices(in, root["devices"], sc);
  if (const auto sw = root["pcie_switches"]; sw && !sw.IsNull()) read_pcie_switches(in, sw, sc);
  if (const auto pods = root["pods"]; pods && !pods.IsNull()) read_pods(in, pods, sc);
  if (const auto procs = root["processes"]; procs && !procs.IsNull()) {
    in.expect_list(procs, "processes");
    std::set<unsigned> pids;
    for (const auto& p : procs) {
      sc.processes.push_back(read_process(in, p, sc));
      if (!pids.insert(sc.processes.back().pid).second)
        in.fail(p["pid"], "pid " + std::to_string(sc.processes.back().pid) + " is listed twice");
    }
    assign_uids(in, procs, sc);
    assign_workload_cgroups(in, procs, sc);
  }
  if (root["faults"] && !root["faults"].IsNull()) sc.faults = read_faults(in, root["faults"], sc);
  if (root["services"] && !root["services"].IsNull()) {
    sc.services = std::make_shared<const std::vector<ServiceSpec>>(read_services(in, root["services"], sc));
  }
  return sc;
}

Scenario parse_text(const std::string& yaml, const std::string& name) {
  const YamlReader in(name);
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::ParserException& e) {
    throw ScenarioError(name + ":" + std::to_string(e.mark.line + 1) + ":" +
                        std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  // The first repeated key, where it is: the reader would see only one of its values.
  if (const auto duplicates = find_duplicate_keys(root); !duplicates.empty()) {
    const auto& d = duplicates.front();
    throw ScenarioError(name + ":" + std::to_string(d.at.line + 1) + ":" + std::to_string(d.at.column + 1) +
                        ": " + d.message());
  }
  try {
    return parse(root, in, name);
  } catch (const YAML::Exception& e) {  // conversions the reader did not anticipate still say where
    throw ScenarioError(name + ":" + std::to_string(e.mark.line + 1) + ":" +
                        std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
}

}  // namespace

std::vector<MigInstance> read_mig_instances(const YamlReader& in, const YAML::Node& list,
                                            const GpuModel& model) {
  if (model.mig_profiles.empty())
    in.fail(list, "model " + std::string(model.key) + " does not support MIG (A100, H100 and H200 do)");
  in.expect_list(list, "mig instances");
  std::vector<MigInstance> out;
  unsigned slices = 0;
  std::set<unsigned> used_ids;
  for (const auto& item : list) {
    const std::string name = in.text(item, "a MIG profile like 3g.40gb");
    const MigProfile* p = find_mig_profile(model, name);
    if (!p) {
      std::string known;
      for (const auto& q : model.mig_profiles) known += (known.empty() ? "" : ", ") + std::string(q.name);
      in.fail(item,
              "unknown MIG profile '" + name + "' for " + std::string(model.key) + " (known: " + known + ")");
    }
    slices += p->slices;
    if (slices > 7) in.fail(item, "MIG instances use more than the 7 compute slices of the GPU");
    MigInstance inst{p, 0};
    for (unsigned id : gpu_instance_ids_for(p->slices)) {
      if (used_ids.insert(id).second) {
        inst.gpu_instance_id = id;
        break;
      }
    }
    out.push_back(inst);
  }
  return out;
}

Scenario load_scenario_file(const std::string& path) {
  const auto text = read_file(path);
  if (!text) throw ScenarioError(path + ": cannot open the scenario file");
  return parse_text(*text, path);
}

Scenario load_scenario_text(const std::string& yaml, const std::string& name) {
  return parse_text(yaml, name);
}

Scenario builtin_scenario() {
  return load_scenario_text(
      "node: {hostname: sim-node}\n"
      "devices:\n"
      "  - model: H200\n"
      "    workload:\n"
      "      utilization: {value: 60, periodic: {period: 10m, amplitude: 20}, noise: 5, max: 100}\n"
      "processes:\n"
      "  - {pid: 4242, gpu: 0, name: python3, cmdline: python3 train.py, memory: 60GiB}\n",
      "built-in");
}

}  // namespace gpuwatch::sim
