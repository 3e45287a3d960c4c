#include "alerting/silences_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "alerting/json_position.h"

namespace gpuwatch::alerting {

SilencesFile read_silences_file(const std::string& path, bool with_ids, bool missing_is_empty) {
  SilencesFile out;
  std::string error;
  const auto document = read_json_file(path, missing_is_empty, error);
  if (!document) {
    if (!error.empty()) out.errors.push_back(error);
    return out;
  }
  const nlohmann::json& j = *document;
  if (!j.is_array()) {
    out.errors.push_back(path +
                         ": expected a JSON list of silences [{matchers, startsAt, endsAt, comment}, ...]");
    return out;
  }
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string where = path + ": silence " + std::to_string(i) + ": ";
    std::string error;
    auto s = parse_silence(j[i], error);
    if (!s) {
      out.errors.push_back(where + error);
      continue;
    }
    if (with_ids) {
      if (!j[i].contains("id") || !j[i]["id"].is_string() || j[i]["id"].get<std::string>().empty()) {
        out.errors.push_back(where + "id: expected a non-empty string");
        continue;
      }
      s->id = j[i]["id"].get<std::string>();
    }
    out.silences.push_back(std::move(*s));
  }
  return out;
}

}  // namespace gpuwatch::alerting
