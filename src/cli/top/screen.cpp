#include "cli/top/screen.h"

namespace gpuwatch::top {
namespace {

bool continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

std::size_t columns(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) n += continuation(c) ? 0 : 1;
  return n;
}

std::string cut(std::string_view text, std::size_t width) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (continuation(text[i])) continue;
    if (n == width) return std::string(text.substr(0, i));
    ++n;
  }
  return std::string(text);
}

std::string fit(std::string_view text, std::size_t width) {
  std::string out = cut(text, width);
  out.append(width - columns(out), ' ');
  return out;
}

std::string screen_text(const Screen& screen) {
  std::string out;
  for (const auto& line : screen.lines) {
    std::string row;
    for (const auto& span : line) row += span.text;
    while (!row.empty() && row.back() == ' ') row.pop_back();
    out += row + "\n";
  }
  return out;
}

}  // namespace gpuwatch::top
