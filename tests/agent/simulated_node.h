// The agent's options for the simulator's healthy 8 x H200 node on loopback (a port the system picks), with
// no history and no kernel log unless a test sets them.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "agent/collector_setup.h"
#include "config/agent_options.h"

namespace gpuwatch::test {

inline AgentOptions simulated_node(std::chrono::milliseconds interval) {
  AgentOptions o;
  o.listen = "127.0.0.1:0";
  o.interval = interval;
  o.store = false;
  o.kmsg = "";
  o.sim_scenario = std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/healthy-8xh200.yaml";
  o.nvml_library = std::string(GPUWATCH_BINARY_DIR) + "/sim-lib/libnvidia-ml.so.1";
  EXPECT_EQ(prepare_simulator(o), "");
  return o;
}

}  // namespace gpuwatch::test
