// A Family for a row of the metric catalogue: the one way the agent's parts (the store's health, the
// sinks, the HTTP server, the snapshot's renderer) make the families they put on /metrics.
#pragma once

#include "core/metric_catalogue.h"
#include "exposition/exposition.h"

namespace gpuwatch {

// The catalogue row's name, type, unit and help, with no series yet.
Family catalogue_family(const MetricDef& def);
Family catalogue_family(Metric m);

// The row with one unlabelled series of `value`.
Family single_value_family(Metric m, double value);

}  // namespace gpuwatch
