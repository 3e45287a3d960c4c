// The SLOs' figures on /metrics (and so in the history, as the sinks' families are): objective, SLI and burn
// rate per window, budget remaining and the alert state, one series set per SLO labelled slo and service,
// from the status the SLO sink's last evaluation left. Not catalogue rows (those are the snapshot's): the
// names follow its conventions, and docs/metrics.md lists them (http/metrics_reference.cpp).
#pragma once

#include <span>
#include <vector>

#include "exposition/exposition.h"
#include "slo/slo_engine.h"

namespace gpuwatch::slo {

std::vector<Family> slo_families(std::span<const SloStatus> status);

}  // namespace gpuwatch::slo
