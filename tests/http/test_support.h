// Helpers shared by the http tests: golden files and promtool.
#pragma once

#include <string>
#include <vector>

namespace gpuwatch::testing {

// Compares `actual` with tests/http/golden/<name>; with GPUWATCH_UPDATE_GOLDEN=1 in the environment it
// rewrites the golden file instead (review the diff before committing it).
void expect_golden(const std::string& name, const std::string& actual);

std::string read_file(const std::string& path);

struct PromtoolResult {
  int exit_code = -1;
  std::vector<std::string> lines;  // every line promtool printed (stdout and stderr)
};

// Runs `promtool check metrics` on `text`.
PromtoolResult promtool_check_metrics(const std::string& text);

}  // namespace gpuwatch::testing
