// The calendar module (gpuwatch-calendar.so): calendar SLO periods over abseil's civil time and time zones,
// and the module's one export, so that abseil's code runs (and is mapped) only in a process with a calendar
// SLO.
#include <absl/time/civil_time.h>
#include <absl/time/time.h>

#include <stdexcept>

#include "slo/calendar_period.h"
#include "slo/civil_calendar.h"

namespace gpuwatch::slo {
namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

bool by_months(CalendarUnit u) {
  return u == CalendarUnit::kMonth || u == CalendarUnit::kQuarter || u == CalendarUnit::kYear;
}

class AbslCalendar final : public CivilCalendar {
 public:
  // Throws std::invalid_argument when the time zone is unknown or the start time not "YYYY-MM-DD hh:mm:ss".
  explicit AbslCalendar(const CalendarPeriod& period);
  CalendarBounds period_of(std::int64_t t_ms) const override;

 private:
  std::int64_t start_of(std::int64_t k) const;  // the start of the k-th period from the calendar's start

  CalendarPeriod period_;
  absl::TimeZone zone_;
  absl::CivilSecond start_;
};

AbslCalendar::AbslCalendar(const CalendarPeriod& period) : period_(period) {
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

std::int64_t AbslCalendar::start_of(std::int64_t k) const {
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

CalendarBounds AbslCalendar::period_of(std::int64_t t_ms) const {
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

}  // namespace
}  // namespace gpuwatch::slo

extern "C" void gpuwatch_calendar_open_v1(const gpuwatch::slo::CalendarPeriod& period,
                                          std::unique_ptr<gpuwatch::slo::CivilCalendar>* out,
                                          std::string* error) {
  try {
    *out = std::make_unique<gpuwatch::slo::AbslCalendar>(period);
  } catch (const std::invalid_argument& e) {
    *error = e.what();
  }
}

// The type the loader casts the symbol to is the one this definition has.
static_assert(std::is_same_v<decltype(gpuwatch_calendar_open_v1), gpuwatch::slo::OpenCivilCalendar>);
