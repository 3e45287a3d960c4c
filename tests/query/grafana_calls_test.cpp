// The query API's answers to the calls Grafana's Prometheus data source makes beside queries: metadata for
// every family (the metric browser's types and help), exemplars (asked when the data source loads),
// Prometheus 3's `limit` on the lookups (Grafana sends limit=40000), and a range query over an agent that
// keeps no history.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "query/memory_series_source.h"
#include "query/query_api.h"
#include "route_call.h"

namespace gpuwatch::query {
namespace {

using nlohmann::json;

std::shared_ptr<MemorySeriesSource> three_gpus() {
  auto source = std::make_shared<MemorySeriesSource>();
  for (const char* gpu : {"0", "1", "2"}) {
    source->add({{"__name__", "gpu_up"}, {"gpu", gpu}, {"uuid", std::string("GPU-") + gpu}}, 1000, 1);
  }
  return source;
}

json grafana_call(const std::vector<HttpRoute>& routes, const std::string& path,
                  std::multimap<std::string, std::string> params, int status = 200) {
  const HttpReply r = call_route(routes, "GET", path, std::move(params));
  EXPECT_EQ(r.status, status) << path << ": " << r.body;
  return json::parse(r.body);
}

TEST(GrafanaCalls, MetadataCoversEveryFamilyServedAndDcgmsFields) {
  QueryApiOptions options;
  options.published = [] {
    return std::vector<FamilyMetadata>{{"ALERTS", "gauge", "pending and firing alerts", ""}};
  };
  const auto routes = query_routes(three_gpus(), options);
  const json data = grafana_call(routes, "/api/v1/metadata", {})["data"];
  EXPECT_EQ(data["gpu_info"][0]["type"], "info");
  EXPECT_EQ(data["gpu_info"][0]["help"], "GPU identity; the value is always 1");
  EXPECT_EQ(data["gpu_driver_info"][0]["type"], "info");
  EXPECT_EQ(data["gpuwatch_build_info"][0]["type"], "info");
  EXPECT_EQ(data["gpu_pcie_shared_link_capacity_bytes_per_second"][0]["type"], "gauge");
  EXPECT_EQ(data["gpu_energy_joules_total"][0]["type"], "counter");
  EXPECT_EQ(data["ALERTS"][0]["help"], "pending and firing alerts");
  EXPECT_EQ(data["DCGM_FI_DEV_GPU_TEMP"][0]["help"], "GPU temperature (in C).");
  EXPECT_EQ(data["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"][0]["type"], "counter");
  EXPECT_FALSE(data.contains("DCGM_FI_DEV_XID_ERRORS"));  // not answered from history
  EXPECT_EQ(grafana_call(routes, "/api/v1/metadata", {{"metric", "DCGM_FI_DEV_FB_RESERVED"}})["data"].size(),
            1u);
}

TEST(GrafanaCalls, ExemplarsAreAnEmptyListAfterTheQueryIsChecked) {
  const auto routes = query_routes(three_gpus());
  // As Grafana asks when the data source loads: query=test, times in milliseconds.
  const json ok = grafana_call(routes, "/api/v1/query_exemplars",
                               {{"query", "test"}, {"start", "1700000000000"}, {"end", "1700001800000"}});
  EXPECT_EQ(ok["status"], "success");
  EXPECT_EQ(ok["data"], json::array());
  EXPECT_EQ(grafana_call(routes, "/api/v1/query_exemplars", {{"query", "sum("}}, 400)["errorType"],
            "bad_data");
  EXPECT_EQ(
      grafana_call(routes, "/api/v1/query_exemplars", {{"query", "up"}, {"start", "soon"}}, 400)["errorType"],
      "bad_data");
}

TEST(GrafanaCalls, LookupsHonourLimitAndSayWhenTheyCutTheAnswer) {
  const auto routes = query_routes(three_gpus());
  const json values = grafana_call(routes, "/api/v1/label/gpu/values", {{"limit", "2"}});
  EXPECT_EQ(values["data"], json::parse(R"(["0","1"])"));
  EXPECT_EQ(values["warnings"], json::parse(R"(["results truncated due to limit"])"));
  const json all = grafana_call(routes, "/api/v1/label/gpu/values", {{"limit", "40000"}});
  EXPECT_EQ(all["data"].size(), 3u);
  EXPECT_FALSE(all.contains("warnings"));
  EXPECT_EQ(grafana_call(routes, "/api/v1/series", {{"match[]", "gpu_up"}, {"limit", "1"}})["data"].size(),
            1u);
  EXPECT_EQ(grafana_call(routes, "/api/v1/labels", {{"limit", "2"}})["data"],
            json::parse(R"(["__name__","gpu"])"));
  EXPECT_EQ(grafana_call(routes, "/api/v1/labels", {{"limit", "0"}})["data"].size(), 3u);  // 0: no limit
  EXPECT_EQ(grafana_call(routes, "/api/v1/labels", {{"limit", "-1"}}, 400)["errorType"], "bad_data");
}

TEST(GrafanaCalls, WithoutHistoryRangeQueriesSaySoAndInstantQueriesAnswer) {
  QueryApiOptions options;
  options.now_ms = [] { return 2000; };
  options.no_history = "history is off (store: off)";
  const auto routes = query_routes(three_gpus(), options);
  const json refused = grafana_call(routes, "/api/v1/query_range",
                                    {{"query", "gpu_up"}, {"start", "0"}, {"end", "2"}, {"step", "1"}}, 422);
  EXPECT_EQ(refused["errorType"], "execution");
  EXPECT_EQ(refused["error"], "history is off (store: off)");
  EXPECT_EQ(grafana_call(routes, "/api/v1/query", {{"query", "gpu_up"}})["data"]["result"].size(), 3u);
}

}  // namespace
}  // namespace gpuwatch::query
