// The flags typed on the command line, so that a command whose settings are many (the option table gives
// status 59 flags) builds only the CLI11 options of those typed: building all of them cost more than status's
// whole read of eight GPUs. With help asked for (-h, --help, --help-all) every flag is built, for the
// listing.
#pragma once

#include <string_view>
#include <vector>

namespace gpuwatch {

class TypedFlags {
 public:
  // Every "-x" / "--name" word of argv (up to "=" in "--name=value"); argv must outlive the object.
  TypedFlags(int argc, const char* const* argv);

  bool help() const { return help_; }
  // Whether one of `names` (CLI11's spellings: "--interval,--tick") was typed; always true when help was
  // asked for.
  bool any_of(std::string_view names) const;

 private:
  std::vector<std::string_view> flags_;
  bool help_ = false;
};

}  // namespace gpuwatch
