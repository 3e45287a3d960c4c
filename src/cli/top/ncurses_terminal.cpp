// The terminal module (gpuwatch-terminal.so): top's terminal through ncurses, and the module's one export.
#include <curses.h>
#include <unistd.h>

#include <algorithm>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "cli/top/terminal.h"

namespace gpuwatch::top {
namespace {

// The colour pair of each style: its index is the style's value plus one (pair 0 is the terminal's own).
struct StyleLook {
  short foreground;
  attr_t attributes;
};

constexpr StyleLook kLooks[] = {
    {-1, A_NORMAL},           // kNormal
    {COLOR_CYAN, A_BOLD},     // kTitle
    {-1, A_BOLD},             // kHeader
    {COLOR_GREEN, A_NORMAL},  // kGood
    {COLOR_YELLOW, A_BOLD},   // kWarning
    {COLOR_RED, A_BOLD},      // kBad
    {-1, A_DIM},              // kDim
    {COLOR_GREEN, A_NORMAL},  // kBar
    {COLOR_CYAN, A_BOLD},     // kKey
};

class NcursesTerminal final : public Terminal {
 public:
  // Throws std::runtime_error when standard output is not a terminal ncurses knows ($TERM).
  NcursesTerminal();
  ~NcursesTerminal() override;
  NcursesTerminal(const NcursesTerminal&) = delete;
  NcursesTerminal& operator=(const NcursesTerminal&) = delete;

  ScreenSize size() const override;
  void paint(const Screen& screen) override;
  int read_key(std::chrono::milliseconds wait) override;

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

NcursesTerminal::NcursesTerminal() {
  if (::isatty(STDOUT_FILENO) != 1 || ::isatty(STDIN_FILENO) != 1)
    throw std::runtime_error("top draws on a terminal: standard input and output must be one");
  // The plots' block characters are UTF-8: ncursesw writes them in the user's locale's encoding.
  std::setlocale(LC_ALL, "");
  screen_.reset(newterm(nullptr, stdout, stdin));
  if (!screen_) throw std::runtime_error("the terminal type $TERM is unknown to ncurses");
  set_term(screen_.get());
  cbreak();
  noecho();
  keypad(stdscr, TRUE);
  curs_set(0);
  set_escdelay(25);  // Esc closes the filter at once, not after ncurses's default second
  // NO_COLOR (no-color.org) asks for plain text; the styles still differ by bold and dim.
  colour_ = has_colors() && std::getenv("NO_COLOR") == nullptr;
  if (colour_) {
    start_color();
    use_default_colors();
    for (short i = 0; i < static_cast<short>(std::size(kLooks)); ++i)
      init_pair(i + 1, kLooks[i].foreground, -1);
  }
}

NcursesTerminal::~NcursesTerminal() {
  endwin();
  std::fflush(stdout);
}

ScreenSize NcursesTerminal::size() const {
  int rows = 0, cols = 0;
  getmaxyx(stdscr, rows, cols);
  return {rows, cols};
}

void NcursesTerminal::paint(const Screen& screen) {
  const ScreenSize s = size();
  if (s.rows != painted_size_.rows || s.cols != painted_size_.cols) {
    erase();  // a new size: ncurses redraws it all, and nothing painted before is known to be there
    painted_.lines.clear();
    painted_size_ = s;
  }
  const auto rows = static_cast<std::size_t>(std::max(s.rows, 0));
  const std::size_t drawn = std::min(screen.lines.size(), rows);
  for (std::size_t row = 0; row < std::max(drawn, std::min(painted_.lines.size(), rows)); ++row) {
    const bool had = row < painted_.lines.size();
    if (row < drawn && had && screen.lines[row] == painted_.lines[row]) continue;
    move(static_cast<int>(row), 0);
    clrtoeol();
    if (row < drawn) paint_line(screen.lines[row]);
  }
  painted_.lines.assign(screen.lines.begin(), screen.lines.begin() + static_cast<std::ptrdiff_t>(drawn));
  refresh();
}

void NcursesTerminal::paint_line(const ScreenLine& line) {
  for (const Span& span : line) {
    const auto i = static_cast<std::size_t>(span.style);
    attr_t attributes = kLooks[i].attributes;
    if (colour_) attributes |= COLOR_PAIR(static_cast<short>(i + 1));
    attron(attributes);
    addstr(span.text.c_str());
    attroff(attributes);
  }
}

int NcursesTerminal::read_key(std::chrono::milliseconds wait) {
  timeout(static_cast<int>(wait.count()));
  return getch();
}

}  // namespace
}  // namespace gpuwatch::top

extern "C" void gpuwatch_terminal_open_v1(std::unique_ptr<gpuwatch::top::Terminal>* out, std::string* error) {
  try {
    *out = std::make_unique<gpuwatch::top::NcursesTerminal>();
  } catch (const std::exception& e) {
    *error = e.what();
  }
}

// The type the loader casts the symbol to is the one this definition has.
static_assert(std::is_same_v<decltype(gpuwatch_terminal_open_v1), gpuwatch::top::OpenTerminal>);
