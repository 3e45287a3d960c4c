// The date functions (hour(), day_of_week(), ...): a sample's value read as Unix seconds, cut to whole
// seconds, and taken apart in UTC on the same calendar and with the same integer arithmetic as
// Prometheus's Go runtime, so that every value (negative, huge, NaN) gives the same answer.
#pragma once

namespace gpuwatch::query::date {

// Element functions (see ElementFn): the last two arguments are unused.
double minute(double seconds, double, double);
double hour(double seconds, double, double);
double day_of_week(double seconds, double, double);  // 0 = Sunday
double day_of_month(double seconds, double, double);
double day_of_year(double seconds, double, double);  // 1 = January 1st
double days_in_month(double seconds, double, double);
double month(double seconds, double, double);  // 1 = January
double year(double seconds, double, double);

}  // namespace gpuwatch::query::date
