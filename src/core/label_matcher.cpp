#include "core/label_matcher.h"

#include <re2/re2.h>

#include "core/utf8.h"

namespace gpuwatch {
namespace {

// Enough for any selector a person writes; a pattern needing more (such as `(.*){1000}`) is refused when
// compiled instead of growing without bound.
constexpr std::int64_t kMaxRegexMemory = 8 << 20;

}  // namespace

std::shared_ptr<const re2::RE2> compile_regex(std::string_view pattern) {
  re2::RE2::Options options;
  options.set_encoding(re2::RE2::Options::EncodingUTF8);
  options.set_dot_nl(true);
  options.set_log_errors(false);
  options.set_max_mem(kMaxRegexMemory);
  auto re = std::make_shared<const re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) throw InvalidRegex(re->error());
  return re;
}

LabelMatcher::LabelMatcher(std::string name, Op op, std::string value)
    : name_(std::move(name)), op_(op), value_(std::move(value)) {
  if (!is_regex()) return;
  try {
    regex_ = compile_regex("^(?:" + value_ + ")$");
  } catch (const InvalidRegex& e) {
    throw InvalidRegex("invalid regular expression \"" + to_valid_utf8(value_, 256) + "\" for label " +
                       to_valid_utf8(name_, 256) + ": " + to_valid_utf8(e.what(), 256));
  }
}

bool LabelMatcher::matches(std::string_view value) const {
  switch (op_) {
    case Op::kEqual:
      return value == value_;
    case Op::kNotEqual:
      return value != value_;
    case Op::kRegexMatch:
      return re2::RE2::FullMatch(re2::StringPiece(value.data(), value.size()), *regex_);
    case Op::kRegexNoMatch:
      return !re2::RE2::FullMatch(re2::StringPiece(value.data(), value.size()), *regex_);
  }
  return false;
}

bool matches_all(std::span<const LabelMatcher> matchers,
                 const std::vector<std::pair<std::string, std::string>>& labels) {
  for (const auto& m : matchers) {
    std::string_view value;
    for (const auto& [name, v] : labels) {
      if (name == m.name()) {
        value = v;
        break;
      }
    }
    if (!m.matches(value)) return false;
  }
  return true;
}

bool matches_all(std::span<const LabelMatcher> matchers, const std::map<std::string, std::string>& labels) {
  for (const auto& m : matchers) {
    const auto it = labels.find(m.name());
    if (!m.matches(it == labels.end() ? std::string_view() : std::string_view(it->second))) return false;
  }
  return true;
}

}  // namespace gpuwatch
