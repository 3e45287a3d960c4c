// What `gpuwatch import` prints: a progress bar on a terminal (bytes read of the total, samples/s), plain
// periodic lines otherwise (logs, CI), and the summary at the end.
#pragma once

#include <chrono>
#include <ostream>

#include "ingest/importer.h"

namespace gpuwatch {

class ImportProgressPrinter {
 public:
  // `terminal`: redraw one line in place about 10 times a second; otherwise a line every 5 s.
  ImportProgressPrinter(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {}
  void update(const ingest::ImportProgress& p);
  void finish();  // ends the bar's line

 private:
  std::ostream& out_;
  bool terminal_;
  bool drawn_ = false;
  double last_seconds_ = -1;
};

void print_import_summary(std::ostream& out, const ingest::ImportSummary& s);

}  // namespace gpuwatch
