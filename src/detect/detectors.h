// One factory per failure mode; detector_set.cpp lists them in its table. Each detector's file says what it
// watches, its rule, and the alert names it raises (each has docs/runbooks/<alertname>.md).
#pragma once

#include <memory>

#include "detect/detector.h"
#include "rules/detector_settings.h"

namespace gpuwatch::detect {

// Each detector's settings live in the rule book (src/rules/<detector>_settings.h): the health verdict and
// the option table read them too.
using rules::EccSettings;
using rules::FabricSettings;
using rules::IdleSettings;
using rules::LeakSettings;
using rules::LostSettings;
using rules::NodeContentionSettings;
using rules::NoisyNeighbourSettings;
using rules::OomForecastSettings;
using rules::PcieContentionSettings;
using rules::PcieSettings;
using rules::ProbableOomSettings;
using rules::ThrottleSettings;
using rules::XidSettings;
using std::chrono::milliseconds;

std::unique_ptr<Detector> make_xid_detector(const XidSettings& s);
std::unique_ptr<Detector> make_gpu_lost_detector(const LostSettings& s);
std::unique_ptr<Detector> make_throttle_detector(const ThrottleSettings& s);
std::unique_ptr<Detector> make_ecc_detector(const EccSettings& s);
std::unique_ptr<Detector> make_pcie_detector(const PcieSettings& s);
std::unique_ptr<Detector> make_oom_forecast_detector(const OomForecastSettings& s);
std::unique_ptr<Detector> make_probable_oom_detector(const ProbableOomSettings& s);
std::unique_ptr<Detector> make_memory_leak_detector(const LeakSettings& s);
std::unique_ptr<Detector> make_version_mismatch_detector();
std::unique_ptr<Detector> make_idle_waste_detector(const IdleSettings& s);
std::unique_ptr<Detector> make_noisy_neighbour_detector(const NoisyNeighbourSettings& s);
std::unique_ptr<Detector> make_node_contention_detector(const NodeContentionSettings& s);
std::unique_ptr<Detector> make_pcie_contention_detector(const PcieContentionSettings& s);
std::unique_ptr<Detector> make_fabric_detector(const FabricSettings& s);
std::unique_ptr<Detector> make_watchdog_detector();

}  // namespace gpuwatch::detect
