#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "alerting/alerting_service.h"
#include "alerting/silences_file.h"
#include "core/utf8.h"
#include "temp_dir.h"

namespace gpuwatch::alerting {
namespace {

namespace fs = std::filesystem;
using store::test::TempDir;

// Calls the service's routes as the HTTP server would: the first route whose pattern and method match.
struct Api {
  AlertingService& service;
  std::vector<HttpRoute> routes = service.routes();
  HttpReply call(const std::string& method, const std::string& path, const std::string& body = "",
                 const std::string& token = "") {
    for (const auto& r : routes) {
      std::smatch m;
      if (!std::regex_match(path, m, std::regex(r.pattern))) continue;
      if (std::find(r.methods.begin(), r.methods.end(), method) == r.methods.end()) continue;
      HttpRequest req;
      req.method = method;
      req.path = path;
      for (std::size_t i = 1; i < m.size(); ++i) req.captures.push_back(m[i]);
      req.body = body;
      if (!token.empty()) req.headers.emplace("Authorization", "Bearer " + token);
      return r.handle(req);
    }
    return HttpReply{404, "", "", {}};
  }
};

AlertingOptions options(const std::string& token, const std::string& data_dir = "") {
  AlertingOptions o;
  o.engine.hostname = "node7";
  o.api_token = token;
  o.data_dir = data_dir;
  o.runbook_dir = std::string(GPUWATCH_SOURCE_DIR) + "/tests/alerting/runbooks";
  return o;
}

const std::string kSilence = R"({"matchers":[{"name":"gpu","value":"3","isRegex":false}],
  "startsAt":"1970-01-01T00:00:00Z","endsAt":"2100-01-01T00:00:00Z","createdBy":"sre","comment":"rack 4"})";

TEST(AlertingApi, MutationsNeedTheToken) {
  AlertingService service(options("s3cret"), [] { return std::int64_t{1000}; });
  Api api{service};
  auto r = api.call("POST", "/api/v1/silences", kSilence);
  EXPECT_EQ(r.status, 401);
  EXPECT_NE(r.body.find("bearer token"), std::string::npos);
  EXPECT_EQ(api.call("POST", "/api/v1/silences", kSilence, "guess").status, 403);
  r = api.call("POST", "/api/v1/silences", kSilence, "s3cret");
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string id = nlohmann::json::parse(r.body)["data"]["silenceID"];
  const auto list = nlohmann::json::parse(api.call("GET", "/api/v1/silences").body)["data"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["id"], id);
  EXPECT_EQ(list[0]["status"]["state"], "active");
  EXPECT_EQ(list[0]["comment"], "rack 4");
  EXPECT_EQ(api.call("DELETE", "/api/v1/silence/" + id).status, 401);
  EXPECT_EQ(api.call("DELETE", "/api/v1/silence/" + id, "", "s3cret").status, 200);
  EXPECT_EQ(api.call("DELETE", "/api/v1/silence/" + id, "", "s3cret").status, 404);
}

// RFC 7235: the scheme name is case-insensitive; and the server can refuse before reading a body.
TEST(AlertingApi, TokenSchemeIsCaseInsensitiveAndCheckedBeforeTheBody) {
  AlertingService service(options("s3cret"), [] { return std::int64_t{1000}; });
  const auto routes = service.routes();
  const auto post = std::find_if(routes.begin(), routes.end(),
                                 [](const HttpRoute& r) { return r.pattern == "/api/v1/silences"; });
  ASSERT_NE(post, routes.end());
  ASSERT_TRUE(post->admit);
  EXPECT_GT(post->max_body_bytes, 0u);
  HttpRequest req;
  req.method = "POST";
  req.path = "/api/v1/silences";
  const auto refused = post->admit(req);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  for (const std::string auth : {"bearer s3cret", "BEARER s3cret", "Bearer  s3cret"}) {
    req.headers = {{"Authorization", auth}};
    EXPECT_FALSE(post->admit(req)) << auth;
    req.body = kSilence;
    EXPECT_EQ(post->handle(req).status, 200) << auth;
    req.body.clear();
  }
  req.headers = {{"authorization", "bearer guess"}};
  ASSERT_TRUE(post->admit(req));
  EXPECT_EQ(post->admit(req)->status, 403);
  req.headers = {{"Authorization", "Basic czNjcmV0"}};
  EXPECT_EQ(post->admit(req)->status, 401);
  req.method = "GET";
  req.headers.clear();
  EXPECT_FALSE(post->admit(req)) << "reading silences needs no token";
}

