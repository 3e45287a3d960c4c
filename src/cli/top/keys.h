// The keys of `gpuwatch top` (the help line and the help screen list them from kKeyHelp).
#pragma once

#include <array>
#include <string_view>

#include "cli/top/view_state.h"

namespace gpuwatch::top {

struct KeyHelp {
  std::string_view keys;
  std::string_view what;
};

inline constexpr std::array kKeyHelp = {
    KeyHelp{"q", "quit"},
    KeyHelp{"s", "sort by the next column"},
    KeyHelp{"m c p u g n", "sort by GPU memory, SM share, pid, user, GPU, command"},
    KeyHelp{"r", "reverse the order"},
    KeyHelp{"/", "filter processes (Enter applies, Esc drops; empty clears)"},
    KeyHelp{"t", "plots on or off"},
    KeyHelp{"h ?", "this help"},
};

// Applies one key (an ncurses key code: a character, KEY_BACKSPACE, KEY_ENTER, 27 for Esc).
void apply_key(ViewState& view, int key);

}  // namespace gpuwatch::top
