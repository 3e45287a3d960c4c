// The query engine's limits, each from a request that used to freeze, crash or mislead: pathological
// regexes, deep nesting, number literals and times out of range, the timeout and the sample limit.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "query/engine.h"
#include "query/memory_series_source.h"
#include "query/query_api.h"
#include "query/query_error.h"
#include "route_call.h"

namespace gpuwatch::query {
namespace {

using nlohmann::json;

HttpReply call(const std::vector<HttpRoute>& routes, const std::string& path,
               std::multimap<std::string, std::string> params) {
  return call_route(routes, "POST", path, std::move(params));
}

std::shared_ptr<MemorySeriesSource> gpus(int count) {
  auto source = std::make_shared<MemorySeriesSource>();
  for (int gpu = 0; gpu < count; ++gpu) {
    const std::string uuid = "GPU-8c4f6a3e-1d2b-4e5f-9a8b-7c6d5e4f" + std::to_string(1000 + gpu);
    for (int i = 0; i < 10; ++i) {
      source->add({{"__name__", "gpu_power_watts"}, {"gpu", std::to_string(gpu)}, {"uuid", uuid}}, 1000 * i,
                  100 + i);
    }
  }
  return source;
}

class QueryLimits : public ::testing::Test {
 protected:
  QueryLimits() : source_(gpus(8)) { routes_ = routes({}); }

  std::vector<HttpRoute> routes(EvalOptions eval) const {
    QueryApiOptions options;
    options.eval = eval;
    options.now_ms = [] { return 9000; };
    return query_routes(source_, options);
  }

  // The error of a refused request, after checking Prometheus's shape.
  static std::string refused(const HttpReply& r, int status, const std::string& type) {
    EXPECT_EQ(r.status, status) << r.body;
    const json body = json::parse(r.body);  // throws on invalid UTF-8
    EXPECT_EQ(body["status"], "error");
    EXPECT_EQ(body["errorType"], type);
    return body["error"].get<std::string>();
  }
  std::string bad_query(const std::string& query) const {
    return refused(call(routes_, "/api/v1/query", {{"query", query}}), 400, "bad_data");
  }