TEST(AlertingApi, NoTokenConfiguredMeansReadOnly) {
  AlertingService service(options(""), [] { return std::int64_t{1000}; });
  Api api{service};
  const auto r = api.call("POST", "/api/v1/silences", kSilence, "anything");
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(r.body.find("no API token is configured"), std::string::npos);
  EXPECT_EQ(api.call("GET", "/api/v1/silences").status, 200);
}

// A token file that cannot be read used to stop the agent; now the API is read only and says why.
TEST(AlertingApi, AnUnreadableTokenFileMakesTheApiReadOnlyAndSaysWhy) {
  auto o = options("");
  o.api_token_error = "/etc/gpuwatch/token: cannot read: No such file or directory";
  AlertingService service(o, [] { return std::int64_t{1000}; });
  Api api{service};
  const auto r = api.call("POST", "/api/v1/silences", kSilence, "anything");
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(r.body.find("silences cannot be changed: /etc/gpuwatch/token: cannot read"), std::string::npos)
      << r.body;
  EXPECT_EQ(api.call("GET", "/api/v1/silences").status, 200);
}

TEST(AlertingApi, BadSilencesSayWhatIsWrong) {
  AlertingService service(options("t"), [] { return std::int64_t{1000}; });
  Api api{service};
  auto r = api.call("POST", "/api/v1/silences", R"({"matchers":[],"startsAt":"x"})", "t");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("matchers"), std::string::npos);
  r = api.call("POST", "/api/v1/silences",
               R"({"matchers":[{"name":"gpu","value":"("}],"startsAt":"2026-01-01T00:00:00Z","endsAt":"x"})",
               "t");
  EXPECT_NE(r.body.find("endsAt"), std::string::npos);
  r = api.call("POST", "/api/v1/silences",
               R"({"matchers":[{"name":"gpu","value":"(","isRegex":true}],"startsAt":"2026-01-01T00:00:00Z",
                   "endsAt":"2026-01-02T00:00:00+02:00"})",
               "t");
  EXPECT_NE(r.body.find("invalid regular expression"), std::string::npos);
}

// Wrong types used to throw out of the handler (a 500); each is a 400 naming the field.
TEST(AlertingApi, WrongTypesAre400sNamingTheField) {
  AlertingService service(options("t"), [] { return std::int64_t{1000}; });
  Api api{service};
  const std::string times = R"("startsAt":"2026-01-01T00:00:00Z","endsAt":"2026-01-02T00:00:00Z")";
  const std::pair<std::string, std::string> cases[] = {
      {R"({"matchers":[{"name":"gpu","value":"3","isRegex":"yes"}],)" + times + "}", "matchers[0].isRegex"},
      {R"({"matchers":[{"name":"gpu","value":"3","isEqual":1}],)" + times + "}", "matchers[0].isEqual"},
      {R"({"matchers":[{"name":"gpu","value":"3"}],"createdBy":7,)" + times + "}", "createdBy"},
      {R"({"matchers":[{"name":"gpu","value":"3"}],"comment":["x"],)" + times + "}", "comment"},
      {R"({"matchers":[{"name":"gpu","value":3}],)" + times + "}", "matchers[0]"},
  };
  for (const auto& [body, field] : cases) {
    const auto r = api.call("POST", "/api/v1/silences", body, "t");
    EXPECT_EQ(r.status, 400) << body << " -> " << r.body;
    const auto error = nlohmann::json::parse(r.body)["error"].get<std::string>();
    EXPECT_TRUE(error.starts_with(field + ":")) << error;
  }
}

