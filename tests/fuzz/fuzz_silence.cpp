// Silence bodies from POST /api/v1/silences (and the kept silences file): any JSON gives a silence or an
// error message; a silence that parses round-trips through its JSON form and matches labels without throwing.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "alerting/silences.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto body = nlohmann::json::parse(data, data + size, nullptr, false);
  if (body.is_discarded()) return 0;
  std::string error;
  const auto silence = gpuwatch::alerting::parse_silence(body, error);
  if (!silence) {
    if (error.empty()) __builtin_trap();  // a refusal says why
    return 0;
  }
  const gpuwatch::alerting::LabelSet labels{{"alertname", "GpuXidError"}, {"gpu", "0"}, {"xid", "79"}};
  (void)silence->selects(labels);
  const auto shown = gpuwatch::alerting::silence_json(*silence, 0);
  (void)shown.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
  return 0;
}
