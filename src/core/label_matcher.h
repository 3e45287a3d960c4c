// One label matcher for the whole agent: PromQL selectors (query engine and store), and silences. A matcher
// is compiled once when made; matching a value is then cheap and safe to call from several threads at once.
//
// A caller may rely on:
// - Regexes are RE2 (linear time in the value, no recursion, so no value or pattern can freeze a thread or
//   overflow its stack), anchored at both ends as PromQL and Alertmanager require (`^(?:re)$`), with `.`
//   matching a newline as in Prometheus (`(?s)`), on UTF-8 text.
// - An invalid or too large regex throws InvalidRegex when the matcher is made, never later.
// - Copies share the compiled regex.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace re2 {
class RE2;
}

namespace gpuwatch {

enum class MatchOp { kEqual, kNotEqual, kRegexMatch, kRegexNoMatch };

class InvalidRegex : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A regex compiled with the options every gpuwatch regex uses (RE2, UTF-8, bounded memory, `.` matches
// newlines, errors not logged); unanchored: callers anchor or search as they need. Throws InvalidRegex.
std::shared_ptr<const re2::RE2> compile_regex(std::string_view pattern);

class LabelMatcher {
 public:
  using Op = MatchOp;

  LabelMatcher() = default;  // name "" = "": matches a value only when it is empty
  // Throws InvalidRegex naming the label when `op` is a regex op and `value` does not compile.
  LabelMatcher(std::string name, Op op, std::string value);

  const std::string& name() const { return name_; }
  Op op() const { return op_; }
  const std::string& value() const { return value_; }
  bool is_regex() const { return op_ == Op::kRegexMatch || op_ == Op::kRegexNoMatch; }

  // Whether a label's value satisfies the matcher; a missing label is matched as "".
  bool matches(std::string_view value) const;

 private:
  std::string name_;
  Op op_ = Op::kEqual;
  std::string value_;
  std::shared_ptr<const re2::RE2> regex_;  // anchored; set for the regex ops
};

// Whether a label set satisfies every matcher (a label it lacks is matched as ""): series labels as sorted
// pairs (the store, the query engine), alert labels as a map (silences).
bool matches_all(std::span<const LabelMatcher> matchers,
                 const std::vector<std::pair<std::string, std::string>>& labels);
bool matches_all(std::span<const LabelMatcher> matchers, const std::map<std::string, std::string>& labels);

}  // namespace gpuwatch
