#include "cli/typed_flags.h"

#include <algorithm>

namespace gpuwatch {

TypedFlags::TypedFlags(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;  // the rest are values, whatever they look like
    if (arg.size() < 2 || arg[0] != '-') continue;
    const std::string_view name = arg.substr(0, arg.find('='));
    if (name == "-h" || name == "--help" || name == "--help-all") help_ = true;
    flags_.push_back(name);
  }
}

bool TypedFlags::any_of(std::string_view names) const {
  if (help_) return true;
  while (!names.empty()) {
    const auto comma = names.find(',');
    const std::string_view name = names.substr(0, comma);
    if (std::find(flags_.begin(), flags_.end(), name) != flags_.end()) return true;
    if (comma == std::string_view::npos) break;
    names.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace gpuwatch
