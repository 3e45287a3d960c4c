// The one label matcher: anchored RE2 regexes that run in linear time, with Prometheus's semantics, and a
// clear error for a regex that does not compile.
#include "core/label_matcher.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace gpuwatch {
namespace {

using Op = LabelMatcher::Op;

TEST(LabelMatcher, RegexesAreAnchoredAtBothEnds) {
  const LabelMatcher m("gpu", Op::kRegexMatch, "1|2");
  EXPECT_TRUE(m.matches("1"));
  EXPECT_TRUE(m.matches("2"));
  EXPECT_FALSE(m.matches("12"));
  EXPECT_FALSE(m.matches("x1"));
  EXPECT_FALSE(LabelMatcher("gpu", Op::kRegexNoMatch, "1|2").matches("2"));
  EXPECT_TRUE(LabelMatcher("gpu", Op::kRegexNoMatch, "1|2").matches("12"));
}

TEST(LabelMatcher, DotMatchesANewlineAsInPrometheus) {
  EXPECT_TRUE(LabelMatcher("msg", Op::kRegexMatch, "a.b").matches("a\nb"));
  EXPECT_TRUE(LabelMatcher("msg", Op::kRegexMatch, ".*").matches("line one\nline two"));
}

TEST(LabelMatcher, EqualityAndTheEmptyValue) {
  EXPECT_TRUE(LabelMatcher("pid", Op::kEqual, "").matches(""));
  EXPECT_FALSE(LabelMatcher("pid", Op::kNotEqual, "").matches(""));
  EXPECT_TRUE(LabelMatcher("pid", Op::kRegexMatch, ".*").matches(""));
  EXPECT_FALSE(LabelMatcher("pid", Op::kRegexMatch, ".+").matches(""));
}

TEST(LabelMatcher, AnInvalidRegexIsRefusedWhenMadeWithTheLabelNamed) {
  try {
    LabelMatcher("gpu", Op::kRegexMatch, "(");
    FAIL() << "no error";
  } catch (const InvalidRegex& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("invalid regular expression \"(\" for label gpu"), std::string::npos) << what;
    EXPECT_NE(what.find("missing )"), std::string::npos) << what;
  }
  // A pattern whose program would outgrow the memory bound is refused too, not built.
  EXPECT_THROW(LabelMatcher("gpu", Op::kRegexMatch, "((((.{1000}){1000}){1000}){1000})"), InvalidRegex);
}

// std::regex backtracks: this took about 100 s on a 60-byte value, and {8} hours.
TEST(LabelMatcher, ABacktrackingPatternRunsInLinearTime) {
  const LabelMatcher m("uuid", Op::kRegexMatch, "(.*){8}Z");
  const std::string uuid = "GPU-8c4f6a3e-1d2b-4e5f-9a8b-7c6d5e4f3a2b-0000000000000000000";
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(m.matches(uuid));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("1000 matches of (.*){8}Z on a %zu-byte value: %.4f s\n", uuid.size(), s);
  EXPECT_LT(s, 10.0);
}

// std::regex recursed once per character: a value of 50 KB overflowed the stack (SIGSEGV).
TEST(LabelMatcher, AHugeValueDoesNotOverflowTheStack) {
  const std::string value(50 * 1024, 'a');
  EXPECT_TRUE(LabelMatcher("v", Op::kRegexMatch, "(a|b)*").matches(value));
  EXPECT_TRUE(LabelMatcher("v", Op::kRegexMatch, "(?:a+)+").matches(value));
  EXPECT_FALSE(LabelMatcher("v", Op::kRegexMatch, "(a|b)*c").matches(value));
  EXPECT_TRUE(LabelMatcher("v", Op::kRegexMatch, "a{0,1000}.*").matches(value + std::string(4 << 20, 'b')));
}

TEST(LabelMatcher, MatchesAllOverPairsAndMaps) {
  const std::vector<LabelMatcher> ms{{"__name__", Op::kEqual, "m"}, {"pid", Op::kEqual, ""}};
  EXPECT_TRUE(matches_all(ms, std::vector<std::pair<std::string, std::string>>{{"__name__", "m"}}));
  EXPECT_FALSE(
      matches_all(ms, std::vector<std::pair<std::string, std::string>>{{"__name__", "m"}, {"pid", "1"}}));
  EXPECT_TRUE(matches_all(ms, std::map<std::string, std::string>{{"__name__", "m"}}));
  EXPECT_FALSE(matches_all(ms, std::map<std::string, std::string>{{"__name__", "x"}}));
}

}  // namespace
}  // namespace gpuwatch
