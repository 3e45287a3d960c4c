// A problem in an SLO file, with where it is: "file:line:column: message".
#pragma once

#include <stdexcept>
#include <string>

namespace gpuwatch::slo {

class SpecError : public std::runtime_error {
 public:
  SpecError(const std::string& file, int line, int column, const std::string& message)
      : std::runtime_error(file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " +
                           message) {}
};

}  // namespace gpuwatch::slo
