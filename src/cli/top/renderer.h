// Draws a frame into a screen of the terminal's size: the node line, a block per GPU (bars for
// utilization, memory, power and temperature; throttle and health marks; its MIG instances), history plots,
// the alerts that hold, the process table and the help line. What does not fit is left out in that order
// from the bottom up: the processes shrink first, then the plots, then the alerts; the GPUs stay.
#pragma once

#include <chrono>
#include <cstdint>

#include "cli/top/frame.h"
#include "cli/top/history.h"
#include "cli/top/screen.h"
#include "cli/top/view_state.h"

namespace gpuwatch::top {

struct ScreenSize {
  int rows = 24;
  int cols = 80;
};

struct RenderContext {
  ScreenSize size;
  std::chrono::milliseconds interval{1000};  // the redraw interval, shown on the node line
  std::int64_t now_ms = 0;                   // the wall clock, for ages
};

// `frame` may be null before the first reading arrives.
Screen render(const TopFrame* frame, const History& history, const ViewState& view, const RenderContext& ctx);

}  // namespace gpuwatch::top
