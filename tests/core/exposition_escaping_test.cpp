#include "core/exposition_escaping.h"

#include <gtest/gtest.h>

#include "core/series.h"

namespace gpuwatch {
namespace {

TEST(ExpositionEscaping, LabelValuesEscapeBackslashQuoteAndLineFeed) {
  std::string out = "x=\"";
  append_escaped_label_value(out, "C:\\tmp \"a\"\nb");
  EXPECT_EQ(out, R"(x="C:\\tmp \"a\"\nb)");
}

TEST(ExpositionEscaping, HelpTextKeepsQuotesInText004) {
  std::string out;
  append_escaped_help_text(out, "a \"b\"\\c\nd");
  EXPECT_EQ(out, R"(a "b"\\c\nd)");
}

// Store and import messages name a series as /metrics writes its labels.
TEST(ExpositionEscaping, LabelsToStringEscapesAsMetricsDoes) {
  EXPECT_EQ(labels_to_string({{"__name__", "up"}, {"job", "a\"b\\c\nd"}, {"pod", "p"}}),
            R"(up{job="a\"b\\c\nd", pod="p"})");
}

}  // namespace
}  // namespace gpuwatch
