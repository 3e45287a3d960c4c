#include "alerting/condition.h"

namespace gpuwatch::alerting {

std::string_view severity_name(Severity s) {
  return s == Severity::kPage ? "page" : "ticket";
}

}  // namespace gpuwatch::alerting
