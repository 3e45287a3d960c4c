#include "query/result_json.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/json_text.h"

namespace gpuwatch::query {
namespace {

void append_point(std::string& out, std::int64_t t_ms, double v) {
  out += '[';
  out += format_timestamp(t_ms);
  out += ",\"";
  out += format_value(v);
  out += "\"]";
}

}  // namespace

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[400];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  std::string s(buf, r.ptr);
  // Go's FormatFloat(v, 'f', -1, 64) never writes "-0".
  if (s == "-0") s = "0";
  return s;
}

std::string format_timestamp(std::int64_t t_ms) {
  std::string out;
  if (t_ms < 0) {
    out += '-';
    t_ms = -t_ms;
  }
  out += std::to_string(t_ms / 1000);
  const std::int64_t fraction = t_ms % 1000;
  if (fraction != 0) {
    char buf[8];
    std::snprintf(buf, sizeof buf, ".%03lld", static_cast<long long>(fraction));
    out += buf;
  }
  return out;
}

void append_labels_json(std::string& out, const store::Labels& labels) {
  out += '{';
  bool first = true;
  for (const auto& [name, value] : labels) {
    if (!first) out += ',';
    first = false;
    append_json_string(out, name);
    out += ':';
    append_json_string(out, value);
  }
  out += '}';
}

std::string result_to_json(const QueryResult& r) {
  std::string out = R"({"status":"success","data":{"resultType":")";
  const Steps& steps = r.steps;
  const std::size_t n = steps.count();
  switch (r.type) {
    case ValueType::kScalar:
      out += R"(scalar","result":)";
      append_point(out, steps.start, r.value.scalar.empty() ? NAN : r.value.scalar[0]);
      break;
    case ValueType::kString:
      out += R"(string","result":[)";
      out += format_timestamp(steps.start);
      out += ',';
      append_json_string(out, r.value.string);
      out += ']';
      break;
    case ValueType::kVector:
      out += R"(vector","result":[)";
      for (std::size_t i = 0; i < r.value.vector.size(); ++i) {
        const auto& s = r.value.vector[i];
        if (i) out += ',';
        out += R"({"metric":)";
        append_labels_json(out, s.labels);
        out += R"(,"value":)";
        append_point(out, steps.start, s.values[0]);
        out += '}';
      }
      out += ']';
      break;
    case ValueType::kMatrix: {
      out += R"(matrix","result":[)";
      bool first = true;
      const auto series = [&](const store::Labels& labels, auto&& points) {
        if (!first) out += ',';
        first = false;
        out += R"({"metric":)";
        append_labels_json(out, labels);
        out += R"(,"values":[)";
        points();
        out += "]}";
      };
      if (!r.range) {
        for (const auto& s : r.value.matrix) {
          series(s.labels, [&] {
            for (std::size_t k = 0; k < s.points.size(); ++k) {
              if (k) out += ',';
              append_point(out, s.points[k].t_ms, s.points[k].value);
            }
          });
        }
      } else if (r.value.type == ValueType::kScalar) {
        series({}, [&] {
          for (std::size_t k = 0; k < n; ++k) {
            if (k) out += ',';
            append_point(out, steps.at(k), r.value.scalar[k]);
          }
        });
      } else {
        for (const auto& s : r.value.vector) {
          series(s.labels, [&] {
            bool first_point = true;
            for (std::size_t k = 0; k < n; ++k) {
              if (!s.present[k]) continue;
              if (!first_point) out += ',';
              first_point = false;
              append_point(out, steps.at(k), s.values[k]);
            }
          });
        }
      }
      out += ']';
      break;
    }
  }
  out += "}}";
  return out;
}

std::string error_to_json(const std::string& error_type, const std::string& message) {
  std::string out = R"({"status":"error","errorType":)";
  append_json_string(out, error_type);
  out += R"(,"error":)";
  append_json_string(out, message);
  out += '}';
  return out;
}

}  // namespace gpuwatch::query
