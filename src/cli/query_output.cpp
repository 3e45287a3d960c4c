#include "cli/query_output.h"
#include "core/exposition_escaping.h"
#include "core/json_text.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

namespace gpuwatch {
namespace {

using nlohmann::json;

constexpr std::size_t kSparklineWidth = 60;

// x{a="b"}, the way Prometheus writes a series.
std::string series_name(const json& metric) {
  std::string name = metric.value("__name__", "");
  std::string labels;
  for (const auto& [k, v] : metric.items()) {
    if (k == "__name__") continue;
    labels += (labels.empty() ? "" : ", ") + k + "=\"";
    append_escaped_label_value(labels, v.get<std::string>());
    labels += '"';
  }
  return labels.empty() && !name.empty() ? name : name + "{" + labels + "}";
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string time_text(const json& t) {
  std::ostringstream o;
  o.precision(3);
  o << std::fixed << t.get<double>();
  std::string s = o.str();
  if (s.size() > 4 && s.substr(s.size() - 4) == ".000") s.resize(s.size() - 4);
  return s;
}

double number(const json& v) {
  return std::strtod(v.get<std::string>().c_str(), nullptr);
}

// Averages the points into at most kSparklineWidth buckets over the series' time span.
std::vector<double> resample(const json& values) {
  if (values.size() <= kSparklineWidth) {
    std::vector<double> out;
    for (const auto& p : values) out.push_back(number(p[1]));
    return out;
  }
  const double first = values.front()[0].get<double>();
  const double last = values.back()[0].get<double>();
  std::vector<double> sum(kSparklineWidth, 0), count(kSparklineWidth, 0);
  for (const auto& p : values) {
    const double pos = (p[0].get<double>() - first) / (last - first) * (kSparklineWidth - 1);
    const auto b = std::min(kSparklineWidth - 1, static_cast<std::size_t>(std::lround(pos)));
    sum[b] += number(p[1]);
    count[b] += 1;
  }
  std::vector<double> out(kSparklineWidth, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t b = 0; b < kSparklineWidth; ++b) {
    if (count[b] > 0) out[b] = sum[b] / count[b];
  }
  return out;
}

std::string table(const json& data) {
  const std::string type = data["resultType"];
  const json& result = data["result"];
  std::ostringstream out;
  if (type == "scalar" || type == "string") {
    out << result[1].get<std::string>() << "\n";
    return out.str();
  }
  if (result.empty()) return "no data\n";
  std::size_t width = 6;
  for (const auto& s : result) width = std::max(width, series_name(s["metric"]).size());
  if (type == "vector") {
    for (const auto& s : result) {
      const std::string name = series_name(s["metric"]);
      out << name << std::string(width - name.size() + 2, ' ') << s["value"][1].get<std::string>() << "\n";
    }
    return out.str();
  }
  for (const auto& s : result) {
    const std::string name = series_name(s["metric"]);
    const json& values = s["values"];
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const auto& p : values) {
      const double v = number(p[1]);
      if (std::isnan(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    out << name << std::string(width - name.size() + 2, ' ') << sparkline(resample(values)) << "  min "
        << (lo <= hi ? to_json_text(lo) : "NaN") << "  max " << (lo <= hi ? to_json_text(hi) : "NaN")
        << "  last " << values.back()[1].get<std::string>() << "  (" << values.size() << " points)\n";
  }
  return out.str();
}

std::string csv(const json& data) {
  const std::string type = data["resultType"];
  const json& result = data["result"];
  std::string out = "series,timestamp,value\n";
  const auto row = [&](const std::string& name, const json& point) {
    out += csv_field(name) + "," + time_text(point[0]) + "," + point[1].get<std::string>() + "\n";
  };
  if (type == "scalar" || type == "string") {
    row("", result);
  } else if (type == "vector") {
    for (const auto& s : result) row(series_name(s["metric"]), s["value"]);
  } else {
    for (const auto& s : result) {
      for (const auto& p : s["values"]) row(series_name(s["metric"]), p);
    }
  }
  return out;
}

}  // namespace

std::string sparkline(const std::vector<double>& values) {
  static const char* const kBlocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const double v : values) {
    if (std::isnan(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  std::string out;
  for (const double v : values) {
    if (std::isnan(v)) {
      out += ' ';
      continue;
    }
    const double frac = hi > lo ? (v - lo) / (hi - lo) : 0;
    out += kBlocks[std::clamp(static_cast<int>(frac * 7 + 0.5), 0, 7)];
  }
  return out;
}

std::string format_query_response(const nlohmann::json& response, QueryFormat format) {
  switch (format) {
    case QueryFormat::kJson:
      return to_json_text(response) + "\n";
    case QueryFormat::kCsv:
      return csv(response["data"]);
    case QueryFormat::kTable:
      return table(response["data"]);
  }
  return "";
}

}  // namespace gpuwatch
