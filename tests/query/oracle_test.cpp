// The oracle: the same GPU-shaped samples go into a real Prometheus (through promtool) and into gpuwatch's
// query API (the agent's HTTP routes) over two sources: a memory source, and the history store with the
// older samples sealed into SQLite blocks and the newer ones in the head, rebuilt by a WAL replay. Every
// expression is evaluated by Prometheus and by each source, as instant queries and as range queries with
// Grafana-style aligned steps, and the answers must agree: same series, same timestamps, values within 1e-9
// relative (NaN and infinities exactly), and for sort(), sort_desc(), topk and bottomk the same order of
// series in an instant query. No expected number is written by hand.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>

#include <httplib.h>

#include "gpu_samples.h"
#include "http/http_server.h"
#include "oracle_expressions.h"
#include "prometheus_server.h"
#include "query/memory_series_source.h"
#include "query/query_api.h"
#include "store_samples.h"
#include "temp_dir.h"

namespace gpuwatch::test {
namespace {

constexpr double kRelativeTolerance = 1e-9;

using nlohmann::json;

// Where gpuwatch reads the samples from.
enum class Source { kMemory, kStore };
const char* name_of(Source s) {
  return s == Source::kMemory ? "Memory" : "Store";
}
void PrintTo(Source s, std::ostream* os) {
  *os << name_of(s);
}

class OracleTest : public ::testing::TestWithParam<Source> {
 protected:
  static void SetUpTestSuite() {
    const std::int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
    // Three hours of data ending at least an hour ago: inside the retention, clear of "now".
    start_ms_ = (now_ms / 3'600'000 - 4) * 3'600'000;
    const auto families = make_gpu_samples(start_ms_, 3 * 3'600'000);
    prometheus_ = std::make_unique<PrometheusServer>(to_openmetrics(families));
    auto memory = std::make_shared<query::MemorySeriesSource>();
    load(*memory, families);
    serve(Source::kMemory, memory);
    // Sealed blocks up to 2.5 h (mid block window), head after: queries near the end read both.
    store_dir_ = std::make_unique<store::test::TempDir>();
    serve(Source::kStore, load_into_store(store_dir_->path(), families, start_ms_ + 150 * 60'000 + 7'000));
  }
  static void TearDownTestSuite() {
    ours_.clear();
    store_dir_.reset();
    prometheus_.reset();
    prometheus_answers_.clear();
  }

  static void serve(Source source, std::shared_ptr<const store::SeriesSource> series) {
    HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    options.routes = query::query_routes(std::move(series));
    auto server = std::make_unique<HttpServer>(
        options, [] { return SnapshotPtr(); }, [] { return true; });
    server->start();
    ours_[source] = std::move(server);
  }

