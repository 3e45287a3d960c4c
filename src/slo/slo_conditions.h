// The SLO sink's latest conditions, handed to the detection sink's evaluation: the alert engine takes every
// condition that holds in one call, so the SLOs' alerts go through the same engine (silences, inhibition,
// Alertmanager) without the SLO sink resolving the detectors' alerts, or the detectors the SLOs'.
#pragma once

#include <mutex>
#include <vector>

#include "core/condition.h"

namespace gpuwatch::slo {

class SloConditions {
 public:
  void post(std::vector<Condition> conditions) {
    std::lock_guard lock(mu_);
    conditions_ = std::move(conditions);
  }
  std::vector<Condition> latest() const {
    std::lock_guard lock(mu_);
    return conditions_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Condition> conditions_;
};

}  // namespace gpuwatch::slo
