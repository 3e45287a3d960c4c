// `gpuwatch status --query-gpu FIELDS --format csv[,noheader][,nounits]` and `--query-compute-apps FIELDS`:
// the CSV that nvidia-smi scripts read, with nvidia-smi's field names where it has one (a script ports by
// changing the command) and gpuwatch's own beside them (the health verdict and its reasons, the user and
// command line of a process). One table per kind drives the fields: their names, units, help and how each is
// read from the snapshot. Rows, values and header are laid out as nvidia-smi lays them out: ", " between
// values, "[unit]" after a name in the header, the unit after each value unless nounits. A value the snapshot
// does not hold (not read, not supported, a lost GPU's readings) is "[N/A]"; a value holding a comma, a quote
// or a line break is quoted as RFC 4180 says.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/snapshot.h"
#include "rules/detector_settings.h"

namespace gpuwatch {

enum class StatusQueryKind {
  kGpu,          // --query-gpu: one row per GPU (and per MIG instance), lost ones included
  kComputeApps,  // --query-compute-apps: one row per compute process on a GPU
};

// What is missing prints as this, whatever the reason (nvidia-smi's "[Not Supported]" is not told apart).
inline constexpr std::string_view kNotAvailable = "[N/A]";

struct StatusQuery {
  StatusQueryKind kind = StatusQueryKind::kGpu;
  std::vector<std::size_t> fields;   // into the kind's table, in the order asked
  std::vector<std::string> headers;  // each field's name as asked for (an alias stays an alias)
  bool header = true;                // "noheader" clears it
  bool units = true;                 // "nounits" clears it: values without units (the header keeps them)
};

// `fields`: names separated by commas (spaces around them allowed). `format`: "csv", then "noheader" and
// "nounits" in any order, separated by commas. Returns "" and fills `out`, or the usage error: an unknown
// field is named with the fields close to it.
std::string parse_status_query(StatusQueryKind kind, std::string_view fields, std::string_view format,
                               StatusQuery& out);

// Whether a field list asks for the list of fields (`--query-gpu help`).
bool is_field_help(std::string_view fields);

// The CSV of `query` over the snapshot; health is judged with `settings`, as the table and the exit code
// judge it.
std::string render_status_query(const Snapshot& snapshot, const StatusQuery& query,
                                const rules::DetectorSettings& settings = {});

// Every field of `kind`: name, other spelling, unit, and what it is (--help-query-gpu,
// --help-query-compute-apps, and docs/status.md).
std::string status_query_help(StatusQueryKind kind);

// The field names of `kind`, aliases after them, in table order.
std::vector<std::string_view> status_query_field_names(StatusQueryKind kind);

}  // namespace gpuwatch
