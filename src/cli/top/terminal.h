// The terminal while top runs, through ncurses: the alternate screen without echo or a cursor, colours where
// the terminal has them, keys read with a timeout. The destructor gives the terminal back as it was (on
// quit, on SIGINT/SIGTERM, on an exception), so a shell after top is never left without echo.
#pragma once

#include <curses.h>

#include <chrono>
#include <memory>

#include "cli/top/renderer.h"
#include "cli/top/screen.h"

namespace gpuwatch::top {

class Terminal {
 public:
  // Throws std::runtime_error when standard output is not a terminal ncurses knows ($TERM).
  Terminal();
  ~Terminal();
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  ScreenSize size() const;
  void paint(const Screen& screen);
  // The next key (KEY_RESIZE after the terminal changed size), or ERR when none came within `wait`.
  int read_key(std::chrono::milliseconds wait);

 private:
  struct ScreenDeleter {
    void operator()(SCREEN* s) const { delscreen(s); }
  };
  void paint_line(const ScreenLine& line);

  std::unique_ptr<SCREEN, ScreenDeleter> screen_;
  bool colour_ = false;
  // What is on the terminal, to rewrite only the lines that changed: most of a screen is the same from one
  // reading to the next, and handing ncurses every cell again costs more than the rest of a refresh.
  Screen painted_;
  ScreenSize painted_size_{0, 0};
};

}  // namespace gpuwatch::top
