#include "config/option_kinds.h"

#include <charconv>
#include <string>
#include <utility>

#include "config/size.h"
#include "core/duration.h"

namespace gpuwatch {
namespace {

using std::chrono::milliseconds;
using Problem = std::optional<std::string>;

// Whole days are written in days ("30d", not format_duration's "4w2d"), the way retention is usually given.
std::string duration_text(milliseconds d) {
  constexpr milliseconds kDay = std::chrono::hours(24);
  if (d >= kDay && d % kDay == milliseconds(0)) return std::to_string(d / kDay) + "d";
  return format_duration(d);
}

std::string shown(milliseconds d, const DurationRange& range) {
  if (d == milliseconds(0) && !range.off.empty()) return std::string(range.off);
  return duration_text(d);
}

// " from 10ms to 1m", " of at least 1h", or "" when anything goes.
std::string range_text(const std::string& min, const std::optional<std::string>& max, bool has_min) {
  if (max) return " from " + min + " to " + *max;
  return has_min ? " of at least " + min : std::string();
}

std::string expected_duration(const DurationRange& range) {
  std::string out = "expected ";
  if (!range.off.empty()) out += std::string(range.off) + " or ";
  const std::optional<std::string> max = range.max ? std::optional(duration_text(*range.max)) : std::nullopt;
  return out + "a duration" + range_text(duration_text(range.min), max, range.min > milliseconds(0)) +
         ", such as " + std::string(range.example);
}

std::optional<milliseconds> parse_in(std::string_view text, const DurationRange& range) {
  if (!range.off.empty() && text == range.off) return milliseconds(0);
  const auto d = parse_duration(text);
  if (!d || *d < range.min || (range.max && *d > *range.max)) return std::nullopt;
  return d;
}

std::string expected_count(const CountRange& range) {
  const std::optional<std::string> max = range.max ? std::optional(std::to_string(*range.max)) : std::nullopt;
  return "expected a number of " + std::string(range.what) +
         range_text(std::to_string(range.min), max, range.min > 0) + ", such as " +
         std::string(range.example);
}

std::optional<std::size_t> parse_in(std::string_view text, const CountRange& range) {
  std::size_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || n < range.min ||
      (range.max && n > *range.max))
    return std::nullopt;
  return n;
}

std::string expected_size(const SizeRange& range) {
  return "expected a size" + range_text(format_size(range.min), std::nullopt, range.min > 0) + ", such as " +
         std::string(range.example);
}

std::optional<std::uint64_t> parse_in(std::string_view text, const SizeRange& range) {
  const auto n = parse_size(text);
  if (!n || *n < range.min) return std::nullopt;
  return n;
}

// Sets `field` from text in `range`, or says what it expected. Field may be an optional of the value.
template <typename Field, typename Range>
decltype(OptionSpec::apply) setter(Field AgentOptions::*field, Range range, std::string expected) {
  return [field, range, expected = std::move(expected)](AgentOptions& o, std::string_view v) -> Problem {
    const auto value = parse_in(v, range);
    if (!value) return expected;
    o.*field = *value;
    return std::nullopt;
  };
}

OptionSpec row(OptionText text, std::string_view value_name, decltype(OptionSpec::apply) apply,
               decltype(OptionSpec::show) show) {
  return {text.key, value_name, text.help, text.reloadable, std::move(apply), std::move(show), text.commands};
}

std::string_view duration_value_name(const DurationRange& range) {
  return range.off.empty() ? "DURATION" : "DURATION|off";
}

}  // namespace

OptionSpec duration_option(OptionText text, milliseconds AgentOptions::*field, DurationRange range) {
  return row(text, duration_value_name(range), setter(field, range, expected_duration(range)),
             [field, range](const AgentOptions& o) { return shown(o.*field, range); });
}

OptionSpec duration_option(OptionText text, std::optional<milliseconds> AgentOptions::*field,
                           DurationRange range, std::function<milliseconds(const AgentOptions&)> in_effect) {
  return row(text, duration_value_name(range), setter(field, range, expected_duration(range)),
             [range, in_effect = std::move(in_effect)](const AgentOptions& o) {
               return shown(in_effect(o), range);
             });
}

OptionSpec count_option(OptionText text, std::size_t AgentOptions::*field, CountRange range) {
  return row(text, "N", setter(field, range, expected_count(range)),
             [field](const AgentOptions& o) { return std::to_string(o.*field); });
}

OptionSpec size_option(OptionText text, std::uint64_t AgentOptions::*field, SizeRange range) {
  return row(text, "SIZE", setter(field, range, expected_size(range)),
             [field](const AgentOptions& o) { return format_size(o.*field); });
}

}  // namespace gpuwatch
