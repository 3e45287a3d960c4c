#include "exposition/catalogue_family.h"

namespace gpuwatch {

Family catalogue_family(const MetricDef& def) {
  return Family{def.name,
                def.kind == MetricKind::kCounter ? FamilyType::kCounter : FamilyType::kGauge,
                def.unit,
                def.help,
                {}};
}

Family catalogue_family(Metric m) {
  return catalogue_family(metric_def(m));
}

Family single_value_family(Metric m, double value) {
  Family f = catalogue_family(m);
  f.series.push_back(Series{{}, value});
  return f;
}

}  // namespace gpuwatch
