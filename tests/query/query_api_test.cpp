// The API's own behaviour where Prometheus has nothing to compare with: constructs outside the subset are
// refused with bad_data naming the construct and its position, parameters are read in both of
// Prometheus's forms, and the metadata and buildinfo endpoints Grafana asks for answer in its shapes.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "query/api_params.h"
#include "query/memory_series_source.h"
#include "query/query_api.h"
#include "route_call.h"

namespace gpuwatch::query {
namespace {

using nlohmann::json;

class QueryApiTest : public ::testing::Test {
 protected:
  QueryApiTest() {
    auto source = std::make_shared<MemorySeriesSource>();
    for (int i = 0; i < 10; ++i) {
      source->add({{"__name__", "gpu_power_watts"}, {"gpu", "0"}}, 1000 * i, 100 + i);
    }
    QueryApiOptions options;
    options.now_ms = [] { return 9000; };
    routes_ = query_routes(source, options);
  }

  HttpReply call(const std::string& path, std::multimap<std::string, std::string> params) const {
    return call_route(routes_, "GET", path, std::move(params));
  }

  // The error message of a refused query, after checking Prometheus's error shape.
  std::string refused(const std::string& query) const {
    const HttpReply r = call("/api/v1/query", {{"query", query}});
    EXPECT_EQ(r.status, 400) << query;
    const json body = json::parse(r.body);
    EXPECT_EQ(body["status"], "error");
    EXPECT_EQ(body["errorType"], "bad_data");
    return body["error"].get<std::string>();
  }

  std::vector<HttpRoute> routes_;
};

TEST_F(QueryApiTest, ConstructsOutsideTheSubsetAreNamedWithTheirPosition) {
  // Native histograms, and what Prometheus added after 2.42.
  EXPECT_NE(refused("histogram_count(gpu_power_watts)").find("unsupported function 'histogram_count' at 1:1"),
            std::string::npos);
  EXPECT_NE(refused("sum(\n  mad_over_time(gpu_power_watts[5m]))")
                .find("unsupported function 'mad_over_time' at 2:3"),
            std::string::npos);
  EXPECT_NE(refused("limitk(2, gpu_power_watts)").find("unsupported aggregation 'limitk' at 1:1"),
            std::string::npos);
}

TEST_F(QueryApiTest, ParseErrorsSayWhereAndWhat) {
  EXPECT_EQ(refused("sum(gpu_power_watts"),
            "invalid parameter \"query\": 1:20: parse error: unexpected end of input, expected \")\"");
  EXPECT_EQ(refused("no_such_function(gpu_power_watts)"),
            "invalid parameter \"query\": 1:1: parse error: unknown function with name \"no_such_function\"");
  EXPECT_EQ(refused("rate(gpu_power_watts)"),
            "invalid parameter \"query\": 1:6: parse error: expected type range vector in call to function "
            "\"rate\", got instant vector");
  EXPECT_EQ(refused("gpu_power_watts{gpu=~\"(\"}")
                .rfind("invalid parameter \"query\": invalid regular expression", 0),
            0u);
}

// The query is quoted back in the error; its bytes that are not UTF-8 are replaced so the reply stays JSON
// (refused() parses it: nlohmann refuses a document that is not UTF-8).
TEST_F(QueryApiTest, EchoedQueryTextIsValidUtf8) {
  const std::string error = refused("py\xff\xfethon(");
  EXPECT_NE(error.find("unexpected character: '\xEF\xBF\xBD'"), std::string::npos) << error;
}

TEST_F(QueryApiTest, TimesAndDurationsInBothForms) {
  EXPECT_EQ(parse_api_time("1435781451.781"), 1435781451781);
  EXPECT_EQ(parse_api_time("2015-07-01T20:10:51.781Z"), 1435781451781);
  EXPECT_EQ(parse_api_time("2015-07-01T22:10:51.781+02:00"), 1435781451781);
  EXPECT_EQ(parse_api_time("2015-07-01T20:10:51Z"), 1435781451000);
  EXPECT_FALSE(parse_api_time("yesterday"));
  EXPECT_FALSE(parse_api_time("2015-13-01T20:10:51Z"));
  EXPECT_EQ(parse_api_duration("15"), 15000);
  EXPECT_EQ(parse_api_duration("0.5"), 500);
  EXPECT_EQ(parse_api_duration("1m30s"), 90000);
  EXPECT_FALSE(parse_api_duration("soon"));
}

TEST_F(QueryApiTest, DefaultTimeIsNowAndResultsUsePrometheusSpelling) {
  const HttpReply r = call("/api/v1/query", {{"query", "gpu_power_watts / 4"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(
      r.body,
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"gpu":"0"},"value":[9,"27.25"]}]}})");
  EXPECT_EQ(call("/api/v1/query", {{"query", "1/0"}, {"time", "1.5"}}).body,
            R"({"status":"success","data":{"resultType":"scalar","result":[1.500,"+Inf"]}})");
}

TEST_F(QueryApiTest, RangeQueriesAreLimitedToElevenThousandPoints) {
  const HttpReply r = call("/api/v1/query_range",
                           {{"query", "gpu_power_watts"}, {"start", "0"}, {"end", "11000"}, {"step", "1"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("exceeded maximum resolution of 11000 points per timeseries"), std::string::npos);
  EXPECT_EQ(call("/api/v1/query_range",
                 {{"query", "gpu_power_watts"}, {"start", "0"}, {"end", "10999"}, {"step", "1"}})
                .status,
            200);
}

TEST_F(QueryApiTest, MetadataAndBuildinfoInPrometheusShapes) {
  const json meta = json::parse(call("/api/v1/metadata", {}).body);
  EXPECT_EQ(meta["status"], "success");
  EXPECT_EQ(meta["data"]["gpu_energy_joules_total"][0]["type"], "counter");
  EXPECT_EQ(meta["data"]["gpu_power_watts"][0]["unit"], "watts");
  EXPECT_EQ(json::parse(call("/api/v1/metadata", {{"metric", "gpu_up"}}).body)["data"].size(), 1u);
  EXPECT_EQ(json::parse(call("/api/v1/metadata", {{"limit", "3"}}).body)["data"].size(), 3u);
  const json build = json::parse(call("/api/v1/status/buildinfo", {}).body);
  EXPECT_EQ(build["data"]["version"], "2.42.0");
  EXPECT_EQ(build["data"]["revision"].get<std::string>().rfind("gpuwatch ", 0), 0u);
}

TEST_F(QueryApiTest, SeriesNeedsAMatcher) {
  const HttpReply r = call("/api/v1/series", {});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"], "no match[] parameter provided");
  EXPECT_EQ(call("/api/v1/series", {{"match[]", "rate(x[5m])"}}).status, 400);
}

}  // namespace
}  // namespace gpuwatch::query
