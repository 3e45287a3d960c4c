// A model server of a scenario (`services:`, docs/scenario-format.md): which kind of server (the metric names
// and shapes of Triton, vLLM or TGI), the scenario process that runs it (and so its GPU), its loopback port,
// its traffic over time, its latency and errors on a healthy GPU, and its own faults.
#pragma once

#include <string>
#include <vector>

#include "sim/scenario.h"

namespace gpuwatch::sim {

enum class ServiceKind { kTriton, kVllm, kTgi };

struct ServiceFault {
  enum class Kind { kBadDeploy, kTrafficSpike };
  Kind kind = Kind::kBadDeploy;
  double at = 0;
  double duration = kForever;
  double errors = 0.5;  // bad_deploy: the share of requests that fail
  double factor = 3;    // traffic_spike: traffic times this
  bool active(double t) const { return t >= at && t < at + duration; }
};

struct ServiceSpec {
  std::string model;  // the model served (its model / model_name label)
  ServiceKind kind = ServiceKind::kVllm;
  unsigned pid = 0;  // a scenario process: the service runs on its GPU
  unsigned gpu = 0;  // that process's GPU
  unsigned port = 0;
  Shape traffic;            // requests per second
  double latency_s = 0.5;   // median end-to-end latency on a healthy, uncontended GPU at light load
  double errors = 0.001;    // share of requests that fail on a healthy GPU
  double capacity_rps = 0;  // requests per second it serves at full clocks before queueing (0: 2x traffic)
  std::vector<ServiceFault> faults;
};

std::string_view to_string(ServiceKind kind);

}  // namespace gpuwatch::sim
