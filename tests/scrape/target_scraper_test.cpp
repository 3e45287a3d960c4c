// A target's scrapes with Prometheus's semantics, from answers given to it: target labels, report series,
// staleness markers (their exact bits) when a series or the whole target goes away, limits that fail a scrape
// as a whole, honoured timestamps and label clashes.
#include "scrape/target_scraper.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "core/stale_marker.h"

namespace gpuwatch::scrape {
namespace {

FetchResult answer(std::string body, std::string content_type = "text/plain; version=0.0.4") {
  FetchResult r;
  r.ok = true;
  r.status = 200;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  return r;
}

FetchResult failure(std::string error) {
  FetchResult r;
  r.error = std::move(error);
  return r;
}

ScrapeTargetConfig config() {
  ScrapeTargetConfig c;
  c.job = "vllm";
  c.url = "http://127.0.0.1:8000/metrics";
  c.labels = {{"model", "llama"}};
  return c;
}

const ScrapedSample* find(const ScrapeResult& r, std::string_view name, std::string_view label = {},
                          std::string_view value = {}) {
  for (const auto& s : r.samples) {
    if (label_value(s.labels, "__name__") != name) continue;
    if (!label.empty() && label_value(s.labels, label) != value) continue;
    return &s;
  }
  return nullptr;
}

double value(const ScrapeResult& r, std::string_view name) {
  const ScrapedSample* s = find(r, name);
  EXPECT_NE(s, nullptr) << name;
  return s ? s->value : -1;
}

TEST(TargetScraper, AddsTheTargetLabelsAndTheReportSeries) {
  TargetScraper t(make_target(config()));
  const auto r = t.scrape_answer(1000, answer("# TYPE a counter\na_total{x=\"1\"} 5\nb 2.5\n"), 0.01);
  EXPECT_TRUE(r->up);
  EXPECT_EQ(r->samples_scraped, 2u);
  const ScrapedSample* a = find(*r, "a_total");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->labels, (Labels{{"__name__", "a_total"},
                               {"instance", "127.0.0.1:8000"},
                               {"job", "vllm"},
                               {"model", "llama"},
                               {"x", "1"}}));
  EXPECT_EQ(a->t_ms, 1000);
  EXPECT_EQ(a->value, 5);
  EXPECT_EQ(value(*r, "up"), 1);
  EXPECT_EQ(value(*r, "scrape_samples_scraped"), 2);
  EXPECT_EQ(value(*r, "scrape_samples_post_metric_relabeling"), 2);
  EXPECT_EQ(value(*r, "scrape_series_added"), 2);
  EXPECT_DOUBLE_EQ(value(*r, "scrape_duration_seconds"), 0.01);
  EXPECT_EQ(label_value(find(*r, "up")->labels, "job"), "vllm");
}

TEST(TargetScraper, ReadsOpenMetricsByItsContentType) {
  TargetScraper t(make_target(config()));
  const auto r = t.scrape_answer(
      1000,
      answer(
          "# TYPE req counter\nreq_total 3\nreq_created 12\n# TYPE lat histogram\nlat_bucket{le=\"1\"} 1 # "
          "{trace_id=\"x\"} 0.5\nlat_bucket{le=\"+Inf\"} 2\nlat_count 2\nlat_sum 3\n# EOF\n",
          "application/openmetrics-text; version=1.0.0; charset=utf-8"),
      0);
  ASSERT_TRUE(r->up) << r->error;
  EXPECT_EQ(r->samples_scraped, 5u);  // the _created sample is a creation time, not a sample
  EXPECT_EQ(find(*r, "req_created"), nullptr);
  EXPECT_EQ(find(*r, "lat_bucket", "le", "1")->value, 1);
}

TEST(TargetScraper, ASeriesThatDisappearsGetsTheStaleMarker) {
  TargetScraper t(make_target(config()));
  t.scrape_answer(1000, answer("a 1\nb 2\n"), 0);
  const auto r = t.scrape_answer(2000, answer("a 1\n"), 0);
  EXPECT_TRUE(r->up);
  EXPECT_EQ(r->stale_markers, 1u);
  const ScrapedSample* b = find(*r, "b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->t_ms, 2000);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(b->value), 0x7ff0000000000002ULL);  // Prometheus's StaleNaN
  EXPECT_EQ(value(*r, "scrape_series_added"), 0);
  // Gone is gone: the next scrape does not mark it again.
  EXPECT_EQ(t.scrape_answer(3000, answer("a 1\n"), 0)->stale_markers, 0u);
}

TEST(TargetScraper, AGarbageAnswerFailsTheScrapeAndMarksEverySeriesStale) {
  TargetScraper t(make_target(config()));
  t.scrape_answer(1000, answer("a 1\nb 2\n"), 0);
  const auto r = t.scrape_answer(2000, answer("a 1\n<html>oops</html>\n"), 0);
  EXPECT_FALSE(r->up);
  EXPECT_NE(r->error.find("parse error"), std::string::npos) << r->error;
  EXPECT_NE(r->error.find(":2:1:"), std::string::npos) << r->error;  // line 2, column 1 of the body
  EXPECT_EQ(value(*r, "up"), 0);
  EXPECT_EQ(value(*r, "scrape_samples_post_metric_relabeling"), 0);
  ASSERT_NE(find(*r, "a"), nullptr);
  EXPECT_TRUE(is_stale_marker(find(*r, "a")->value));
  EXPECT_TRUE(is_stale_marker(find(*r, "b")->value));
  EXPECT_EQ(r->stale_markers, 2u);
}

TEST(TargetScraper, AFailedFetchIsDownAndMarksTheSeriesStale) {
  TargetScraper t(make_target(config()));
  t.scrape_answer(1000, answer("a 1\n"), 0);
  const auto r = t.scrape_answer(2000, failure("connection refused or unreachable"), 0.001);
  EXPECT_FALSE(r->up);
  EXPECT_EQ(r->error, "connection refused or unreachable");
  EXPECT_TRUE(is_stale_marker(find(*r, "a")->value));
  // Back up: the series is new again.
  const auto back = t.scrape_answer(3000, answer("a 1\n"), 0);
  EXPECT_TRUE(back->up);
  EXPECT_EQ(value(*back, "scrape_series_added"), 1);
}

TEST(TargetScraper, OverTheSampleLimitTheWholeScrapeFails) {
  ScrapeTargetConfig c = config();
  c.sample_limit = 3;
  TargetScraper t(make_target(c));
  EXPECT_TRUE(t.scrape_answer(1000, answer("a 1\nb 1\nc 1\n"), 0)->up);
  const auto r = t.scrape_answer(2000, answer("a 1\nb 1\nc 1\nd 1\ne 1\n"), 0);
  EXPECT_FALSE(r->up);
  EXPECT_NE(r->error.find("sample_limit exceeded: 5 samples, limit 3"), std::string::npos) << r->error;
  EXPECT_EQ(value(*r, "scrape_samples_scraped"), 5);  // what the body held, as Prometheus reports it
  EXPECT_EQ(find(*r, "d"), nullptr);
  EXPECT_TRUE(is_stale_marker(find(*r, "a")->value));
}

TEST(TargetScraper, OverTheLabelLimitsTheWholeScrapeFails) {
  ScrapeTargetConfig c = config();
  c.label_limit = 5;  // __name__, instance, job, model and one of the target's own
  TargetScraper t(make_target(c));
  EXPECT_TRUE(t.scrape_answer(1000, answer("a{x=\"1\"} 1\n"), 0)->up);
  const auto many = t.scrape_answer(2000, answer("a{x=\"1\",y=\"2\"} 1\n"), 0);
  EXPECT_FALSE(many->up);
  EXPECT_NE(many->error.find("label_limit exceeded"), std::string::npos) << many->error;

  c = config();
  c.label_value_length_limit = 8;
  TargetScraper lengths(make_target(c));
  const auto longer = lengths.scrape_answer(1000, answer("a{x=\"123456789\"} 1\n"), 0);
  EXPECT_FALSE(longer->up);
  EXPECT_NE(longer->error.find("label_value_length_limit exceeded"), std::string::npos) << longer->error;

  c = config();
  c.label_name_length_limit = 4;
  TargetScraper names(make_target(c));
  EXPECT_FALSE(names.scrape_answer(1000, answer("a{longname=\"1\"} 1\n"), 0)->up);
}

TEST(TargetScraper, HonoursTheTimestampsTheTextGivesAndMarksNoneOfThoseStale) {
  TargetScraper t(make_target(config()));
  t.scrape_answer(5000, answer("a 1 4000\nb 2\n"), 0);
  const auto r = t.scrape_answer(6000, answer("c 1\n"), 0);
  EXPECT_EQ(find(*r, "a"), nullptr);  // its own timestamp: no marker, as in Prometheus
  EXPECT_TRUE(is_stale_marker(find(*r, "b")->value));

  TargetScraper own(make_target(config()));
  EXPECT_EQ(find(*own.scrape_answer(5000, answer("a 1 4000\n"), 0), "a")->t_ms, 4000);
  ScrapeTargetConfig c = config();
  c.honor_timestamps = false;
  TargetScraper ignored(make_target(c));
  EXPECT_EQ(find(*ignored.scrape_answer(5000, answer("a 1 4000\n"), 0), "a")->t_ms, 5000);
}

TEST(TargetScraper, AScrapedLabelThatClashesWithTheTargetsIsKeptAsExported) {
  TargetScraper t(make_target(config()));
  const auto r = t.scrape_answer(1000, answer("a{job=\"inner\",model=\"m2\"} 1\n"), 0);
  const ScrapedSample* a = find(*r, "a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(label_value(a->labels, "job"), "vllm");
  EXPECT_EQ(label_value(a->labels, "exported_job"), "inner");
  EXPECT_EQ(label_value(a->labels, "exported_model"), "m2");

  ScrapeTargetConfig c = config();
  c.honor_labels = true;
  TargetScraper honoured(make_target(c));
  EXPECT_EQ(
      label_value(find(*honoured.scrape_answer(1000, answer("a{job=\"inner\"} 1\n"), 0), "a")->labels, "job"),
      "inner");
}

TEST(TargetScraper, ADuplicateSeriesFailsTheScrape) {
  TargetScraper t(make_target(config()));
  const auto r = t.scrape_answer(1000, answer("a 1\na 2\n"), 0);
  EXPECT_FALSE(r->up);
  EXPECT_NE(r->error.find("duplicate sample"), std::string::npos) << r->error;
}

}  // namespace
}  // namespace gpuwatch::scrape
