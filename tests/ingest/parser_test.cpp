// The exposition parser on golden files (the same data spelled in both formats), on malformed lines (exact
// file:line:column messages), and on the spellings of numbers each format allows.
#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "ingest/exposition_parser.h"
#include "ingest/text_numbers.h"

namespace gpuwatch::ingest {
namespace {

std::string read_file(const std::string& name) {
  std::ifstream in(std::string(GPUWATCH_INGEST_DATA) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Parsed {
  std::vector<std::string> samples;  // "series t_ms value"
  std::vector<std::string> errors;
  std::size_t created_skipped = 0;
  InputFormat format = InputFormat::kAuto;
};

std::string show_value(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

Parsed parse(const std::string& text, const std::string& name, InputFormat format = InputFormat::kAuto) {
  Parsed p;
  ExpositionParser parser(text, name, format,
                          [&p](const ParseError& e) { p.errors.push_back(e.to_string()); });
  Sample s;
  while (parser.next(s)) {
    p.samples.push_back(store::labels_to_string(*s.labels) + " " + std::to_string(s.t_ms) + " " +
                        show_value(s.value));
  }
  p.created_skipped = parser.created_skipped();
  p.format = parser.format();
  EXPECT_EQ(parser.bad_lines(), p.errors.size());
  EXPECT_EQ(parser.offset(), text.size());
  return p;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(ExpositionParser, GoldenFilesInBothFormatsGiveTheSameSamples) {
  auto expected = lines_of(read_file("small.expected"));
  for (const char* name : {"small.prom", "small.om"}) {
    SCOPED_TRACE(name);
    Parsed p = parse(read_file(name), name);
    EXPECT_TRUE(p.errors.empty()) << p.errors.front();
    std::sort(p.samples.begin(), p.samples.end());
    EXPECT_EQ(p.samples, expected);
  }
}

TEST(ExpositionParser, DetectsTheFormatFromTheEndOfTheText) {
  EXPECT_EQ(parse(read_file("small.om"), "x").format, InputFormat::kOpenMetrics);
  EXPECT_EQ(parse(read_file("small.prom"), "x").format, InputFormat::kPrometheus);
  EXPECT_EQ(detect_format("a 1 1\n# EOF\n\n"), InputFormat::kOpenMetrics);
  EXPECT_EQ(detect_format("a 1 1\n# EOF trailing\n"), InputFormat::kPrometheus);
}

TEST(ExpositionParser, SkipsCreatedSamplesOfCountersOnly) {
  const Parsed p = parse(
      "# TYPE jobs counter\njobs_total 3 10\njobs_created 5 10\n# TYPE g gauge\ng_created 7 10\n# EOF\n",
      "c.om");
  EXPECT_TRUE(p.errors.empty());
  EXPECT_EQ(p.created_skipped, 1u);
  EXPECT_EQ(p.samples, (std::vector<std::string>{"jobs_total{} 10000 3", "g_created{} 10000 7"}));
}

TEST(ExpositionParser, ReportsEachMalformedLineWithFileLineColumnAndSkipsIt) {
  const Parsed p = parse(read_file("malformed.prom"), "malformed.prom");
  EXPECT_EQ(p.errors, lines_of(read_file("malformed.expected")));
  // The good lines around the bad ones are still read, the out-of-order ones too (the store rejects those).
  EXPECT_EQ(p.samples, (std::vector<std::string>{"gpu_up{gpu=\"0\"} 1000 1", "gpu_up{gpu=\"0\"} 3000 0",
                                                 "gpu_up{gpu=\"0\"} 2000 1", "gpu_up{gpu=\"0\"} 3000 1"}));
}

TEST(ExpositionParser, OpenMetricsNeedsEofLastAndNothingAfterIt) {
  Parsed truncated = parse("# TYPE a gauge\na 1 1\na 2 2\n", "t.om", InputFormat::kOpenMetrics);
  EXPECT_EQ(truncated.samples.size(), 2u);
  EXPECT_EQ(truncated.errors,
            (std::vector<std::string>{
                "t.om:4:1: expected \"# EOF\" at the end of OpenMetrics text (truncated file?)"}));
  Parsed after = parse("a 1 1\n# EOF\na 2 2\na 3 3\n", "e.om", InputFormat::kOpenMetrics);
  EXPECT_EQ(after.samples.size(), 1u);
  EXPECT_EQ(after.errors, (std::vector<std::string>{
                              "e.om:3:1: unexpected text after \"# EOF\" (expected the end of the file)",
                              "e.om:4:1: unexpected text after \"# EOF\" (expected the end of the file)"}));
  Parsed comment = parse("# just a note\na 1 1\n# EOF\n", "n.om", InputFormat::kOpenMetrics);
  EXPECT_EQ(comment.errors,
            (std::vector<std::string>{"n.om:1:1: expected \"# HELP\", \"# TYPE\", \"# UNIT\" or \"# EOF\""}));
  Parsed no_ts = parse("a 1 # {x=\"y\"} 1\n# EOF\n", "x.om", InputFormat::kOpenMetrics);
  EXPECT_EQ(no_ts.errors,
            (std::vector<std::string>{"x.om:1:5: expected a timestamp in seconds after the value "
                                      "(import needs timestamped samples)"}));
}

TEST(ExpositionParser, HandlesCrlfTabsAndAMissingFinalNewline) {
  const Parsed p = parse("a{x=\"1\"}\t2\t3\r\n\r\na{x=\"1\"}  4  5", "w.prom");
  EXPECT_TRUE(p.errors.empty());
  EXPECT_EQ(p.samples, (std::vector<std::string>{"a{x=\"1\"} 3 2", "a{x=\"1\"} 5 4"}));
}

// A label value with bytes that are not UTF-8 keeps its sample, with the bad bytes replaced: the store
// then serves only text Prometheus and JSON accept.
TEST(ExpositionParser, InvalidLabelValuesAreMadeValid) {
  const Parsed p = parse("gpu_up{process=\"py\xff\xfethon\"} 1 1000\n", "bad.prom");
  EXPECT_TRUE(p.errors.empty());
  ASSERT_EQ(p.samples.size(), 1u);
  EXPECT_NE(p.samples[0].find("py\xEF\xBF\xBD\xEF\xBF\xBDthon"), std::string::npos) << p.samples[0];
}

TEST(ExpositionParser, ConsecutiveSamplesOfOneSeriesShareTheirLabels) {
  const std::string text = "a{x=\"1\"} 1 1\na{x=\"1\"} 2 2\na{x=\"2\"} 3 3\n";
  ExpositionParser parser(text, "s", InputFormat::kPrometheus, nullptr);
  Sample s;
  std::vector<bool> fresh;
  while (parser.next(s)) fresh.push_back(s.new_series);
  EXPECT_EQ(fresh, (std::vector<bool>{true, false, true}));
}

TEST(TextNumbers, SampleValuesFollowPrometheusSpelling) {
  double v = 0;
  ASSERT_TRUE(parse_sample_value("+Inf", v));
  EXPECT_EQ(v, INFINITY);
  ASSERT_TRUE(parse_sample_value("-Inf", v));
  EXPECT_EQ(v, -INFINITY);
  ASSERT_TRUE(parse_sample_value("NaN", v));
  EXPECT_TRUE(std::isnan(v));
  ASSERT_TRUE(parse_sample_value("-0", v));
  EXPECT_EQ(std::bit_cast<std::uint64_t>(v), std::bit_cast<std::uint64_t>(-0.0));
  ASSERT_TRUE(parse_sample_value("1.5e3", v));
  EXPECT_EQ(v, 1500.0);
  ASSERT_TRUE(parse_sample_value("+2", v));
  EXPECT_EQ(v, 2.0);
  ASSERT_TRUE(parse_sample_value("0.1", v));
  EXPECT_EQ(v, 0.1);  // the nearest double, as Go's ParseFloat gives
  ASSERT_TRUE(parse_sample_value("1e999", v));
  EXPECT_EQ(v, INFINITY);
  EXPECT_FALSE(parse_sample_value("1,5", v));
  EXPECT_FALSE(parse_sample_value("", v));
  EXPECT_FALSE(parse_sample_value("+-1", v));
}

TEST(TextNumbers, PlainDecimalsGiveTheSameDoubleAsTheGeneralParser) {
  // The fast path for plain decimals must agree bit for bit with a correctly rounded parser.
  std::mt19937_64 rng(42);
  for (int i = 0; i < 200000; ++i) {
    const int decimals = static_cast<int>(rng() % 8);
    const std::uint64_t digits = rng() % (std::uint64_t{1} << (1 + rng() % 53));
    std::string text = std::to_string(digits);
    if (decimals > 0) {
      text.insert(0, std::string(static_cast<std::size_t>(decimals), '0'));
      text.insert(text.size() - static_cast<std::size_t>(decimals), ".");
    }
    if (rng() % 4 == 0) text.insert(0, "-");
    double fast = 0;
    double general = 0;
    ASSERT_TRUE(parse_sample_value(text, fast)) << text;
    std::from_chars(text.data(), text.data() + text.size(), general);
    ASSERT_EQ(std::bit_cast<std::uint64_t>(fast), std::bit_cast<std::uint64_t>(general)) << text;
  }
}

TEST(TextNumbers, TimestampsInSecondsBecomeExactMilliseconds) {
  std::int64_t ms = 0;
  ASSERT_TRUE(parse_timestamp_seconds("1795824000.123", ms));
  EXPECT_EQ(ms, 1795824000123);  // a float would make this ...122.99
  ASSERT_TRUE(parse_timestamp_seconds("1795824000.1236", ms));
  EXPECT_EQ(ms, 1795824000124);
  ASSERT_TRUE(parse_timestamp_seconds("-1.5", ms));
  EXPECT_EQ(ms, -1500);
  ASSERT_TRUE(parse_timestamp_seconds("1.795824e9", ms));
  EXPECT_EQ(ms, 1795824000000);
  ASSERT_TRUE(parse_timestamp_seconds(".5", ms));
  EXPECT_EQ(ms, 500);
  EXPECT_FALSE(parse_timestamp_seconds("12:00", ms));
  EXPECT_FALSE(parse_timestamp_seconds("NaN", ms));
  EXPECT_FALSE(parse_timestamp_seconds(".", ms));
  ASSERT_TRUE(parse_timestamp_ms("-42", ms));
  EXPECT_EQ(ms, -42);
  EXPECT_FALSE(parse_timestamp_ms("4.2", ms));
}

}  // namespace
}  // namespace gpuwatch::ingest
