#include "accounting/cost_report_json.h"

namespace gpuwatch::accounting {
namespace {

using nlohmann::json;

json states_json(const StateFigures& s) {
  json hours = json::object(), cost = json::object();
  for (std::size_t i = 0; i < kGpuStates.size(); ++i) {
    hours[std::string(state_name(kGpuStates[i]))] = s.hours[i];
    cost[std::string(state_name(kGpuStates[i]))] = s.cost[i];
  }
  return {{"hours", hours}, {"cost", cost}};
}

StateFigures states_from(const json& j) {
  StateFigures s;
  for (std::size_t i = 0; i < kGpuStates.size(); ++i) {
    const std::string name(state_name(kGpuStates[i]));
    s.hours[i] = j.at("hours").value(name, 0.0);
    s.cost[i] = j.at("cost").value(name, 0.0);
  }
  return s;
}

}  // namespace

json to_json(const CostReport& r) {
  json gpus = json::array();
  for (const auto& g : r.gpus) {
    json j = {{"gpu", g.gpu}, {"uuid", g.uuid}, {"model", g.model}, {"states", states_json(g.states)}};
    if (!g.gpu_instance_id.empty()) j["gpu_instance_id"] = g.gpu_instance_id;
    j["mean_utilization"] = g.mean_utilization ? json(*g.mean_utilization) : json(nullptr);
    gpus.push_back(std::move(j));
  }
  json workloads = json::array();
  for (const auto& w : r.workloads) {
    workloads.push_back({{"name", w.name()},
                         {"namespace", w.namespace_name},
                         {"pod", w.pod},
                         {"container", w.container},
                         {"slurm_job", w.slurm_job},
                         {"user", w.user},
                         {"team", w.team},
                         {"active_hours", w.active_hours},
                         {"idle_held_hours", w.idle_held_hours},
                         {"active_cost", w.active_cost},
                         {"idle_held_cost", w.idle_held_cost}});
  }
  const auto groups = [](const std::vector<GroupFigures>& in, const char* key) {
    json out = json::array();
    for (const auto& g : in) {
      out.push_back({{key, g.name},
                     {"active_hours", g.active_hours},
                     {"idle_held_hours", g.idle_held_hours},
                     {"active_cost", g.active_cost},
                     {"idle_held_cost", g.idle_held_cost}});
    }
    return out;
  };
  json utilization = json::array();
  for (const auto& u : r.utilization) utilization.push_back({u.t_ms, u.mean});
  return {{"start_ms", r.start_ms},
          {"end_ms", r.end_ms},
          {"node", states_json(r.node)},
          {"gpus", gpus},
          {"workloads", workloads},
          {"teams", groups(r.teams, "team")},
          {"namespaces", groups(r.namespaces, "namespace")},
          {"opencost",
           {{"allocated_hours", r.opencost.allocated_hours},
            {"allocated_cost", r.opencost.allocated_cost},
            {"idle_hours", r.opencost.idle_hours},
            {"idle_cost", r.opencost.idle_cost}}},
          {"utilization", utilization},
          {"low_utilization_below", r.low_utilization_below},
          {"low_utilization_gpus", r.low_utilization_gpus}};
}

CostReport cost_report_from_json(const json& d) {
  CostReport r;
  r.start_ms = d.at("start_ms").get<std::int64_t>();
  r.end_ms = d.at("end_ms").get<std::int64_t>();
  r.node = states_from(d.at("node"));
  for (const auto& g : d.at("gpus")) {
    GpuFigures f{g.at("gpu").get<std::string>(),   g.at("uuid").get<std::string>(),
                 g.at("model").get<std::string>(), g.value("gpu_instance_id", std::string()),
                 states_from(g.at("states")),      std::nullopt};
    if (!g.at("mean_utilization").is_null()) f.mean_utilization = g.at("mean_utilization").get<double>();
    r.gpus.push_back(std::move(f));
  }
  for (const auto& w : d.at("workloads")) {
    r.workloads.push_back({w.at("namespace").get<std::string>(), w.at("pod").get<std::string>(),
                           w.at("container").get<std::string>(), w.at("slurm_job").get<std::string>(),
                           w.at("user").get<std::string>(), w.at("team").get<std::string>(),
                           w.at("active_hours").get<double>(), w.at("idle_held_hours").get<double>(),
                           w.at("active_cost").get<double>(), w.at("idle_held_cost").get<double>()});
  }
  const auto groups = [&](const char* list, const char* key) {
    std::vector<GroupFigures> out;
    // An agent from before namespaces were reported answers without them.
    if (!d.contains(list)) return out;
    for (const auto& g : d.at(list)) {
      out.push_back({g.at(key).get<std::string>(), g.at("active_hours").get<double>(),
                     g.at("idle_held_hours").get<double>(), g.at("active_cost").get<double>(),
                     g.at("idle_held_cost").get<double>()});
    }
    return out;
  };
  r.teams = groups("teams", "team");
  r.namespaces = groups("namespaces", "namespace");
  const auto& oc = d.at("opencost");
  r.opencost = {oc.at("allocated_hours").get<double>(), oc.at("allocated_cost").get<double>(),
                oc.at("idle_hours").get<double>(), oc.at("idle_cost").get<double>()};
  for (const auto& u : d.at("utilization"))
    r.utilization.push_back({u.at(0).get<std::int64_t>(), u.at(1).get<double>()});
  r.low_utilization_below = d.at("low_utilization_below").get<double>();
  r.low_utilization_gpus = d.at("low_utilization_gpus").get<std::vector<std::string>>();
  return r;
}

}  // namespace gpuwatch::accounting
