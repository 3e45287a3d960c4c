// label_replace and label_join: new label sets for the series of an instant vector, values unchanged
// (__name__ kept unless it is the destination). Series that end up with the same labels are joined;
// two with a value at the same step fail the query, as in Prometheus.
#pragma once

#include <string>
#include <vector>

#include "query/value.h"

namespace gpuwatch::query {

// Where `regex` (anchored at both ends; `.` does not match a newline, as Go's default) matches the value of
// label `src`, label `dst` becomes `replacement` with $1, ${1}, $name, ${name} and $$ expanded as Go's
// Regexp.Expand does; an empty result removes `dst`. Throws QueryError (execution) for an invalid regex or
// destination name.
Value label_replace(Value v, const std::string& dst, const std::string& replacement, const std::string& src,
                    const std::string& regex);

// Label `dst` becomes the values of `src` (missing ones empty) joined by `separator`; empty removes it.
// Throws QueryError (execution) for an invalid label name.
Value label_join(Value v, const std::string& dst, const std::string& separator,
                 const std::vector<std::string>& src);

}  // namespace gpuwatch::query
