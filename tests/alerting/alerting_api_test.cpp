#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "alerting/alerting_service.h"

namespace gpuwatch::alerting {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("gpuwatch-alerting-api-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

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

TEST(AlertingApi, NoTokenConfiguredMeansReadOnly) {
  AlertingService service(options(""), [] { return std::int64_t{1000}; });
  Api api{service};
  const auto r = api.call("POST", "/api/v1/silences", kSilence, "anything");
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(r.body.find("no API token is configured"), std::string::npos);
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

TEST(AlertingApi, SilencesSurviveARestart) {
  TempDir dir;
  std::string id;
  {
    AlertingService service(options("t", dir.path.string()), [] { return std::int64_t{1000}; });
    Api api{service};
    id = nlohmann::json::parse(api.call("POST", "/api/v1/silences", kSilence, "t").body)["data"]["silenceID"];
  }
  AlertingService again(options("t", dir.path.string()), [] { return std::int64_t{1000}; });
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
