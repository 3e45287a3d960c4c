// Query results and errors in the JSON of Prometheus's HTTP API: {"status":"success","data":{"resultType":
// ..., "result": ...}}; times as seconds with millisecond decimals, values as strings ("NaN", "+Inf").
#pragma once

#include <cstdint>
#include <string>

#include "query/engine.h"
#include "query/query_error.h"

namespace gpuwatch::query {

std::string result_to_json(const QueryResult& result);
std::string error_to_json(const std::string& error_type, const std::string& message);
// A series' labels as a JSON object ({"__name__":"up","job":"x"}), as the API writes them everywhere.
void append_labels_json(std::string& out, const store::Labels& labels);

// Prometheus's spellings, shared with the CLI's table and CSV output.
std::string format_value(double v);               // shortest round-trip decimal, "NaN", "+Inf", "-Inf"
std::string format_timestamp(std::int64_t t_ms);  // 1435781451.781

}  // namespace gpuwatch::query
