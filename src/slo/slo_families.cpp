#include "slo/slo_families.h"

#include <array>
#include <string_view>

namespace gpuwatch::slo {

std::vector<Family> slo_families(std::span<const SloStatus> status) {
  Family objective{"gpuwatch_slo_objective_ratio",
                   FamilyType::kGauge,
                   "ratio",
                   "The SLO's objective: the share of good events it promises over its period",
                   {}};
  Family sli{"gpuwatch_slo_sli_ratio",
             FamilyType::kGauge,
             "ratio",
             "Share of good events over the window (5m, 30m, 1h, 2h, 6h, 1d, 3d, period); 1 with no events",
             {}};
  Family burn{"gpuwatch_slo_burn_rate",
              FamilyType::kGauge,
              "",
              "How fast the window spends the error budget: its bad ratio over the allowed one",
              {}};
  Family remaining{"gpuwatch_slo_error_budget_remaining_ratio",
                   FamilyType::kGauge,
                   "ratio",
                   "Error budget left in the period: 1 - the period's burn rate; negative when overspent",
                   {}};
  Family state{"gpuwatch_slo_error_budget_state",
               FamilyType::kGauge,
               "",
               "1 for the SLO's alert state (ok, ticket or page), 0 for the others",
               {}};
  // Every state is written, 0 but the current one, so that a query for state="page" == 1 has a series to
  // compare and a change of state is a change of value, not a series that comes and goes.
  constexpr std::array<std::string_view, 3> kStates = {"ok", "ticket", "page"};
  for (const auto& s : status) {
    using SeriesLabels = decltype(Series::labels);  // names are literals: they outlive the families
    const SeriesLabels slo{{"slo", s.name}, {"service", s.service}};
    const auto with = [&](std::string_view name, const std::string& value) {
      SeriesLabels l = slo;
      l.emplace_back(name, value);
      return l;
    };
    objective.series.push_back(Series{slo, s.objective, 0});
    for (const auto& [window, ratio] : s.sli) sli.series.push_back(Series{with("window", window), ratio, 0});
    for (const auto& [window, rate] : s.burn_rate)
      burn.series.push_back(Series{with("window", window), rate, 0});
    remaining.series.push_back(Series{slo, s.budget_remaining, 0});
    for (const auto st : kStates)
      state.series.push_back(Series{with("state", std::string(st)), s.alert_state == st ? 1.0 : 0.0, 0});
  }
  std::vector<Family> out;
  for (Family* f : {&objective, &sli, &burn, &remaining, &state}) out.push_back(std::move(*f));
  return out;
}

}  // namespace gpuwatch::slo
