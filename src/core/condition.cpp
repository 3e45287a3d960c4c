#include "core/condition.h"

namespace gpuwatch {

std::string_view severity_name(Severity s) {
  return s == Severity::kPage ? "page" : "ticket";
}

}  // namespace gpuwatch
