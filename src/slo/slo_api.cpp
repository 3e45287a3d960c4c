#include "slo/slo_api.h"

#include <nlohmann/json.hpp>

#include "core/rfc3339.h"

namespace gpuwatch::slo {

std::string slos_json(const std::vector<SloStatus>& slos) {
  nlohmann::json data = nlohmann::json::array();
  for (const auto& s : slos) {
    nlohmann::json causes = nlohmann::json::array();
    for (const auto& c : s.causes) {
      causes.push_back({{"gpu", c.gpu},
                        {"uuid", c.uuid},
                        {"alertname", c.alertname},
                        {"since", format_rfc3339_ms(c.began_ms)},
                        {"measured", c.measured}});
    }
    data.push_back({{"service", s.service},
                    {"slo", s.name},
                    {"objective", s.objective},
                    {"sli", s.sli_now},
                    {"sliPeriod", s.sli_period},
                    {"budgetRemaining", s.budget_remaining},
                    {"burnRate", s.burn_rate},
                    {"alertState", s.alert_state},
                    {"gpus", s.gpus},
                    {"gpuCause", causes}});
  }
  // Labels and descriptions come from files and servers: invalid UTF-8 is replaced, never thrown on.
  return nlohmann::json{{"status", "success"}, {"data", data}}.dump(-1, ' ', false,
                                                                    nlohmann::json::error_handler_t::replace);
}

HttpRoute slos_route(std::shared_ptr<const SloEngine> engine) {
  return {{"GET"},
          "/api/v1/slos",
          "SLOs: objective, SLI, budget remaining, burn rates, alert state, GPU cause",
          [engine](const HttpRequest&) {
            HttpReply reply;
            reply.body = slos_json(engine->status());
            return reply;
          }};
}

}  // namespace gpuwatch::slo
