// The oracle: the same GPU-shaped samples go into a real Prometheus (through promtool) and into a memory
// source behind gpuwatch's query API; every expression of the subset is evaluated by both, as instant
// queries and as range queries with Grafana-style aligned steps, and the answers must agree: same series,
// same timestamps, values within 1e-9 relative (NaN and infinities exactly). No expected number is
// written by hand.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include <httplib.h>

#include "gpu_samples.h"
#include "http/http_server.h"
#include "prometheus_server.h"
#include "query/memory_series_source.h"
#include "query/query_api.h"

namespace gpuwatch::test {
namespace {

constexpr double kRelativeTolerance = 1e-9;

// Every function, aggregation and operator of the subset, with the data's awkward spots: resets, the
// 20-minute gap on GPU 3, the series that ends early, windows with too few points.
const char* const kExpressions[] = {
    "gpu_temperature_celsius",
    "gpu_power_watts{gpu=\"1\"}",
    "gpu_power_watts{gpu!=\"1\"}",
    "gpu_power_watts{gpu=~\"[12]\"}",
    "gpu_power_watts{gpu!~\"0|3\"}",
    "{__name__=~\"gpu_(power_watts|temperature_celsius)\", gpu=\"2\"}",
    "gpu_utilization_ratio",
    "gpu_utilization_ratio offset 10m",
    "gpu_power_watts offset 1h",
    "rate(gpu_energy_joules_total[5m])",
    "rate(gpu_energy_joules_total[1m])",
    "rate(gpu_energy_joules_total[5m] offset 30m)",
    "increase(gpu_energy_joules_total[10m])",
    "delta(gpu_temperature_celsius[10m])",
    "deriv(gpu_power_watts[10m])",
    "deriv(gpu_temperature_celsius[5m])",
    "predict_linear(gpu_memory_used_bytes[30m], 3600)",
    "irate(gpu_energy_joules_total[5m])",
    "idelta(gpu_power_watts[2m])",
    "changes(gpu_temperature_celsius[15m])",
    "resets(gpu_energy_joules_total[1h])",
    "avg_over_time(gpu_power_watts[5m])",
    "min_over_time(gpu_temperature_celsius[10m])",
    "max_over_time(gpu_memory_used_bytes[5m])",
    "sum_over_time(gpu_power_watts[3m])",
    "count_over_time(gpu_utilization_ratio[10m])",
    "last_over_time(gpu_utilization_ratio[10m])",
    "quantile_over_time(0.9, gpu_power_watts[10m])",
    "stddev_over_time(gpu_power_watts[10m])",
    "rate(gpu_xid_errors_total[10m])",
    "increase(gpu_xid_errors_total[30m])",
    "changes(gpu_xid_errors_total[1h])",
    "absent(gpu_utilization_ratio{gpu=\"3\"})",
    "absent(nonexistent_metric{gpu=\"7\", job=\"x\"})",
    "absent_over_time(gpu_utilization_ratio{gpu=\"3\"}[5m])",
    "histogram_quantile(0.9, rate(gpu_kernel_duration_seconds_bucket[5m]))",
    "histogram_quantile(0.5, sum by (le) (rate(gpu_kernel_duration_seconds_bucket[5m])))",
    "histogram_quantile(0.99, gpu_kernel_duration_seconds_bucket)",
    "sum(gpu_power_watts)",
    "sum by (gpu) (rate(gpu_energy_joules_total[5m]))",
    "avg by (gpu) (gpu_utilization_ratio)",
    "avg(gpu_utilization_ratio)",
    "min without (uuid) (gpu_temperature_celsius)",
    "max(gpu_power_watts) by (uuid)",
    "count(gpu_utilization_ratio)",
    "count by (gpu) (gpu_kernel_duration_seconds_bucket)",
    "topk(2, gpu_power_watts)",
    "bottomk(1, gpu_power_watts)",
    "topk by (gpu) (1, gpu_power_watts)",
    "quantile(0.5, gpu_power_watts)",
    "quantile(0.25, gpu_temperature_celsius + gpu_power_watts)",
    "gpu_power_watts * 2",
    "2 * gpu_power_watts",
    "gpu_power_watts / gpu_power_watts",
    "gpu_power_watts - 300",
    "gpu_memory_used_bytes / 1024 / 1024",
    "gpu_power_watts % 7",
    "gpu_temperature_celsius ^ 2",
    "-gpu_power_watts",
    "gpu_power_watts > 300",
    "gpu_power_watts > bool 300",
    "300 < gpu_power_watts",
    "gpu_temperature_celsius == bool 45",
    "gpu_temperature_celsius != 45",
    "gpu_power_watts <= 250 or gpu_power_watts >= 450",
    "gpu_power_watts / on(gpu, uuid) gpu_temperature_celsius",
    "gpu_power_watts / ignoring(uuid) gpu_temperature_celsius",
    "gpu_power_watts > on(gpu) gpu_temperature_celsius * 8",
    "gpu_power_watts * on(gpu) group_left(model) gpu_info",
    "gpu_info * on(gpu, uuid) group_right gpu_power_watts",
    "sum by (model) (gpu_power_watts * on(gpu) group_left(model) gpu_info)",
    "gpu_utilization_ratio and gpu_temperature_celsius > 45",
    "gpu_utilization_ratio or gpu_temperature_celsius",
    "gpu_power_watts unless gpu_utilization_ratio",
    "gpu_power_watts and on(gpu) gpu_utilization_ratio > 0.5",
    "time()",
    "vector(1)",
    "scalar(gpu_power_watts{gpu=\"0\"})",
    "gpu_power_watts * scalar(gpu_temperature_celsius{gpu=\"0\"})",
    "timestamp(gpu_power_watts)",
    "abs(-gpu_power_watts)",
    "clamp_max(gpu_power_watts, 400)",
    "clamp_min(gpu_temperature_celsius, 44)",
    "round(gpu_power_watts, 5)",
    "1 + 2 * 3",
    "2 ^ 3 ^ 2",
    "-2 ^ 2",
    "(1 > bool 2) + 1",
    "sum(rate(gpu_energy_joules_total[5m])) / count(gpu_energy_joules_total)",
};

using nlohmann::json;

class OracleTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
    // Three hours of data ending at least an hour ago: inside the retention, clear of "now".
    start_ms_ = (now_ms / 3'600'000 - 4) * 3'600'000;
    const auto families = make_gpu_samples(start_ms_, 3 * 3'600'000);
    prometheus_ = std::make_unique<PrometheusServer>(to_openmetrics(families));
    auto source = std::make_shared<query::MemorySeriesSource>();
    load(*source, families);
    HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    options.routes = query::query_routes(source);
    ours_ = std::make_unique<HttpServer>(
        options, [] { return SnapshotPtr(); }, [] { return true; });
    ours_->start();
  }
  static void TearDownTestSuite() {
    ours_.reset();
    prometheus_.reset();
  }

