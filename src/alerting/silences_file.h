// Reading a list of silences in Alertmanager's JSON form from a file: the config's maintenance windows
// (silences_file) and the silences saved in the data dir. A bad file never stops the agent: each problem is
// one error that names the file (and line:column for a syntax error) and the silence, that silence is left
// out, and the others are kept.
#pragma once

#include <string>
#include <vector>

#include "alerting/silences.h"

namespace gpuwatch::alerting {

struct SilencesFile {
  std::vector<Silence> silences;
  std::vector<std::string> errors;  // "path:line:column: ..." or "path: silence 2: ..."
};

// with_ids: each silence must carry its "id" (a string), as the saved ones do. A missing file is an error
// unless `missing_is_empty`.
SilencesFile read_silences_file(const std::string& path, bool with_ids, bool missing_is_empty = false);

}  // namespace gpuwatch::alerting
