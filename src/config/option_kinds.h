// Rows of the options table for the values most settings take: a duration, a count, a size. Each kind parses,
// checks its range and says what it expected in one wording ("expected a duration of at least 10ms, such as
// 2m"), so each such setting is one row of the table with its range beside it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "config/agent_options.h"

namespace gpuwatch {

// What every row says about itself: its key, its help, whether a reload applies it and who takes it.
struct OptionText {
  std::string_view key;
  std::string_view help;
  bool reloadable = false;
  OptionCommands commands = kAgentCommand;
};

struct DurationRange {
  std::chrono::milliseconds min{0};
  std::optional<std::chrono::milliseconds> max = std::nullopt;  // none: no upper bound
  std::string_view example = {};  // a typical value, for the error message: "2m"
  std::string_view off = {};      // a word that means zero ("off"), or none
};

struct CountRange {
  std::size_t min = 0;
  std::optional<std::size_t> max = std::nullopt;  // none: as many as the field holds
  std::string_view what = {};                     // what is counted, for the error message: "series"
  std::string_view example = {};                  // "2000"
};

struct SizeRange {
  std::uint64_t min = 0;
  std::string_view example = {};  // "1GiB"
};

OptionSpec duration_option(OptionText text, std::chrono::milliseconds AgentOptions::*field,
                           DurationRange range);
// A duration that may be left unset; `in_effect` is the value used then, and the one shown.
OptionSpec duration_option(OptionText text, std::optional<std::chrono::milliseconds> AgentOptions::*field,
                           DurationRange range,
                           std::function<std::chrono::milliseconds(const AgentOptions&)> in_effect);
OptionSpec count_option(OptionText text, std::size_t AgentOptions::*field, CountRange range);
OptionSpec size_option(OptionText text, std::uint64_t AgentOptions::*field, SizeRange range);

}  // namespace gpuwatch
