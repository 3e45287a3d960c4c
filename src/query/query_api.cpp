#include "query/query_api.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>

#include "core/json_text.h"
#include "core/utf8.h"
#include "core/wall_clock.h"
#include "query/api_params.h"
#include "query/engine.h"
#include "query/parser.h"
#include "query/query_error.h"
#include "query/result_json.h"

namespace gpuwatch::query {
namespace {

// Prometheus's "no bound" for series and label lookups without start/end.
constexpr std::int64_t kMinTime = std::numeric_limits<std::int64_t>::min() / 2;
constexpr std::int64_t kMaxTime = std::numeric_limits<std::int64_t>::max() / 2;

HttpReply json(int status, std::string body) {
  HttpReply r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

HttpReply success(const std::string& data) {
  return json(200, R"({"status":"success","data":)" + data + "}");
}

// Runs a handler, turning QueryError into Prometheus's error reply.
template <typename Fn>
HttpRoute route(std::string pattern, std::string what, Fn fn,
                std::vector<std::string> methods = {"GET", "POST"}) {
  return HttpRoute{std::move(methods), std::move(pattern), std::move(what), [fn](const HttpRequest& req) {
                     try {
                       return fn(req);
                     } catch (const QueryError& e) {
                       // The message may quote the query or a label value: any bytes a client sent.
                       return json(http_status(e.kind()),
                                   error_to_json(error_type(e.kind()), to_valid_utf8(e.what())));
                     }
                   }};
}

// [a-zA-Z_][a-zA-Z0-9_]*, Prometheus's label names.
bool is_label_name(const std::string& name) {
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (name.empty() || !letter(name[0])) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

std::vector<std::vector<store::LabelMatcher>> match_params(const HttpRequest& req, bool required) {
  std::vector<std::vector<store::LabelMatcher>> out;
  for (const std::string& m : req.params_named("match[]")) {
    ExprPtr e;
    try {
      e = parse_expression(m);
    } catch (const QueryError& err) {
      throw bad_data(std::string("invalid parameter \"match[]\": ") + err.what());
    }
    if (e->kind != Expr::Kind::kVectorSelector) {
      throw bad_data("invalid parameter \"match[]\": \"" + m + "\" is not a series selector");
    }
    out.push_back(e->matchers);
  }
  if (out.empty()) {
    if (required) throw bad_data("no match[] parameter provided");
    out.push_back({{"__name__", store::LabelMatcher::Op::kRegexMatch, ".+"}});
  }
  return out;
}

std::set<store::Labels> matching_series(const store::SeriesSource& source, const HttpRequest& req,
                                        bool required) {
  const std::int64_t start = req.has_param("start") ? time_param("start", req.param("start")) : kMinTime;
  const std::int64_t end = req.has_param("end") ? time_param("end", req.param("end")) : kMaxTime;
  std::set<store::Labels> all;
  for (const auto& matchers : match_params(req, required)) {
    for (auto& labels : source.series(matchers, start, end)) all.insert(std::move(labels));
  }
  return all;
}

// Prometheus 3's `limit` of series and label lookups (Grafana sends it): at most that many, with a warning
// when more matched; 0 or absent: all.
std::size_t limit_param(const HttpRequest& req) {
  if (!req.has_param("limit")) return 0;
  const std::string text = req.param("limit");
  char* end = nullptr;
  const long long n = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || n < 0)
    throw bad_data("invalid parameter \"limit\": cannot parse \"" + text + "\" to a valid limit");
  return static_cast<std::size_t>(n);
}

HttpReply limited_success(const std::string& array_items, std::size_t count, std::size_t limit) {
  std::string body = R"({"status":"success","data":[)" + array_items + "]";
  if (limit > 0 && count > limit) body += R"(,"warnings":["results truncated due to limit"])";
  return json(200, body + "}");
}

std::string string_items(const std::set<std::string>& values, std::size_t limit) {
  std::string out;
  std::size_t n = 0;
  for (const auto& v : values) {
    if (limit > 0 && n == limit) break;
    if (n++) out += ',';
    append_json_string(out, v);
  }
  return out;
}

}  // namespace

std::vector<HttpRoute> query_routes(std::shared_ptr<const store::SeriesSource> source,
                                    QueryApiOptions options) {
  if (!options.now_ms) options.now_ms = wall_unix_ms;
  std::vector<HttpRoute> routes;
  routes.push_back(
      route("/api/v1/query", "PromQL instant query (Prometheus API)", [=](const HttpRequest& req) {
        const std::int64_t t =
            req.has_param("time") ? time_param("time", req.param("time")) : options.now_ms();
        try {
          return json(200, result_to_json(instant_query(*source, req.param("query"), t, options.eval)));
        } catch (const QueryError& e) {
          if (e.kind() == QueryError::Kind::kBadData)
            throw bad_data(std::string("invalid parameter \"query\": ") + e.what());
          throw;
        }
      }));
  routes.push_back(
      route("/api/v1/query_range", "PromQL range query (Prometheus API)", [=](const HttpRequest& req) {
        if (!options.no_history.empty()) throw execution_error(options.no_history);
        Steps steps;
        steps.start = time_param("start", req.param("start"));
        steps.end = time_param("end", req.param("end"));
        if (steps.end < steps.start) throw bad_data("end timestamp must not be before start time");
        steps.step = duration_param("step", req.param("step"));
        check_steps(steps, options.eval);
        try {
          return json(200, result_to_json(range_query(*source, req.param("query"), steps, options.eval)));
        } catch (const QueryError& e) {
          if (e.kind() == QueryError::Kind::kBadData)
            throw bad_data(std::string("invalid parameter \"query\": ") + e.what());
          throw;
        }
      }));
  routes.push_back(
      route("/api/v1/series", "series matching match[] (Prometheus API)", [=](const HttpRequest& req) {
        const std::size_t limit = limit_param(req);
        const auto all = matching_series(*source, req, true);
        std::string out;
        std::size_t n = 0;
        for (const auto& labels : all) {
          if (limit > 0 && n == limit) break;
          if (n++) out += ',';
          append_labels_json(out, labels);
        }
        return limited_success(out, all.size(), limit);
      }));
  routes.push_back(route("/api/v1/labels", "label names (Prometheus API)", [=](const HttpRequest& req) {
    const std::size_t limit = limit_param(req);
    std::set<std::string> names;
    for (const auto& labels : matching_series(*source, req, false)) {
      for (const auto& l : labels) names.insert(l.first);
    }
    return limited_success(string_items(names, limit), names.size(), limit);
  }));
  routes.push_back(route("/api/v1/label/([^/]+)/values", "",
                         [=](const HttpRequest& req) {
                           const std::string name = req.captures.empty() ? "" : req.captures[0];
                           if (!is_label_name(name)) throw bad_data("invalid label name: \"" + name + "\"");
                           const std::size_t limit = limit_param(req);
                           std::set<std::string> values;
                           for (const auto& labels : matching_series(*source, req, false)) {
                             for (const auto& l : labels) {
                               if (l.first == name) values.insert(l.second);
                             }
                           }
                           return limited_success(string_items(values, limit), values.size(), limit);
                         },
                         {"GET"}));
  routes.push_back(route("/api/v1/metadata", "metric types and help (Prometheus API)",
                         [published = options.published](const HttpRequest& req) {
                           long limit = -1;
                           if (req.has_param("limit"))
                             limit = std::strtol(req.param("limit").c_str(), nullptr, 10);
                           return success(
                               metadata_json(served_metadata(published), req.param("metric"), limit));
                         },
                         {"GET"}));
  routes.push_back(route("/api/v1/query_exemplars", "exemplars (none are kept; Prometheus API)",
                         [](const HttpRequest& req) {
                           // Checked as Prometheus checks them, so a client's mistake is still an error.
                           try {
                             parse_expression(req.param("query"));
                           } catch (const QueryError& e) {
                             throw bad_data(std::string("invalid parameter \"query\": ") + e.what());
                           }
                           if (req.has_param("start")) time_param("start", req.param("start"));
                           if (req.has_param("end")) time_param("end", req.param("end"));
                           return success("[]");
                         }));
  routes.push_back(route("/api/v1/status/buildinfo", "",
                         [](const HttpRequest&) {
                           // Grafana reads the version to decide which PromQL features to offer; gpuwatch
                           // answers the Prometheus API of 2.42 (the subset in docs/query.md), and says who
                           // it is in "revision".
                           return success(std::string(R"({"version":"2.42.0","revision":"gpuwatch )") +
                                          GPUWATCH_VERSION +
                                          R"(","branch":"","buildUser":"","buildDate":"","goVersion":""})");
                         },
                         {"GET"}));
  return routes;
}

}  // namespace gpuwatch::query
