#include "alerting/silences_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "alerting/json_position.h"
#include "core/file_io.h"
#include "core/utf8.h"

namespace gpuwatch::alerting {

SilencesFile read_silences_file(const std::string& path, bool with_ids, bool missing_is_empty) {
  SilencesFile out;
  std::error_code missing;
  if (missing_is_empty && !std::filesystem::exists(path, missing) && !missing) return out;
  std::string error;
  const auto read = read_file(path, &error);
  if (!read) {
    out.errors.push_back(error);
    return out;
  }
  const std::string& text = *read;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann's message repeats the position as a byte offset; the line and column say it for an editor.
    std::string what = e.what();
    if (const auto colon = what.find("syntax error"); colon != std::string::npos) what = what.substr(colon);
    out.errors.push_back(path + ":" + line_column(text, e.byte) + ": invalid JSON: " + to_valid_utf8(what));
    return out;
  }
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
