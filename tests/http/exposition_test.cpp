#include "exposition/exposition.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/exposition_escaping.h"

namespace gpuwatch {
namespace {

std::string value_text(double v) {
  std::string out;
  append_value(out, v);
  return out;
}

TEST(Exposition, ValuesAreShortestRoundTrip) {
  EXPECT_EQ(value_text(1), "1");
  EXPECT_EQ(value_text(0.1), "0.1");
  EXPECT_EQ(value_text(512.25), "512.25");
  EXPECT_EQ(value_text(150754820096), "150754820096");
  EXPECT_EQ(value_text(1e21), "1e+21");
  EXPECT_EQ(value_text(-2.5e-7), "-2.5e-07");
  const double third = 1.0 / 3;
  EXPECT_EQ(std::stod(value_text(third)), third);
}

TEST(Exposition, NonFiniteValuesAreSpelledAsPrometheusDoes) {
  EXPECT_EQ(value_text(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(value_text(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(value_text(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

TEST(Exposition, LabelValuesEscapeBackslashQuoteAndLineFeed) {
  std::string out;
  append_escaped_label_value(out, "a\\b\"c\nd");
  EXPECT_EQ(out, "a\\\\b\\\"c\\nd");
}

TEST(Exposition, Text004FamilyHasHelpThenTypeAndKeepsCounterNames) {
  Family f{"x_seconds_total", FamilyType::kCounter, "seconds", "Help with \\ and \"quote\"\nline", {}};
  f.series.push_back(Series{{{"a", "1"}}, 2});
  f.series.push_back(Series{{}, 3});
  std::string out;
  append_family(out, f, ExpositionFormat::kText004);
  append_end(out, ExpositionFormat::kText004);
  EXPECT_EQ(out,
            "# HELP x_seconds_total Help with \\\\ and \"quote\"\\nline\n"
            "# TYPE x_seconds_total counter\n"
            "x_seconds_total{a=\"1\"} 2\n"
            "x_seconds_total 3\n");
}

TEST(Exposition, OpenMetricsFamilyDropsSuffixesAndEndsWithEof) {
  Family counter{"x_seconds_total", FamilyType::kCounter, "seconds", "H \"q\"", {Series{{}, 2}}};
  Family info{"thing_info", FamilyType::kInfo, "", "I", {Series{{{"v", "1"}}, 1}}};
  std::string out;
  append_family(out, counter, ExpositionFormat::kOpenMetrics);
  append_family(out, info, ExpositionFormat::kOpenMetrics);
  append_end(out, ExpositionFormat::kOpenMetrics);
  EXPECT_EQ(out,
            "# TYPE x_seconds counter\n"
            "# UNIT x_seconds seconds\n"
            "# HELP x_seconds H \\\"q\\\"\n"
            "x_seconds_total 2\n"
            "# TYPE thing info\n"
            "# HELP thing I\n"
            "thing_info{v=\"1\"} 1\n"
            "# EOF\n");
}

TEST(Exposition, EmptyFamilyIsLeftOut) {
  std::string out;
  append_family(out, Family{"x", FamilyType::kGauge, "", "h", {}}, ExpositionFormat::kText004);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace gpuwatch
