// The lines of a command's output, for the tests that read it row by row.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace gpuwatch::test {

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace gpuwatch::test
