// The scenario's `services:` list (sim/service_spec.h), every problem at file:line:column.
#include <set>

#include "sim/scenario_loader.h"
#include "sim/service_spec.h"

namespace gpuwatch::sim {

std::string_view to_string(ServiceKind kind) {
  switch (kind) {
    case ServiceKind::kTriton:
      return "triton";
    case ServiceKind::kVllm:
      return "vllm";
    case ServiceKind::kTgi:
      return "tgi";
  }
  return "vllm";
}

namespace {

ServiceFault read_service_fault(const YamlReader& in, const YAML::Node& node) {
  in.expect_map(node, "a service fault", {"type", "at", "duration", "errors", "factor"});
  ServiceFault f;
  if (!node["type"]) in.fail(node, "a service fault needs a type (bad_deploy or traffic_spike)");
  const std::string kind = in.text(node["type"], "type");
  if (kind == "bad_deploy") {
    f.kind = ServiceFault::Kind::kBadDeploy;
  } else if (kind == "traffic_spike") {
    f.kind = ServiceFault::Kind::kTrafficSpike;
  } else {
    in.fail(node["type"], "expected a service fault type bad_deploy or traffic_spike, got '" + kind + "'");
  }
  if (!node["at"]) in.fail(node, "a service fault needs 'at' (when it starts, like 5m)");
  f.at = in.seconds(node["at"]);
  if (node["duration"]) f.duration = in.seconds_or_forever(node["duration"]);
  if (node["errors"]) {
    f.errors = in.number(node["errors"], "errors");
    if (f.errors < 0 || f.errors > 1) in.fail(node["errors"], "expected errors as a share between 0 and 1");
  }
  if (node["factor"]) {
    f.factor = in.number(node["factor"], "factor");
    if (f.factor <= 0) in.fail(node["factor"], "expected factor > 0");
  }
  return f;
}

}  // namespace

std::vector<ServiceSpec> read_services(const YamlReader& in, const YAML::Node& node, const Scenario& sc) {
  in.expect_list(node, "services");
  std::vector<ServiceSpec> out;
  std::set<unsigned> ports;
  for (const auto& item : node) {
    in.expect_map(item, "a service",
                  {"model", "kind", "pid", "port", "traffic", "latency", "errors", "capacity", "faults"});
    ServiceSpec s;
    if (!item["kind"]) in.fail(item, "a service needs a kind (triton, vllm or tgi)");
    const std::string kind = in.text(item["kind"], "kind");
    if (kind == "triton") {
      s.kind = ServiceKind::kTriton;
    } else if (kind == "vllm") {
      s.kind = ServiceKind::kVllm;
    } else if (kind == "tgi") {
      s.kind = ServiceKind::kTgi;
    } else {
      in.fail(item["kind"], "expected a service kind triton, vllm or tgi, got '" + kind + "'");
    }
    if (!item["model"]) in.fail(item, "a service needs the model it serves ('model')");
    s.model = in.text(item["model"], "model");
    if (!item["pid"]) in.fail(item, "a service needs the pid of the scenario process that runs it");
    s.pid = in.whole(item["pid"], "pid");
    bool found = false;
    for (const auto& p : sc.processes) {
      if (p.pid != s.pid) continue;
      s.gpu = p.gpu;
      found = true;
    }
    if (!found)
      in.fail(item["pid"], "no process with pid " + std::to_string(s.pid) + " in the scenario's processes");
    if (!item["port"]) in.fail(item, "a service needs its loopback port ('port')");
    s.port = in.whole(item["port"], "port");
    if (s.port == 0 || s.port > 65535) in.fail(item["port"], "expected a port between 1 and 65535");
    if (!ports.insert(s.port).second)
      in.fail(item["port"], "port " + std::to_string(s.port) + " is used twice");
    if (!item["traffic"]) in.fail(item, "a service needs its traffic (requests per second, a shape)");
    s.traffic = read_shape(in, item["traffic"], ShapeUnit::kCount);
    if (item["latency"]) {
      s.latency_s = in.seconds(item["latency"]);
      if (s.latency_s <= 0) in.fail(item["latency"], "expected a latency > 0, like 800ms");
    }
    if (item["errors"]) {
      s.errors = in.number(item["errors"], "errors");
      if (s.errors < 0 || s.errors > 1) in.fail(item["errors"], "expected errors as a share between 0 and 1");
    }
    if (item["capacity"]) {
      s.capacity_rps = in.number(item["capacity"], "capacity");
      if (s.capacity_rps <= 0) in.fail(item["capacity"], "expected a capacity in requests per second > 0");
    }
    if (const auto faults = item["faults"]; faults && !faults.IsNull()) {
      in.expect_list(faults, "service faults");
      for (const auto& f : faults) s.faults.push_back(read_service_fault(in, f));
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace gpuwatch::sim