// What the client sent is quoted back as valid UTF-8, whatever bytes it was.
TEST(AlertingApi, EchoedTextIsValidUtf8) {
  AlertingService service(options("t"), [] { return std::int64_t{1000}; });
  Api api{service};
  const auto r = api.call("POST", "/api/v1/silences", "{\"matchers\": [{\"name\": \"py\xff\xfethon\"", "t");
  EXPECT_EQ(r.status, 400);
  ASSERT_TRUE(is_valid_utf8(r.body)) << r.body;
  const auto error = nlohmann::json::parse(r.body)["error"].get<std::string>();
  EXPECT_TRUE(error.starts_with("the body is not JSON: parse error at line 1, column 27")) << error;
  EXPECT_NE(error.find("py\xEF\xBF\xBD"), std::string::npos) << error;
}

// A damaged silences.json in the data dir ("id": 7) used to stop the agent from starting: now that silence is
// left out, the others are kept, and the metric counts the problem.
TEST(AlertingApi, ADamagedSavedSilenceCostsOnlyThatSilence) {
  TempDir dir;
  std::ofstream(dir.path() + "/silences.json") << R"([
  {"id": 7, "matchers":[{"name":"gpu","value":"1"}],"startsAt":"1970-01-01T00:00:00Z","endsAt":"2100-01-01T00:00:00Z"},
  {"id": "abc", "matchers":[{"name":"gpu","value":"2"}],"startsAt":"1970-01-01T00:00:00Z","endsAt":"2100-01-01T00:00:00Z"}
])";
  AlertingService service(options("t", dir.path()), [] { return std::int64_t{1000}; });
  Api api{service};
  const auto list = nlohmann::json::parse(api.call("GET", "/api/v1/silences").body)["data"];
  ASSERT_EQ(list.size(), 1u) << list.dump();
  EXPECT_EQ(list[0]["id"], "abc");
  std::string metrics;
  service.append_metrics(metrics, ExpositionFormat::kText004);
  EXPECT_NE(metrics.find("gpuwatch_silences_load_errors{source=\"api\"} 1"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("gpuwatch_silences_load_errors{source=\"config\"} 0"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir.path() + "/silences.json.bad"));  // kept before a save rewrites the file

  std::ofstream(dir.path() + "/silences.json", std::ios::trunc) << "[{\"id\": \"x\",\n  oops}]";
  AlertingService again(options("t", dir.path()), [] { return std::int64_t{1000}; });
  metrics.clear();
  again.append_metrics(metrics, ExpositionFormat::kText004);
  EXPECT_NE(metrics.find("gpuwatch_silences_load_errors{source=\"api\"} 1"), std::string::npos) << metrics;
}

TEST(SilencesFile, EachProblemNamesTheFileAndWhere) {
  TempDir dir;
  const std::string path = dir.path() + "/windows.json";
  std::ofstream(path)
      << "[\n  {\"matchers\": [{\"name\": \"gpu\", \"value\": \"3\"}],\n   \"startsAt\": ,}\n]";
  auto file = read_silences_file(path, false);
  ASSERT_EQ(file.errors.size(), 1u);
  EXPECT_TRUE(file.errors[0].starts_with(path + ":3:16: invalid JSON: syntax error")) << file.errors[0];

  std::ofstream(path, std::ios::trunc) << R"([
    {"matchers":[{"name":"gpu","value":"3","isRegex":"yes"}],"startsAt":"2026-01-01T00:00:00Z","endsAt":"2026-01-02T00:00:00Z"},
    {"matchers":[{"name":"gpu","value":"4"}],"startsAt":"2026-01-01T00:00:00Z","endsAt":"2026-01-02T00:00:00Z"}])";
  file = read_silences_file(path, false);
  ASSERT_EQ(file.errors.size(), 1u);
  EXPECT_EQ(file.errors[0], path + ": silence 0: matchers[0].isRegex: expected true or false, got \"yes\"");
  ASSERT_EQ(file.silences.size(), 1u);
  EXPECT_EQ(file.silences[0].matchers[0].value(), "4");

  file = read_silences_file(dir.path() + "/missing.json", false);
  ASSERT_EQ(file.errors.size(), 1u);
  EXPECT_NE(file.errors[0].find("missing.json: cannot read: No such file or directory"), std::string::npos);
  EXPECT_TRUE(read_silences_file(dir.path() + "/missing.json", true, true).errors.empty());
}

