// Calendar periods: where each period starts (UTC and a named zone, months of different lengths, a DST
// change, a start time that is not midnight), and an SLO whose budget resets at the period's start.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include <absl/time/civil_time.h>
#include <absl/time/time.h>

#include "slo/calendar_period.h"
#include "slo/slo_engine.h"
#include "slo/spec_files.h"
#include "slo/warm_start.h"

namespace gpuwatch::slo {
namespace {

std::int64_t utc_ms(int y, int mo, int d, int h = 0, int mi = 0, int s = 0) {
  return absl::ToUnixMillis(absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s), absl::UTCTimeZone()));
}

CalendarPeriod period(std::string_view duration, std::string zone = "UTC", std::string start = "") {
  auto p = parse_calendar_duration(duration);
  EXPECT_TRUE(p.has_value()) << duration;
  p->time_zone = std::move(zone);
  p->start_time = std::move(start);
  return *p;
}

TEST(CalendarPeriod, MonthsStartOnTheFirstAtMidnightWhateverTheirLength) {
  const CalendarClock clock(period("1M"));
  const auto feb = clock.period_of(utc_ms(2026, 2, 28, 23, 59, 59));
  EXPECT_EQ(feb.start_ms, utc_ms(2026, 2, 1));
  EXPECT_EQ(feb.end_ms, utc_ms(2026, 3, 1));
  EXPECT_EQ(clock.period_of(utc_ms(2026, 3, 1)).start_ms, utc_ms(2026, 3, 1));
  EXPECT_EQ(clock.period_of(utc_ms(2026, 3, 1) - 1).start_ms, utc_ms(2026, 2, 1));
  EXPECT_EQ(clock.period_of(utc_ms(2026, 12, 31, 12)).end_ms, utc_ms(2027, 1, 1));
}

TEST(CalendarPeriod, QuartersYearsWeeksAndDays) {
  EXPECT_EQ(CalendarClock(period("1Q")).period_of(utc_ms(2026, 6, 30, 23)).start_ms, utc_ms(2026, 4, 1));
  EXPECT_EQ(CalendarClock(period("1Y")).period_of(utc_ms(2026, 6, 30)).start_ms, utc_ms(2026, 1, 1));
  // 2026-12-02 is a Wednesday: its week began on Monday 2026-11-30.
  EXPECT_EQ(CalendarClock(period("1w")).period_of(utc_ms(2026, 12, 2, 15)).start_ms, utc_ms(2026, 11, 30));
  EXPECT_EQ(CalendarClock(period("1d")).period_of(utc_ms(2026, 12, 2, 15)).start_ms, utc_ms(2026, 12, 2));
  EXPECT_EQ(CalendarClock(period("2h")).period_of(utc_ms(2026, 12, 2, 15, 30)).start_ms,
            utc_ms(2026, 12, 2, 14));
}

TEST(CalendarPeriod, CountsFromTheStartTimeInTheSpecsTimeZone) {
  // Berlin is UTC+1 in winter, UTC+2 in summer: a month starts at local midnight on the 1st.
  const CalendarClock berlin(period("1M", "Europe/Berlin", "2026-01-01 00:00:00"));
  EXPECT_EQ(berlin.period_of(utc_ms(2026, 1, 15)).start_ms, utc_ms(2025, 12, 31, 23));
  EXPECT_EQ(berlin.period_of(utc_ms(2026, 4, 15)).start_ms, utc_ms(2026, 3, 31, 22));
  // Just before local midnight of 1 April it is still March there.
  EXPECT_EQ(berlin.period_of(utc_ms(2026, 3, 31, 21, 59)).start_ms, utc_ms(2026, 2, 28, 23));
  // Periods of 3 months from 15 February at noon.
  const CalendarClock odd(period("3M", "UTC", "2026-02-15 12:00:00"));
  EXPECT_EQ(odd.period_of(utc_ms(2026, 5, 15, 11)).start_ms, utc_ms(2026, 2, 15, 12));
  EXPECT_EQ(odd.period_of(utc_ms(2026, 5, 15, 12)).start_ms, utc_ms(2026, 5, 15, 12));
  EXPECT_EQ(odd.period_of(utc_ms(2026, 1, 1)).start_ms, utc_ms(2025, 11, 15, 12));
}

