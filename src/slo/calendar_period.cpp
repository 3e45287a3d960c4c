#include "slo/calendar_period.h"

#include <charconv>
#include <stdexcept>

namespace gpuwatch::slo {
namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

std::int64_t months_of(const CalendarPeriod& p) {
  return p.count * (p.unit == CalendarUnit::kMonth ? 1 : p.unit == CalendarUnit::kQuarter ? 3 : 12);
}

bool by_months(CalendarUnit u) {
  return u == CalendarUnit::kMonth || u == CalendarUnit::kQuarter || u == CalendarUnit::kYear;
}

}  // namespace

std::optional<CalendarPeriod> parse_calendar_duration(std::string_view text) {
  if (text.size() < 2) return std::nullopt;
  int count = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size() - 1, count);
  if (ec != std::errc() || end != text.data() + text.size() - 1 || count <= 0) return std::nullopt;
  CalendarPeriod p;
  p.count = count;
  switch (text.back()) {
    case 'm':
      p.unit = CalendarUnit::kMinute;
      break;
    case 'h':
      p.unit = CalendarUnit::kHour;
      break;
    case 'd':
      p.unit = CalendarUnit::kDay;
      break;
    case 'w':
      p.unit = CalendarUnit::kWeek;
      break;
    case 'M':
      p.unit = CalendarUnit::kMonth;
      break;
    case 'Q':
      p.unit = CalendarUnit::kQuarter;
      break;
    case 'Y':
      p.unit = CalendarUnit::kYear;
      break;
    default:
      return std::nullopt;
  }
  return p;
}

std::string describe(const CalendarPeriod& p) {
  static constexpr char kUnits[] = {'m', 'h', 'd', 'w', 'M', 'Q', 'Y'};
  return "calendar " + std::to_string(p.count) + kUnits[static_cast<int>(p.unit)] +
         (p.start_time.empty() ? "" : " from " + p.start_time) + " " + p.time_zone;
}

std::chrono::milliseconds nominal_length(const CalendarPeriod& p) {
  using std::chrono::hours;
  using std::chrono::minutes;
  switch (p.unit) {
    case CalendarUnit::kMinute:
      return minutes(p.count);
    case CalendarUnit::kHour:
      return hours(p.count);
    case CalendarUnit::kDay:
      return hours(24 * p.count);
    case CalendarUnit::kWeek:
      return hours(24 * 7 * p.count);
    default:
      break;
  }
  return hours(24 * 30 * months_of(p));
}

CalendarClock::CalendarClock(const CalendarPeriod& period) : period_(period) {
  if (period_.count <= 0) throw std::invalid_argument("the period must be at least 1");
  if (!absl::LoadTimeZone(period_.time_zone, &zone_))
    throw std::invalid_argument("unknown time zone \"" + period_.time_zone +
                                "\" (an IANA name such as UTC or Europe/Berlin)");
  std::string civil = period_.start_time;
  if (civil.empty())
    civil = period_.unit == CalendarUnit::kWeek ? "1970-01-05 00:00:00" : "1970-01-01 00:00:00";
  if (civil.size() > 10 && civil[10] == ' ') civil[10] = 'T';
  if (!absl::ParseCivilTime(civil, &start_))
    throw std::invalid_argument("startTime \"" + period_.start_time + "\": expected YYYY-MM-DD hh:mm:ss");
}

std::int64_t CalendarClock::start_of(std::int64_t k) const {
  const absl::CivilSecond& s = start_;
  absl::CivilSecond at;
  switch (period_.unit) {
    case CalendarUnit::kMinute:
    case CalendarUnit::kHour: {
      // Absolute steps: an hour is an hour across a DST change.
      const std::int64_t step_s = period_.count * (period_.unit == CalendarUnit::kMinute ? 60 : 3600);
      return absl::ToUnixMillis(absl::FromCivil(s, zone_) + absl::Seconds(k * step_s));
    }
    case CalendarUnit::kDay:
    case CalendarUnit::kWeek: {
      const absl::CivilDay d =
          absl::CivilDay(s) + k * period_.count * (period_.unit == CalendarUnit::kWeek ? 7 : 1);
      at = absl::CivilSecond(d.year(), d.month(), d.day(), s.hour(), s.minute(), s.second());
      break;
    }
    default: {
      const absl::CivilMonth m = absl::CivilMonth(s) + k * months_of(period_);
      at = absl::CivilSecond(m.year(), m.month(), s.day(), s.hour(), s.minute(), s.second());
      break;
    }
  }
  return absl::ToUnixMillis(absl::FromCivil(at, zone_));
}

CalendarClock::Bounds CalendarClock::period_of(std::int64_t t_ms) const {
  const absl::CivilSecond now = absl::ToCivilSecond(absl::FromUnixMillis(t_ms), zone_);
  std::int64_t k = 0;
  if (by_months(period_.unit)) {
    const std::int64_t months = (now.year() - start_.year()) * 12 + (now.month() - start_.month());
    k = floor_div(months, months_of(period_));
  } else if (period_.unit == CalendarUnit::kDay || period_.unit == CalendarUnit::kWeek) {
    const std::int64_t days = absl::CivilDay(now) - absl::CivilDay(start_);
    k = floor_div(days, period_.count * (period_.unit == CalendarUnit::kWeek ? 7 : 1));
  } else {
    const std::int64_t step_ms =
        std::int64_t{period_.count} * (period_.unit == CalendarUnit::kMinute ? 60'000 : 3'600'000);
    k = floor_div(t_ms - start_of(0), step_ms);
  }
  // The estimate is off by one at most (a day or time of day later in the period than now's).
  while (start_of(k) > t_ms) --k;
  while (start_of(k + 1) <= t_ms) ++k;
  return {start_of(k), start_of(k + 1)};
}

}  // namespace gpuwatch::slo
