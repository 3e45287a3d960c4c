// Serves the simulator's model servers (a scenario's `services:`) over HTTP on loopback, one listener per
// service, each answering GET /metrics with the text libnvml-sim renders for that moment of scenario time, so
// the agent (or a real Prometheus) scrapes them as it would Triton, vLLM or TGI. While a service's GPU is
// lost its listener is closed: connections are refused. Writes the listening sockets into a fake proc tree
// (<pid>/net/tcp rows and <pid>/fd socket links of the service's process), so discovery finds them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sources/nvml/nvml_library.h"

namespace gpuwatch {

struct SimService {
  unsigned index = 0;
  unsigned pid = 0;
  std::string kind;   // triton, vllm, tgi
  unsigned port = 0;  // the bound port
};

class SimServices {
 public:
  // library: libnvml-sim, initialised by the caller. any_port: bind free ports instead of the scenario's
  // (tests running side by side). Throws std::runtime_error when a port cannot be bound.
  SimServices(std::shared_ptr<const NvmlLibrary> library, bool any_port);
  ~SimServices();  // stops serving
  SimServices(const SimServices&) = delete;
  SimServices& operator=(const SimServices&) = delete;

  const std::vector<SimService>& services() const { return services_; }
  // Adds the sockets to the proc tree at dir (written by `sim proc-tree`); false when it cannot.
  bool write_proc_sockets(const std::string& dir) const;

 private:
  struct Listener;
  std::shared_ptr<const NvmlLibrary> library_;
  std::vector<SimService> services_;
  std::vector<std::unique_ptr<Listener>> listeners_;
};

}  // namespace gpuwatch