TEST(AlertingApi, SilencesSurviveARestart) {
  TempDir dir;
  std::string id;
  {
    AlertingService service(options("t", dir.path()), [] { return std::int64_t{1000}; });
    Api api{service};
    id = nlohmann::json::parse(api.call("POST", "/api/v1/silences", kSilence, "t").body)["data"]["silenceID"];
  }
  AlertingService again(options("t", dir.path()), [] { return std::int64_t{1000}; });
  Api api{again};
  const auto list = nlohmann::json::parse(api.call("GET", "/api/v1/silences").body)["data"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["id"], id);
}

TEST(AlertingApi, AlertsInPrometheusFormatAndOnMetrics) {
  AlertingService service(options("t"), [] { return std::int64_t{5000}; });
  Condition c;
  c.alertname = "GpuXidCritical";
  c.severity = Severity::kPage;
  c.labels = {{"gpu", "3"}, {"xid", "79"}};
  c.summary = "XID 79 on GPU 3";
  Condition slow = c;
  slow.alertname = "GpuThermalSlowdown";
  slow.for_duration = std::chrono::minutes(5);
  service.evaluate(std::vector{c, slow}, 2000);
  Api api{service};
  const auto body = nlohmann::json::parse(api.call("GET", "/api/v1/alerts").body);
  EXPECT_EQ(body["status"], "success");
  const auto& alerts = body["data"]["alerts"];
  ASSERT_EQ(alerts.size(), 2u);
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& a : alerts) by_name[a["labels"]["alertname"]] = a;
  EXPECT_EQ(by_name["GpuXidCritical"]["state"], "firing");
  EXPECT_EQ(by_name["GpuThermalSlowdown"]["state"], "pending");
  EXPECT_EQ(by_name["GpuXidCritical"]["activeAt"], "1970-01-01T00:00:02.000Z");
  EXPECT_EQ(by_name["GpuXidCritical"]["labels"]["hostname"], "node7");

  std::string metrics;
  service.append_metrics(metrics, ExpositionFormat::kText004);
  EXPECT_NE(metrics.find("# TYPE ALERTS gauge"), std::string::npos);
  EXPECT_NE(metrics.find("ALERTS{alertname=\"GpuXidCritical\",gpu=\"3\",hostname=\"node7\",severity=\"page\","
                         "xid=\"79\",alertstate=\"firing\"} 1"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("alertstate=\"pending\""), std::string::npos);
  EXPECT_NE(metrics.find("ALERTS_FOR_STATE{alertname=\"GpuXidCritical\",gpu=\"3\",hostname=\"node7\","
                         "severity=\"page\",xid=\"79\"} 2"),
            std::string::npos);
}

TEST(AlertingApi, RunbooksAreServedByAlertName) {
  AlertingService service(options(""), [] { return std::int64_t{0}; });
  Api api{service};
  const auto r = api.call("GET", "/runbooks/GpuTestRunbook");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/markdown; charset=utf-8");
  EXPECT_NE(r.body.find("# GpuTestRunbook"), std::string::npos);
  const auto missing = api.call("GET", "/runbooks/NoSuchAlert");
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find("NoSuchAlert"), std::string::npos);
  EXPECT_EQ(api.call("GET", "/runbooks/../etc").status, 404);  // names only, never paths
}

}  // namespace
}  // namespace gpuwatch::alerting