  std::shared_ptr<MemorySeriesSource> source_;
  std::vector<HttpRoute> routes_;
};

// std::regex took about 100 s for {6} (hours for {8}) on each 60-byte uuid, under the store's lock.
TEST_F(QueryLimits, ABacktrackingRegexAnswersAtOnce) {
  const auto start = std::chrono::steady_clock::now();
  const HttpReply r = call(routes_, "/api/v1/series", {{"match[]", R"({uuid=~"(.*){6}Z"})"}});
  const HttpReply q = call(routes_, "/api/v1/query", {{"query", R"(gpu_power_watts{uuid=~"(.*){8}Z"})"}});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("series and query with (.*){6}Z / (.*){8}Z over 8 uuids: %.4f s\n", s);
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["data"].size(), 0u);
  EXPECT_EQ(q.status, 200) << q.body;
  EXPECT_LT(s, 10.0);
  const HttpReply all = call(routes_, "/api/v1/series", {{"match[]", R"({uuid=~"GPU(.*){6}"})"}});
  EXPECT_EQ(json::parse(all.body)["data"].size(), 8u);
}

TEST_F(QueryLimits, ARegexOverAHugeValueDoesNotCrash) {
  auto source = std::make_shared<MemorySeriesSource>();
  source->add({{"__name__", "m"}, {"v", std::string(50 * 1024, 'a')}}, 1000, 1);
  QueryApiOptions options;
  options.now_ms = [] { return 2000; };
  const auto routes = query_routes(source, options);
  const HttpReply r = call(routes, "/api/v1/query", {{"query", R"(m{v=~"(a|b)*"})"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["data"]["result"].size(), 1u);
}

TEST_F(QueryLimits, AnInvalidRegexIsBadDataInValidUtf8) {
  const std::string e = bad_query("gpu_power_watts{gpu=~\"(\xff\"}");
  EXPECT_NE(e.find("invalid regular expression"), std::string::npos) << e;
  // Any error quoting the query: the bytes a client sent come back as valid UTF-8 (json::parse throws
  // on anything else).
  const std::string quoted = bad_query("gpu_power_watts{gpu=\"0\"} \xff\xfe");
  EXPECT_NE(quoted.find("\xEF\xBF\xBD"), std::string::npos) << quoted;  // U+FFFD
}

// 8100 parentheses overflowed the parser's stack, 1600 abs( the evaluator's.
TEST_F(QueryLimits, NestingDeeperThanTheLimitIsBadData) {
  const std::string parens = std::string(8100, '(') + "1" + std::string(8100, ')');
  EXPECT_NE(bad_query(parens).find("expression nests deeper than the limit of 200 levels"),
            std::string::npos);
  std::string abs;
  for (int i = 0; i < 1600; ++i) abs += "abs(";
  abs += "gpu_power_watts" + std::string(1600, ')');
  EXPECT_NE(bad_query(abs).find("limit of 200 levels"), std::string::npos);
  EXPECT_NE(bad_query(std::string(20000, '-') + "1").find("limit of 200 levels"), std::string::npos);
  // A long chain builds a deep tree without deep parsing: refused on the tree's height.
  std::string chain = "1";
  for (int i = 0; i < 50000; ++i) chain += "+1";
  EXPECT_NE(bad_query(chain).find("limit of 200 levels"), std::string::npos);
  // Within the limit, deep queries evaluate.
  std::string ok = "gpu_power_watts{gpu=\"0\"}";
  for (int i = 0; i < 150; ++i) ok = "abs(" + ok + ")";
  EXPECT_EQ(call(routes_, "/api/v1/query", {{"query", ok}}).status, 200);
}

// 0xfff...f threw std::out_of_range from stoull (a 500).
// A \x escape needs two hex digits; a fuzzed query with "\x(g" made the lexer throw stoi's exception (500).
TEST_F(QueryLimits, AHexEscapeWithoutTwoHexDigitsIsBadData) {
  EXPECT_NE(bad_query(R"(gpu_power_watts{gpu="\x(g"})").find("bad escape in string"), std::string::npos);
  EXPECT_NE(bad_query(R"(gpu_power_watts{gpu="\xFz"})").find("bad escape in string"), std::string::npos);
  EXPECT_NE(bad_query(R"(gpu_power_watts{gpu="\x)").find("bad escape in string"), std::string::npos);
  EXPECT_EQ(call(routes_, "/api/v1/query", {{"query", R"(gpu_power_watts{gpu="\x31"})"}}).status, 200);
}

TEST_F(QueryLimits, NumberLiteralsOutOfRangeAreBadData) {
  EXPECT_NE(bad_query("0xffffffffffffffffff").find("error parsing number"), std::string::npos);
  EXPECT_NE(bad_query("1e400").find("error parsing number"), std::string::npos);
  EXPECT_NE(bad_query("gpu_power_watts[99999999999999999999y]").find("duration"), std::string::npos);
  EXPECT_NE(bad_query("gpu_power_watts[9999999999999y]").find("duration out of range"), std::string::npos);
  EXPECT_NE(bad_query("0x8000000000000000").find("error parsing number"), std::string::npos);
  const HttpReply r = call(routes_, "/api/v1/query", {{"query", "0x7fffffffffffffff"}, {"time", "1"}});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(call(routes_, "/api/v1/query", {{"query", "99999999999999999999"}}).status, 200);
  EXPECT_EQ(call(routes_, "/api/v1/query", {{"query", "1e-400"}}).status, 200);
}

// start=-9.2e15&end=9.2e15 overflowed end - start (UBSan) and the step count.
TEST_F(QueryLimits, TimesAtTheEndsOfTheRangeDoNotOverflow) {
  const auto range = [&](const std::string& start, const std::string& end, const std::string& step) {
    return call(routes_, "/api/v1/query_range",
                {{"query", "gpu_power_watts"}, {"start", start}, {"end", end}, {"step", step}});
  };
  EXPECT_NE(refused(range("-9.2e15", "9.2e15", "1"), 400, "bad_data")
                .find("exceeded maximum resolution of 11000 points per timeseries"),
            std::string::npos);
  // Three steps wide apart (the middle one at 0, where the samples are): the span exceeds int64, the count
  // does not.
  const HttpReply wide = range("-9.2e15", "9.2e15", "9.2e15");
  ASSERT_EQ(wide.status, 200) << wide.body;
  const json result = json::parse(wide.body)["data"]["result"];
  ASSERT_EQ(result.size(), 8u);
  EXPECT_EQ(result[0]["values"], json::parse(R"([[0,"100"]])"));
  EXPECT_NE(refused(range("-1e300", "0", "1"), 400, "bad_data").find("\"start\": \"-1e300\" is out of range"),
            std::string::npos);
  EXPECT_NE(refused(range("0", "1e17", "1"), 400, "bad_data").find("\"end\": \"1e17\" is out of range"),
            std::string::npos);
  EXPECT_NE(refused(range("0", "1", "1e17"), 400, "bad_data").find("\"step\": \"1e17\" is out of range"),
            std::string::npos);
  EXPECT_NE(bad_query("gpu_power_watts @ 1e16").find("timestamp out of bounds for @ modifier"),
            std::string::npos);
  // An instant query at the ends, with an offset and the lookback reaching beyond them.
  for (const char* t : {"-9.2e15", "9.2e15"}) {
    for (const char* q :
         {"gpu_power_watts", "gpu_power_watts offset 1h", "gpu_power_watts offset -1h",
          "rate(gpu_power_watts[5m] offset -1y)", "time()", "gpu_power_watts offset 1000000y",
          "gpu_power_watts offset -1000000y", "max_over_time(gpu_power_watts[1000000y])",
          "max_over_time(gpu_power_watts[1000000y] offset -1000000y)", "gpu_power_watts @ 9.1e15",
          "gpu_power_watts @ -9.1e15 offset -1000000y", "max_over_time(gpu_power_watts[1000000y:1000y])",
          "max_over_time(gpu_power_watts[1000000y:1000y] offset -1000000y)",
          "rate(gpu_power_watts[1000000y:1000y] @ -9.1e15 offset 1000000y)",
          "gpu_power_watts[1000000y:1000y] @ end()"}) {
      EXPECT_EQ(call(routes_, "/api/v1/query", {{"query", q}, {"time", t}}).status, 200) << q << " at " << t;
    }
  }
}

TEST_F(QueryLimits, AQueryOverTheSampleLimitIsAnExecutionError) {
  EvalOptions eval;
  eval.max_samples = 100;  // 8 series of 10 points read, then 8 x 11 step values: over 100
  const auto limited = routes(eval);
  const auto r = call(limited, "/api/v1/query_range",
                      {{"query", "gpu_power_watts"}, {"start", "0"}, {"end", "10"}, {"step", "1"}});
  EXPECT_EQ(refused(r, 422, "execution"),
            "query processing would load too many samples into memory in query execution");
  EXPECT_EQ(call(limited, "/api/v1/query", {{"query", "gpu_power_watts{gpu=\"0\"}"}}).status, 200);
  // A subquery with a step far finer than its range is refused before its steps are made.
  const auto fine = call(routes_, "/api/v1/query", {{"query", "max_over_time(vector(1)[1000d:1ms])"}});
  EXPECT_EQ(refused(fine, 422, "execution"),
            "query processing would load too many samples into memory in query execution");
}

TEST_F(QueryLimits, AQueryPastTheTimeoutIsATimeout) {
  EvalOptions eval;
  eval.timeout = std::chrono::milliseconds(0);
  const auto r = call(routes(eval), "/api/v1/query", {{"query", "sum(gpu_power_watts)"}});
  EXPECT_EQ(refused(r, 503, "timeout"), "query timed out in expression evaluation");
}

// A source that is slow to hand out each series: the deadline must be checked between series, not only
// when evaluation starts or ends.
class SlowSource : public store::SeriesSource {
 public:
  explicit SlowSource(std::shared_ptr<MemorySeriesSource> inner) : inner_(std::move(inner)) {}
  std::vector<store::SeriesPoints> select(std::span<const store::LabelMatcher> m, std::int64_t a,
                                          std::int64_t b) const override {
    return inner_->select(m, a, b);
  }
  std::vector<store::Labels> series(std::span<const store::LabelMatcher> m, std::int64_t a,
                                    std::int64_t b) const override {
    return inner_->series(m, a, b);
  }
  void for_each_series(
      std::span<const store::LabelMatcher> m, std::int64_t a, std::int64_t b,
      const std::function<void(const store::Labels&, std::span<const store::Point>)>& fn) const override {
    inner_->for_each_series(m, a, b, [&](const store::Labels& l, std::span<const store::Point> p) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      fn(l, p);
    });
  }

 private:
  std::shared_ptr<MemorySeriesSource> inner_;
};

TEST(QueryTimeout, IsCheckedBetweenSeries) {
  const SlowSource source(gpus(200));  // 200 x 20 ms = 4 s unbounded
  EvalOptions eval;
  eval.timeout = std::chrono::milliseconds(100);
  const auto start = std::chrono::steady_clock::now();
  try {
    instant_query(source, "sum(gpu_power_watts)", 9000, eval);
    FAIL() << "no timeout";
  } catch (const QueryError& e) {
    EXPECT_EQ(e.kind(), QueryError::Kind::kTimeout);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("a 4 s query with a 100 ms timeout stopped after %.3f s\n", s);
  EXPECT_LT(s, 2.0);
}

}  // namespace
}  // namespace gpuwatch::query
