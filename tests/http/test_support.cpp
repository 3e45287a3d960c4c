#include "test_support.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

namespace gpuwatch::testing {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(GPUWATCH_SOURCE_DIR) + "/tests/http/golden/" + name;
  const char* update = std::getenv("GPUWATCH_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  const std::string expected = read_file(path);
  ASSERT_FALSE(expected.empty()) << "missing golden file " << path << " (run with GPUWATCH_UPDATE_GOLDEN=1)";
  EXPECT_EQ(expected, actual) << "rendering differs from " << path
                              << "; if the change is intended, rerun with GPUWATCH_UPDATE_GOLDEN=1";
}

PromtoolResult promtool_check_metrics(const std::string& text) {
  PromtoolResult r;
  const std::string promtool = "/usr/bin/promtool";
  if (::access(promtool.c_str(), X_OK) != 0) {
    r.lines.push_back(promtool +
                      " is missing: install the Debian package prometheus (scripts/install-deps.sh)");
    return r;
  }
  const std::string path = std::string(GPUWATCH_BINARY_DIR) + "/tests/http/promtool-input-" +
                           std::to_string(::getpid()) + "-" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".txt";
  std::ofstream(path, std::ios::binary) << text;
  const std::string command = promtool + " check metrics < '" + path + "' 2>&1";
  std::unique_ptr<FILE, decltype(&::pclose)> pipe(::popen(command.c_str(), "r"), &::pclose);
  std::string output;
  std::array<char, 4096> buf{};
  while (pipe && std::fgets(buf.data(), buf.size(), pipe.get())) output += buf.data();
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) r.lines.push_back(line);
  }
  if (pipe) {
    // pclose through the unique_ptr would discard the status: take it here.
    const int status = ::pclose(pipe.release());
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::remove(path.c_str());
  return r;
}

}  // namespace gpuwatch::testing
