#include "rules/tunable.h"

namespace gpuwatch::rules {

std::string Tunable::key() const {
  if (!option_key.empty()) return std::string(option_key);
  return "detect." + std::string(detector) + "." + std::string(name);
}

}  // namespace gpuwatch::rules
