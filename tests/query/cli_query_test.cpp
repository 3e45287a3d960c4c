// `gpuwatch query` end to end: the binary asks a fixture server (the query API over a memory source) and
// prints table, json and csv; its output must say what the API says. Without an agent and without a
// readable store it fails with a clear error.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include <httplib.h>

#include "http/http_server.h"
#include "prometheus_server.h"
#include "query/memory_series_source.h"
#include "query/query_api.h"
#include "run_process.h"

namespace gpuwatch::test {
namespace {

using nlohmann::json;

constexpr std::int64_t kStart = 1'700'000'000'000;

class CliQueryTest : public ::testing::Test {
 protected:
  CliQueryTest() {
    auto source = std::make_shared<query::MemorySeriesSource>();
    for (int i = 0; i < 240; ++i) {
      source->add({{"__name__", "gpu_power_watts"}, {"gpu", "0"}}, kStart + i * 15'000, 100 + i % 50);
      source->add({{"__name__", "gpu_power_watts"}, {"gpu", "1"}}, kStart + i * 15'000, 200.5 + (i * 7) % 13);
    }
    HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    options.routes = query::query_routes(source);
    server_ = std::make_unique<HttpServer>(
        options, [] { return SnapshotPtr(); }, [] { return true; });
    server_->start();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_->port()); }

  ProcessResult gpuwatch_query(std::vector<std::string> args) const {
    args.insert(args.begin(), {std::string(GPUWATCH_BINARY_DIR) + "/gpuwatch", "query"});
    return run_process(args);
  }

  json api(const std::string& path, const httplib::Params& params) const {
    httplib::Client client("127.0.0.1", server_->port());
    return json::parse(client.Post(path, params)->body);
  }

  static std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }

  const std::string start_ = "1700000000";
  const std::string end_ = "1700003000";
  std::unique_ptr<HttpServer> server_;
};

TEST_F(CliQueryTest, CsvHasOneRowPerPointWithTheApisValues) {
  const auto r = gpuwatch_query({"gpu_power_watts{gpu=\"1\"}", "--start", start_, "--end", end_, "--step",
                                 "60", "--format", "csv", "--url", url()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = lines(r.out);
  const json expected =
      api("/api/v1/query_range",
          {{"query", "gpu_power_watts{gpu=\"1\"}"}, {"start", start_}, {"end", end_}, {"step", "60"}});
  const json& values = expected["data"]["result"][0]["values"];
  ASSERT_EQ(rows.size(), values.size() + 1);
  EXPECT_EQ(rows[0], "series,timestamp,value");
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(rows[i + 1], "\"gpu_power_watts{gpu=\"\"1\"\"}\"," + values[i][0].dump() + "," +
                               values[i][1].get<std::string>());
  }
}

TEST_F(CliQueryTest, JsonIsTheApiAnswer) {
  const auto r =
      gpuwatch_query({"sum(gpu_power_watts)", "--time", "1700001000", "--format", "json", "--url", url()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out),
            api("/api/v1/query", {{"query", "sum(gpu_power_watts)"}, {"time", "1700001000"}}));
}

TEST_F(CliQueryTest, TableDrawsASparklineWithMinMaxLast) {
  const auto r = gpuwatch_query(
      {"gpu_power_watts{gpu=\"0\"}", "--start", start_, "--end", end_, "--step", "15", "--url", url()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = lines(r.out);
  ASSERT_EQ(rows.size(), 1u) << r.out;
  EXPECT_EQ(rows[0].rfind("gpu_power_watts{gpu=\"0\"}  ", 0), 0u) << rows[0];
  // Values 100..149 repeating: the line spans the lowest and the highest block.
  EXPECT_NE(rows[0].find("▁"), std::string::npos) << rows[0];
  EXPECT_NE(rows[0].find("█"), std::string::npos) << rows[0];
  const json last = api("/api/v1/query", {{"query", "gpu_power_watts{gpu=\"0\"}"}, {"time", end_}});
  EXPECT_NE(
      rows[0].find("min 100.0  max 149.0  last " + last["data"]["result"][0]["value"][1].get<std::string>()),
      std::string::npos)
      << rows[0];
}

TEST_F(CliQueryTest, TableOfAnInstantQueryHasOneRowPerSeries) {
  const auto r = gpuwatch_query({"gpu_power_watts * 2", "--time", "1700000100", "--url", url()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json answer = api("/api/v1/query", {{"query", "gpu_power_watts * 2"}, {"time", "1700000100"}});
  const auto rows = lines(r.out);
  ASSERT_EQ(rows.size(), 2u) << r.out;
  for (std::size_t i = 0; i < 2; ++i) {
    const std::string value = answer["data"]["result"][i]["value"][1];
    EXPECT_EQ(rows[i].substr(rows[i].size() - value.size()), value);
  }
}

TEST_F(CliQueryTest, ExpressionOutsideTheSubsetIsAUsageError) {
  const auto r = gpuwatch_query({"histogram_count(gpu_power_watts)", "--url", url()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bad_data"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("unsupported function 'histogram_count' at 1:1"), std::string::npos) << r.err;
}

// 20,000 levels overflowed the stack of whoever parsed them (a body that large is refused by the server
// before parsing: 1,000 levels reach the parser).
TEST_F(CliQueryTest, NestingBeyondTheLimitIsAUsageError) {
  const auto r = gpuwatch_query({std::string(1000, '(') + "1" + std::string(1000, ')'), "--url", url()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bad_data"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expression nests deeper than the limit of 200 levels"), std::string::npos) << r.err;
}

TEST_F(CliQueryTest, WithoutAnAgentOrAStoreItSaysSo) {
  const auto r =
      gpuwatch_query({"gpu_power_watts", "--url", "http://127.0.0.1:" + std::to_string(free_port()),
                      "--data-dir", "/nonexistent"});
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_NE(r.err.find("no agent answered"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/nonexistent"), std::string::npos) << r.err;
}

TEST_F(CliQueryTest, WithoutADataDirItReadsWhereTheAgentKeepsItsHistory) {
  // Shown by --help: this machine may hold a store there, so the error text cannot be relied on.
  const auto r = gpuwatch_query({"--help"});
  EXPECT_NE(r.out.find("--data-dir TEXT=/var/lib/gpuwatch"), std::string::npos) << r.out;
}

TEST_F(CliQueryTest, TimesRelativeToNowAreAccepted) {
  // The fixture's points are from 2023: a range ending now is answered, and empty.
  auto r = gpuwatch_query(
      {"gpu_power_watts", "--start", "now-1h", "--end", "now", "--format", "json", "--url", url()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["status"], "success") << r.out;
  r = gpuwatch_query({"gpu_power_watts", "--since", "1h", "--end", "now", "--url", url()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = gpuwatch_query({"gpu_power_watts", "--time", "now-5m", "--url", url()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = gpuwatch_query({"gpu_power_watts", "--end", "now-soon", "--since", "1h", "--url", url()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("now-soon"), std::string::npos) << r.err;
}

TEST_F(CliQueryTest, BadTimesAreUsageErrors) {
  const auto r = gpuwatch_query({"gpu_power_watts", "--since", "a while", "--url", url()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--since"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpuwatch::test