  static std::pair<int, json> get(int port, const std::string& path, const httplib::Params& params) {
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(30);
    // Prometheus takes POST forms on the query, series and labels endpoints, GET alone on the others.
    const bool get_only = path.find("/label/") != std::string::npos;
    const auto r = get_only ? client.Get(path, params, httplib::Headers{}) : client.Post(path, params);
    if (!r) return {0, json()};
    return {r->status, json::parse(r->body, nullptr, false)};
  }

  // Both answer the same: same status and error type, or the same series with the same points. Returns the
  // number of points compared, so a table entry that never yields data is noticed.
  static std::size_t expect_same(const std::string& path, const httplib::Params& params) {
    std::size_t compared = 0;
    expect_same(path, params, compared);
    return compared;
  }
  static void expect_same(const std::string& path, const httplib::Params& params, std::size_t& compared) {
    const auto [ps, prom] = get(prometheus_->port(), path, params);
    const auto [os, ours] = get(ours_->port(), path, params);
    ASSERT_EQ(os, ps) << "prometheus: " << prom.dump() << "\ngpuwatch: " << ours.dump();
    ASSERT_EQ(ours["status"], prom["status"]) << ours.dump();
    if (prom["status"] != "success") {
      EXPECT_EQ(ours["errorType"], prom["errorType"]) << prom.dump() << "\n" << ours.dump();
      return;
    }
    const json& pd = prom["data"];
    const json& od = ours["data"];
    if (!pd.is_object() || !pd.contains("resultType")) {  // series, labels, label values: sorted lists
      const auto sorted = [](json j) {
        if (j.is_array()) std::sort(j.begin(), j.end());
        return j;
      };
      EXPECT_EQ(sorted(od), sorted(pd));
      return;
    }
    ASSERT_EQ(od["resultType"], pd["resultType"]);
    if (pd["resultType"] == "scalar" || pd["resultType"] == "string") {
      ++compared;
      expect_point(od["result"], pd["result"]);
      return;
    }
    const auto by_labels = [](const json& result) {
      std::map<std::string, json> out;
      for (const auto& s : result)
        out[s["metric"].dump()] = s.contains("values") ? s["values"] : json::array({s["value"]});
      return out;
    };
    const auto p = by_labels(pd["result"]);
    const auto o = by_labels(od["result"]);
    std::string pk, ok;
    for (const auto& [k, v] : p) pk += k + "\n";
    for (const auto& [k, v] : o) ok += k + "\n";
    ASSERT_EQ(ok, pk) << "series differ";
    for (const auto& [labels, points] : p) {
      const json& mine = o.at(labels);
      ASSERT_EQ(mine.size(), points.size())
          << labels << "\nprometheus: " << points.dump() << "\ngpuwatch: " << mine.dump();
      for (std::size_t i = 0; i < points.size(); ++i) expect_point(mine[i], points[i]);
      compared += points.size();
    }
  }

