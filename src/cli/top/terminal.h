// The terminal while top runs, and the boundary to the terminal module (gpuwatch-terminal.so: ncurses), which
// `gpuwatch top` loads with dlopen when it starts, so that the agent and every other command map neither
// ncurses nor its terminfo library. The terminal is the alternate screen without echo or a cursor, colours
// where the terminal has them, keys read with a timeout; destroying it gives the terminal back as it was (on
// quit, on SIGINT/SIGTERM, on an exception), so a shell after top is never left without echo.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "cli/top/renderer.h"
#include "cli/top/screen.h"

namespace gpuwatch::top {

class Terminal {
 public:
  virtual ~Terminal() = default;
  virtual ScreenSize size() const = 0;
  virtual void paint(const Screen& screen) = 0;
  // The next key as ncurses codes it (<curses.h>: KEY_RESIZE after the terminal changed size), or ERR when
  // none came within `wait`.
  virtual int read_key(std::chrono::milliseconds wait) = 0;
};

// The module's entry point: sets *out to the terminal, or *error to why there is none (standard output is no
// terminal, $TERM is unknown).
using OpenTerminal = void(std::unique_ptr<Terminal>* out, std::string* error);
inline constexpr const char* kOpenTerminalSymbol = "gpuwatch_terminal_open_v1";
inline constexpr const char* kTerminalModuleFileName = "gpuwatch-terminal.so";

// Loads module_path ("" = the default gpuwatch-terminal.so, default_module_path) and opens the terminal with
// it; the module stays loaded while the terminal lives. Throws std::runtime_error: "module_missing: " and the
// loader's message, or why the terminal cannot be drawn on.
std::shared_ptr<Terminal> open_terminal(const std::string& module_path = "");

}  // namespace gpuwatch::top
