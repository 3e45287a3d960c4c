// What `gpuwatch import` prints: a progress bar when stderr is a terminal (bytes read of the total,
// samples/s), nothing of the kind otherwise (logs and CI keep only the errors and the summary), and the
// summary at the end.
#pragma once

#include <chrono>
#include <ostream>

#include "ingest/importer.h"

namespace gpuwatch {

class ImportProgressPrinter {
 public:
  // Redraws one line of `out`, a terminal, in place about 10 times a second.
  explicit ImportProgressPrinter(std::ostream& out) : out_(out) {}
  void update(const ingest::ImportProgress& p);
  void finish();  // ends the bar's line

 private:
  std::ostream& out_;
  bool drawn_ = false;
  double last_seconds_ = -1;
};

void print_import_summary(std::ostream& out, const ingest::ImportSummary& s);

}  // namespace gpuwatch
