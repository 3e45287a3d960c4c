// Prints docs/metrics.md: build/tests/http/metrics_doc > docs/metrics.md
#include <iostream>

#include "http/metrics_reference.h"

int main() {
  std::cout << gpuwatch::metrics_reference_markdown();
  return 0;
}
