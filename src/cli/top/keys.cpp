#include "cli/top/keys.h"

#include <curses.h>

namespace gpuwatch::top {

namespace {

constexpr int kEscape = 27;

void sort_by(ViewState& view, ProcessSort sort) {
  // Numbers read best largest first, names in alphabetical order.
  view.descending = sort == ProcessSort::kMemory || sort == ProcessSort::kSm;
  view.sort = sort;
}

void edit_filter(ViewState& view, int key) {
  if (key == '\n' || key == '\r' || key == KEY_ENTER) {
    view.filter = view.filter_draft;
    view.editing_filter = false;
  } else if (key == kEscape) {
    view.editing_filter = false;
  } else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
    if (!view.filter_draft.empty()) view.filter_draft.pop_back();
  } else if (key >= 32 && key < 127) {
    view.filter_draft += static_cast<char>(key);
  }
}

}  // namespace

void apply_key(ViewState& view, int key) {
  if (view.editing_filter) return edit_filter(view, key);
  if (view.help && key != 'q') {
    view.help = false;  // any key closes the help
    return;
  }
  switch (key) {
    case 'q':
    case 'Q':
      view.quit = true;
      break;
    case 's': {
      const int next = (static_cast<int>(view.sort) + 1) % (static_cast<int>(ProcessSort::kCommand) + 1);
      sort_by(view, static_cast<ProcessSort>(next));
      break;
    }
    case 'm':
      sort_by(view, ProcessSort::kMemory);
      break;
    case 'c':
      sort_by(view, ProcessSort::kSm);
      break;
    case 'p':
      sort_by(view, ProcessSort::kPid);
      break;
    case 'u':
      sort_by(view, ProcessSort::kUser);
      break;
    case 'g':
      sort_by(view, ProcessSort::kGpu);
      break;
    case 'n':
      sort_by(view, ProcessSort::kCommand);
      break;
    case 'r':
      view.descending = !view.descending;
      break;
    case '/':
      view.editing_filter = true;
      view.filter_draft = view.filter;
      break;
    case 't':
      view.plots = !view.plots;
      break;
    case 'h':
    case '?':
      view.help = true;
      break;
    default:
      break;
  }
}

}  // namespace gpuwatch::top