// Why a clock of `p` cannot be made ("" when it can).
std::string refusal(const CalendarPeriod& p, const std::string& module_path = "") {
  try {
    CalendarClock clock(p, module_path);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(CalendarPeriod, UnknownZonesAndStartsAreRefused) {
  EXPECT_NE(refusal(period("1M", "Mars/Olympus")).find("unknown time zone \"Mars/Olympus\""),
            std::string::npos)
      << refusal(period("1M", "Mars/Olympus"));
  EXPECT_NE(refusal(period("1M", "UTC", "first of the month")).find("expected YYYY-MM-DD hh:mm:ss"),
            std::string::npos);
  EXPECT_FALSE(parse_calendar_duration("1x").has_value());
  EXPECT_FALSE(parse_calendar_duration("M").has_value());
  EXPECT_FALSE(parse_calendar_duration("0M").has_value());
}

// Calendar periods come from the calendar module (abseil's civil time): without it a calendar SLO is refused
// with the reason, and nothing else needs it.
TEST(CalendarPeriod, WithoutItsModuleACalendarIsRefusedWithThePath) {
  const std::string why = refusal(period("1M"), "/nonexistent/gpuwatch-calendar.so");
  EXPECT_EQ(why.rfind("module_missing: ", 0), 0u) << why;
  EXPECT_NE(why.find("/nonexistent/gpuwatch-calendar.so"), std::string::npos) << why;
}

const char* kCalendarSlo = R"(apiVersion: openslo/v1
kind: SLO
metadata:
  name: availability
spec:
  service: mistral
  budgetingMethod: Occurrences
  timeWindow:
    - duration: 1M
      isRolling: false
      calendar:
        startTime: "2026-01-01 00:00:00"
        timeZone: UTC
  indicator:
    metadata:
      name: errors
    spec:
      ratioMetric:
        bad:
          metricSource:
            type: Prometheus
            spec:
              query: sum(rate(nv_inference_request_failure{model="mistral"}[5m]))
        total:
          metricSource:
            type: Prometheus
            spec:
              query: sum(rate(nv_inference_request_count{model="mistral"}[5m]))
  objectives:
    - target: 0.99
)";

ScrapeResult calendar_scrape(std::int64_t t_ms, double total, double failure) {
  ScrapeResult r;
  r.t_ms = t_ms;
  r.up = true;
  r.target = {{"instance", "127.0.0.1:18004"}, {"job", "inference"}};
  r.samples.push_back({{{"__name__", "nv_inference_request_count"}, {"model", "mistral"}}, t_ms, total});
  r.samples.push_back({{{"__name__", "nv_inference_request_failure"}, {"model", "mistral"}}, t_ms, failure});
  return r;
}

TEST(CalendarPeriod, TheBudgetResetsAtThePeriodsStart) {
  const auto specs = parse_slo_text(kCalendarSlo, "calendar.yaml");
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_TRUE(specs[0].calendar);
  EXPECT_EQ(specs[0].calendar_period.unit, CalendarUnit::kMonth);
  SloEngine engine(specs);
  // The last day of January: 100 requests a minute, 2% failing (twice the budget's 1%).
  double total = 0, failed = 0;
  const std::int64_t day_before = utc_ms(2026, 1, 31);
  for (int m = 0; m < 24 * 60; ++m) {
    if (m > 0) {
      total += 100;
      failed += 2;
    }
    engine.consume(calendar_scrape(day_before + m * 60'000LL, total, failed));
  }
  engine.evaluate(utc_ms(2026, 1, 31, 23, 59), {});
  EXPECT_NEAR(engine.status()[0].budget_remaining, -1, 0.01);  // spent twice over
  EXPECT_NEAR(engine.status()[0].sli_period, 0.98, 0.001);
  // 1 February, 00:10: ten minutes of clean requests in the new month; the rolling 1d window still burns.
  for (int m = 1; m <= 10; ++m) {
    total += 100;
    engine.consume(calendar_scrape(utc_ms(2026, 2, 1) + m * 60'000LL, total, failed));
  }
  engine.evaluate(utc_ms(2026, 2, 1, 0, 10), {});
  const SloStatus s = engine.status()[0];
  EXPECT_DOUBLE_EQ(s.budget_remaining, 1);
  EXPECT_DOUBLE_EQ(s.sli_period, 1);
  EXPECT_NEAR(s.burn_rate.at("1d"), 2, 0.05);
}

// A history that answers nothing and notes from when it was asked.
class EarliestAsked final : public SeriesSource {
 public:
  std::vector<SeriesPoints> select(std::span<const LabelMatcher>, std::int64_t min_t,
                                   std::int64_t) const override {
    earliest = std::min(earliest, min_t);
    return {};
  }
  std::vector<Labels> series(std::span<const LabelMatcher>, std::int64_t, std::int64_t) const override {
    return {};
  }
  mutable std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
};

// After a restart on 30 December a yearly budget is read back from 1 January: the year's real days, not its
// nominal length (twelve 30-day months).
TEST(CalendarPeriod, AWarmStartReadsTheHistoryFromThePeriodsStart) {
  std::string yearly = kCalendarSlo;
  yearly.replace(yearly.find("duration: 1M"), 12, "duration: 1Y");
  SloEngine engine(parse_slo_text(yearly, "calendar.yaml"));
  EarliestAsked history;
  warm_start(engine, history, utc_ms(2026, 12, 30));
  EXPECT_EQ(history.earliest, utc_ms(2026, 1, 1));
}

TEST(CalendarPeriod, ErrorsInTheCalendarSayFileLineAndWhy) {
  std::string bad = kCalendarSlo;
  bad.replace(bad.find("timeZone: UTC"), 13, "timeZone: Mars/Olympus");
  try {
    parse_slo_text(bad, "calendar.yaml");
    FAIL() << "no error";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("calendar.yaml:12:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Mars/Olympus"), std::string::npos) << e.what();
  }
  std::string month_rolling = kCalendarSlo;
  month_rolling.replace(month_rolling.find("isRolling: false"), 16, "isRolling: true");
  month_rolling.erase(month_rolling.find("      calendar:"),
                      month_rolling.find("  indicator:") - month_rolling.find("      calendar:"));
  EXPECT_THROW(parse_slo_text(month_rolling, "calendar.yaml"), SpecError);
}

}  // namespace
}  // namespace gpuwatch::slo
