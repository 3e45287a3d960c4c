// Loading scenarios: from a YAML file, from YAML text, or the built-in default (one healthy H200).
// Every error is a ScenarioError whose message starts with file:line:column.
#pragma once

#include <string>

#include "sim/scenario.h"
#include "sim/yaml_reader.h"

namespace gpuwatch::sim {

Scenario load_scenario_file(const std::string& path);
Scenario load_scenario_text(const std::string& yaml, const std::string& name);
Scenario builtin_scenario();

// Parts of the loader shared between its files.
// What a shape's plain values are read as (kCount: plain numbers without a ceiling, like requests/s).
enum class ShapeUnit { kPercent, kBytes, kBytesPerSecond, kCount };
Shape read_shape(const YamlReader& in, const YAML::Node& node, ShapeUnit unit);
std::vector<MigInstance> read_mig_instances(const YamlReader& in, const YAML::Node& list,
                                            const GpuModel& model);
std::vector<Fault> read_faults(const YamlReader& in, const YAML::Node& node, const Scenario& scenario);
std::vector<ServiceSpec> read_services(const YamlReader& in, const YAML::Node& node,
                                       const Scenario& scenario);
// pods_loader.cpp: the `pods:` section, and the cgroup paths of processes that name a pod or Slurm job.
void read_pods(const YamlReader& in, const YAML::Node& list, Scenario& sc);
void assign_workload_cgroups(const YamlReader& in, const YAML::Node& procs, Scenario& sc);

}  // namespace gpuwatch::sim