  static void expect_point(const json& mine, const json& theirs) {
    ASSERT_EQ(mine[0].get<double>(), theirs[0].get<double>()) << "timestamps differ";
    const std::string ms = mine[1].get<std::string>();
    const std::string ts = theirs[1].get<std::string>();
    const double a = std::strtod(ms.c_str(), nullptr);
    const double b = std::strtod(ts.c_str(), nullptr);
    if (std::isnan(b) || std::isinf(b) || std::isnan(a) || std::isinf(a)) {
      EXPECT_EQ(ms, ts) << "at " << theirs[0];
      return;
    }
    const double tolerance = kRelativeTolerance * std::max(std::fabs(a), std::fabs(b));
    EXPECT_LE(std::fabs(a - b), std::max(tolerance, 1e-300))
        << "at " << theirs[0] << ": gpuwatch " << ms << ", prometheus " << ts;
  }

  static std::string seconds(std::int64_t ms) {
    return std::to_string(ms / 1000) + "." + std::to_string(1000 + ms % 1000).substr(1);
  }

  static inline std::int64_t start_ms_ = 0;
  static inline std::unique_ptr<PrometheusServer> prometheus_;
  static inline std::unique_ptr<HttpServer> ours_;
};

TEST_F(OracleTest, InstantQueriesAgreeWithPrometheus) {
  // Inside the data, in GPU 3's gap, near the end, after the end within and beyond the lookback, and
  // before the first window is full.
  const std::int64_t minute = 60'000;
  const std::int64_t times[] = {start_ms_ + 35 * minute + 250, start_ms_ + 80 * minute,
                                start_ms_ + 179 * minute,      start_ms_ + 184 * minute,
                                start_ms_ + 200 * minute,      start_ms_ + 5'000};
  for (const char* expr : kExpressions) {
    for (const std::int64_t t : times) {
      SCOPED_TRACE(std::string(expr) + " at " + seconds(t));
      expect_same("/api/v1/query", {{"query", expr}, {"time", seconds(t)}});
    }
  }
}

TEST_F(OracleTest, RangeQueriesAgreeWithPrometheus) {
  struct Range {
    std::int64_t start, end, step;
  };
  const std::int64_t minute = 60'000;
  // Grafana aligns start and end to the step; the others are not aligned to anything.
  const Range ranges[] = {
      {(start_ms_ + 20 * minute) / minute * minute, (start_ms_ + 200 * minute) / minute * minute, minute},
      {start_ms_ + 60 * minute, start_ms_ + 120 * minute, 15'000},
      {start_ms_ + 7 * minute + 500, start_ms_ + 190 * minute, 37'000},
  };
  for (const char* expr : kExpressions) {
    std::size_t compared = 0;
    for (const Range& r : ranges) {
      SCOPED_TRACE(std::string(expr) + " from " + seconds(r.start) + " step " + std::to_string(r.step));
      compared += expect_same("/api/v1/query_range", {{"query", expr},
                                                      {"start", seconds(r.start)},
                                                      {"end", seconds(r.end)},
                                                      {"step", std::to_string(r.step / 1000)}});
    }
    EXPECT_GT(compared, 10u) << expr << ": Prometheus returned (almost) nothing, so nothing was compared";
  }
}

TEST_F(OracleTest, RangeVectorInstantQueryReturnsRawPoints) {
  expect_same("/api/v1/query", {{"query", "gpu_power_watts[2m]"}, {"time", seconds(start_ms_ + 3'600'000)}});
  expect_same("/api/v1/query", {{"query", "gpu_utilization_ratio{gpu=\"3\"}[5m] offset 10m"},
                                {"time", seconds(start_ms_ + 5'000'000)}});
}

TEST_F(OracleTest, ErrorsHaveTheSameShapeAsPrometheus) {
  const std::string t = seconds(start_ms_ + 3'600'000);
  for (const char* bad : {"sum(", "rate(gpu_power_watts)", "gpu_power_watts{", "1 +", "foo(bar)", "x[5m] + 1",
                          "1 > 2", "{}", "rate(gpu_power_watts[5m]"}) {
    SCOPED_TRACE(bad);
    expect_same("/api/v1/query", {{"query", bad}, {"time", t}});
  }
  expect_same("/api/v1/query", {{"query", "gpu_power_watts"}, {"time", "yesterday"}});
  expect_same("/api/v1/query_range", {{"query", "gpu_power_watts"}, {"start", t}, {"end", t}, {"step", "0"}});
  expect_same("/api/v1/query_range",
              {{"query", "gpu_power_watts[5m]"}, {"start", t}, {"end", t}, {"step", "60"}});
  expect_same("/api/v1/query_range", {{"query", "up"}, {"start", "100"}, {"end", "200000"}, {"step", "1"}});
  expect_same("/api/v1/query", {{"query", "gpu_power_watts / on() gpu_temperature_celsius"}, {"time", t}});
}

TEST_F(OracleTest, SeriesAndLabelsAgreeWithPrometheus) {
  expect_same("/api/v1/series", {{"match[]", "gpu_power_watts"}});
  expect_same("/api/v1/series", {{"match[]", "{gpu=\"2\", __name__=~\"gpu_.*_bytes\"}"}});
  expect_same("/api/v1/series", {});
  expect_same("/api/v1/labels", {});
  expect_same("/api/v1/labels", {{"match[]", "gpu_kernel_duration_seconds_bucket"}});
  expect_same("/api/v1/label/gpu/values", {});
  expect_same("/api/v1/label/le/values", {{"match[]", "{gpu=\"1\", __name__=~\".*bucket\"}"}});
  expect_same("/api/v1/label/__name__/values", {});
}

}  // namespace
}  // namespace gpuwatch::test
