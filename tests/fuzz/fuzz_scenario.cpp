// Simulator scenarios: any text gives a scenario or a ScenarioError starting with file:line:column.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "sim/scenario_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16384) return -1;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)gpuwatch::sim::load_scenario_text(text, "fuzz.yaml");
  } catch (const gpuwatch::sim::ScenarioError& e) {
    if (std::string(e.what()).rfind("fuzz.yaml:", 0) != 0) __builtin_trap();  // every error says where
  }
  return 0;
}
