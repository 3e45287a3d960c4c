#include "http/route_table.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gpuwatch {
namespace {

HttpRoute route(std::vector<std::string> methods, std::string pattern) {
  return HttpRoute{std::move(methods), std::move(pattern), "",
                   [](const HttpRequest&) { return HttpReply{}; }};
}

TEST(RouteTable, MatchesTheWholePathAndCaptures) {
  const std::vector<HttpRoute> routes = {route({"GET", "POST"}, "/api/v1/label/([^/]+)/values"),
                                         route({"DELETE"}, "/api/v1/silence/([A-Za-z0-9_-]+)")};
  const RouteTable table(routes);
  const auto m = table.match("GET", "/api/v1/label/gpu/values");
  ASSERT_EQ(m.route, &routes[0]);
  EXPECT_EQ(m.captures, std::vector<std::string>{"gpu"});
  EXPECT_EQ(table.match("GET", "/api/v1/label/gpu/values/extra").route, nullptr);
  EXPECT_EQ(table.match("GET", "x/api/v1/label/gpu/values").route, nullptr);
  EXPECT_EQ(table.match("DELETE", "/api/v1/silence/a-b_c").captures, std::vector<std::string>{"a-b_c"});
}

TEST(RouteTable, WrongMethodGivesTheAllowedOnes) {
  const std::vector<HttpRoute> routes = {route({"GET"}, "/api/v1/silences"),
                                         route({"POST"}, "/api/v1/silences")};
  const RouteTable table(routes);
  const auto m = table.match("PUT", "/api/v1/silences");
  EXPECT_EQ(m.route, nullptr);
  EXPECT_EQ(m.allow, "GET, POST");
  EXPECT_EQ(table.match("POST", "/api/v1/silences").route, &routes[1]);
  EXPECT_EQ(table.match("GET", "/nowhere").allow, "");
}

TEST(RouteTable, BadPatternsAndMethodsAreRefusedAtStart) {
  EXPECT_THROW(RouteTable({route({"GET"}, "/api/(unclosed")}), std::invalid_argument);
  EXPECT_THROW(RouteTable({route({"PATCH"}, "/api/v1/x")}), std::invalid_argument);
}

// RE2 does not backtrack: a pathological pattern and path cost linear time, not exponential.
TEST(RouteTable, NoBacktracking) {
  const std::vector<HttpRoute> routes = {route({"GET"}, "/(a+)+b")};
  const RouteTable table(routes);
  const std::string path = "/" + std::string(50000, 'a');
  const auto before = std::chrono::steady_clock::now();
  EXPECT_EQ(table.match("GET", path).route, nullptr);
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(5));
}

}  // namespace
}  // namespace gpuwatch
