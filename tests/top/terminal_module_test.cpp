// top's terminal comes from the terminal module (gpuwatch-terminal.so, ncurses), loaded with dlopen: a
// missing module or a standard output that is no terminal is a clear error, not a crash. The drawing itself
// is tested under tmux (top_tmux_test.py).
#include <gtest/gtest.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "cli/top/terminal.h"

namespace gpuwatch::top {
namespace {

std::string open_error(const std::string& module_path) {
  try {
    open_terminal(module_path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(TerminalModule, AMissingModuleIsRefusedWithItsPath) {
  const std::string why = open_error("/nonexistent/gpuwatch-terminal.so");
  EXPECT_EQ(why.rfind("module_missing: ", 0), 0u) << why;
  EXPECT_NE(why.find("/nonexistent/gpuwatch-terminal.so"), std::string::npos) << why;
}

TEST(TerminalModule, ALibraryWithoutTheEntryPointIsRefused) {
  // A shared library that loads but is not the terminal module.
  const std::string why = open_error(GPUWATCH_NOT_A_TERMINAL_MODULE);
  EXPECT_EQ(why.rfind("module_missing: ", 0), 0u) << why;
  EXPECT_NE(why.find("gpuwatch_terminal_open_v1"), std::string::npos) << why;
}

TEST(TerminalModule, TheModuleLoadsAndRefusesAnOutputThatIsNoTerminal) {
  // ctest runs the test with its output to a pipe: the module's own check answers, through dlopen.
  if (isatty(STDOUT_FILENO) == 1 && isatty(STDIN_FILENO) == 1) GTEST_SKIP() << "run on a terminal";
  EXPECT_EQ(open_error(GPUWATCH_TERMINAL_MODULE),
            "top draws on a terminal: standard input and output must be one");
}

}  // namespace
}  // namespace gpuwatch::top