  // Prometheus answers each question once; every source is compared with that answer.
  static std::pair<int, json> ask_prometheus(const std::string& path, const httplib::Params& params) {
    std::string key = path;
    for (const auto& [k, v] : params) key += "\n" + k + "=" + v;
    const auto known = prometheus_answers_.find(key);
    if (known != prometheus_answers_.end()) return known->second;
    return prometheus_answers_[key] = get(prometheus_->port(), path, params);
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

  // An expression with the data's start filled in: `<at:S>` becomes the time S seconds after it.
  static std::string expand(std::string_view expr) {
    std::string out;
    while (true) {
      const std::size_t at = expr.find("<at:");
      if (at == std::string_view::npos) break;
      const std::size_t close = expr.find('>', at);
      const double s = std::strtod(std::string(expr.substr(at + 4, close - at - 4)).c_str(), nullptr);
      out.append(expr.substr(0, at));
      out += seconds(start_ms_ + static_cast<std::int64_t>(std::llround(s * 1000)));
      expr.remove_prefix(close + 1);
    }
    return out.append(expr);
  }

  // Whether Prometheus orders the series of the expression's instant vector (by value, not by labels).
  static bool ordered(std::string_view expr) {
    for (const std::string_view f : {"sort(", "sort_desc(", "topk", "bottomk", "-topk"}) {
      if (expr.substr(0, f.size()) == f) return true;
    }
    return false;
  }

  // Both answer the same: same status and error type, or the same series with the same points (in the same
  // order when `in_order`). Returns the number of points compared, so a table entry that never yields data
  // is noticed.
  static std::size_t expect_same(const std::string& path, const httplib::Params& params,
                                 bool in_order = false) {
    std::size_t compared = 0;
    expect_same(path, params, in_order, compared);
    return compared;
  }
  static void expect_same(const std::string& path, const httplib::Params& params, bool in_order,
                          std::size_t& compared) {
    const auto [ps, prom] = ask_prometheus(path, params);
    const auto [os, ours] = get(ours_.at(GetParam())->port(), path, params);
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
    if (in_order) {
      std::string po, oo;
      for (const auto& series : pd["result"]) po += series["metric"].dump() + "\n";
      for (const auto& series : od["result"]) oo += series["metric"].dump() + "\n";
      EXPECT_EQ(oo, po) << "series in another order";
    }
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
  static inline std::unique_ptr<store::test::TempDir> store_dir_;
  static inline std::map<Source, std::unique_ptr<HttpServer>> ours_;
  static inline std::map<std::string, std::pair<int, json>> prometheus_answers_;
};

// Inside the data, in GPU 3's gap, near the end, after the end within and beyond the lookback, and before
// the first window is full.
std::vector<std::int64_t> instant_times(std::int64_t start_ms) {
  const std::int64_t minute = 60'000;
  return {start_ms + 35 * minute + 250, start_ms + 80 * minute,  start_ms + 179 * minute,
          start_ms + 184 * minute,      start_ms + 200 * minute, start_ms + 5'000};
}

struct Range {
  std::int64_t start, end, step;
};

// Grafana aligns start and end to the step; the others are not aligned to anything.
std::vector<Range> ranges(std::int64_t start_ms) {
  const std::int64_t minute = 60'000;
  return {
      {(start_ms + 20 * minute) / minute * minute, (start_ms + 200 * minute) / minute * minute, minute},
      {start_ms + 60 * minute, start_ms + 120 * minute, 15'000},
      {start_ms + 7 * minute + 500, start_ms + 190 * minute, 37'000},
  };
}

TEST_P(OracleTest, InstantQueriesAgreeWithPrometheus) {
  const auto check = [&](const char* expr) {
    const std::string query = expand(expr);
    for (const std::int64_t t : instant_times(start_ms_)) {
      SCOPED_TRACE(query + " at " + seconds(t));
      expect_same("/api/v1/query", {{"query", query}, {"time", seconds(t)}}, ordered(expr));
    }
  };
  for (const char* expr : kExpressions) check(expr);
  for (const char* expr : kSparseExpressions) check(expr);
  for (const char* expr : kInstantOnlyExpressions) check(expr);
}

TEST_P(OracleTest, RangeQueriesAgreeWithPrometheus) {
  const auto check = [&](const char* expr) {
    const std::string query = expand(expr);
    std::size_t compared = 0;
    for (const Range& r : ranges(start_ms_)) {
      SCOPED_TRACE(query + " from " + seconds(r.start) + " step " + std::to_string(r.step));
      compared += expect_same("/api/v1/query_range", {{"query", query},
                                                      {"start", seconds(r.start)},
                                                      {"end", seconds(r.end)},
                                                      {"step", std::to_string(r.step / 1000)}});
    }
    return compared;
  };
  for (const char* expr : kExpressions) {
    EXPECT_GT(check(expr), 10u) << expr << ": Prometheus returned (almost) nothing, so nothing was compared";
  }
  for (const char* expr : kSparseExpressions) check(expr);
}

TEST_P(OracleTest, RangeVectorInstantQueryReturnsRawPoints) {
  for (const char* expr : kMatrixExpressions) {
    const std::string query = expand(expr);
    for (const std::int64_t t : {start_ms_ + 3'600'000, start_ms_ + 5'000'000, start_ms_ + 5'000}) {
      SCOPED_TRACE(query + " at " + seconds(t));
      expect_same("/api/v1/query", {{"query", query}, {"time", seconds(t)}});
    }
  }
}

TEST_P(OracleTest, ErrorsHaveTheSameShapeAsPrometheus) {
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
  expect_same("/api/v1/query_range",
              {{"query", "gpu_power_watts[5m:1m]"}, {"start", t}, {"end", t}, {"step", "60"}});
  expect_same("/api/v1/query_range", {{"query", "\"a string\""}, {"start", t}, {"end", t}, {"step", "60"}});
  expect_same("/api/v1/query_range", {{"query", "up"}, {"start", "100"}, {"end", "200000"}, {"step", "1"}});
  expect_same("/api/v1/query", {{"query", "gpu_power_watts / on() gpu_temperature_celsius"}, {"time", t}});
}

TEST_P(OracleTest, SeriesAndLabelsAgreeWithPrometheus) {
  expect_same("/api/v1/series", {{"match[]", "gpu_power_watts"}});
  expect_same("/api/v1/series", {{"match[]", "{gpu=\"2\", __name__=~\"gpu_.*_bytes\"}"}});
  expect_same("/api/v1/series", {});
  expect_same("/api/v1/labels", {});
  expect_same("/api/v1/labels", {{"match[]", "gpu_kernel_duration_seconds_bucket"}});
  expect_same("/api/v1/label/gpu/values", {});
  expect_same("/api/v1/label/le/values", {{"match[]", "{gpu=\"1\", __name__=~\".*bucket\"}"}});
  expect_same("/api/v1/label/__name__/values", {});
}

INSTANTIATE_TEST_SUITE_P(Sources, OracleTest, ::testing::Values(Source::kMemory, Source::kStore),
                         [](const ::testing::TestParamInfo<Source>& info) { return name_of(info.param); });

}  // namespace
}  // namespace gpuwatch::test
