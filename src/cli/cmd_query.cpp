// `gpuwatch query 'EXPR' [--since 1h | --start T --end T] [--step D] [--format table|json|csv]`: asks the
// agent's Prometheus-compatible API at --url; when no agent answers there, evaluates the expression itself
// over the store in --data-dir. Without --since/--start it is an instant query (--time, default now).
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/query_output.h"
#include "cli/query_store_access.h"
#include "config/agent_options.h"
#include "core/duration.h"
#include "core/relative_time.h"
#include "core/utf8.h"
#include "core/wall_clock.h"
#include "net/http_client.h"
#include "query/api_params.h"
#include "query/engine.h"
#include "query/query_error.h"
#include "query/result_json.h"

namespace gpuwatch {
namespace {

struct QueryArgs {
  std::string expr;
  std::string since, start, end, time, step;
  std::string format = "table";
  std::string url = "http://127.0.0.1:19400";
  std::string data_dir{kDefaultDataDir};  // the agent's
};

// The query as API parameters: query plus time, or start/end/step.
using Params = std::multimap<std::string, std::string>;

// A time flag: the API's spellings (unix seconds, RFC 3339) or "now", "now-1h"; the flag's default when
// empty. All of one query's flags share one `now`.
std::int64_t time_flag(const std::string& name, const std::string& text, std::int64_t now) {
  if (text.empty()) return now;
  if (auto relative = parse_relative_time(text, now)) return *relative;
  return query::time_param(name, text);
}

// Turns the flags into API parameters; throws QueryError(bad_data) for unreadable times.
Params api_params(const QueryArgs& a, bool& range) {
  range = !a.since.empty() || !a.start.empty() || !a.end.empty();
  Params p{{"query", a.expr}};
  const std::int64_t now = wall_unix_ms();
  if (!range) {
    p.emplace("time", query::format_timestamp(time_flag("time", a.time, now)));
    return p;
  }
  std::int64_t end = time_flag("end", a.end, now);
  std::int64_t start = 0;
  if (!a.since.empty()) {
    const auto d = parse_duration(a.since);
    if (!d) throw query::bad_data("--since: \"" + a.since + "\" is not a duration (e.g. 90s, 15m, 1h)");
    start = end - d->count();
  } else {
    if (a.start.empty()) throw query::bad_data("--end needs --start (or use --since)");
    start = time_flag("start", a.start, now);
  }
  // About 240 points across the range unless told; at least one second.
  std::int64_t step = a.step.empty() ? std::max<std::int64_t>(1000, (end - start) / 240 / 1000 * 1000)
                                     : query::duration_param("step", a.step);
  p.emplace("start", query::format_timestamp(start));
  p.emplace("end", query::format_timestamp(end));
  p.emplace("step", query::format_timestamp(step));
  return p;
}

// The agent's answer, or nullopt when nothing answers at the URL. Throws net::ClientError for a URL it cannot
// ask (not http(s), or https without the TLS module).
std::optional<nlohmann::json> ask_agent(const std::string& url, bool range, const Params& params) {
  net::ClientOptions options;
  options.timeouts = {std::chrono::seconds(1), std::chrono::seconds(60), {}};
  const auto client = net::make_http_client(url, options);
  net::Request post{"POST",
                    range ? "/api/v1/query_range" : "/api/v1/query",
                    {{"Content-Type", net::kFormContentType}},
                    net::form_encode({params.begin(), params.end()}),
                    {},
                    {}};
  const auto r = client->send(post);
  if (!r.ok()) return std::nullopt;
  auto body = nlohmann::json::parse(r.response.body, nullptr, false);
  if (body.is_discarded() || !body.contains("status")) {
    throw std::runtime_error(url + " answered HTTP " + std::to_string(r.response.status) +
                             " but not with the query API; is it a gpuwatch agent?");
  }
  return body;
}

nlohmann::json evaluate_locally(const QueryArgs& a, bool range, const Params& params) {
  const auto source = open_store_for_query(a.data_dir);
  const auto param = [&](const char* name) { return params.find(name)->second; };
  try {
    const auto result = range
                            ? query::range_query(*source, a.expr,
                                                 {query::time_param("start", param("start")),
                                                  query::time_param("end", param("end")),
                                                  query::duration_param("step", param("step"))})
                            : query::instant_query(*source, a.expr, query::time_param("time", param("time")));
    return nlohmann::json::parse(query::result_to_json(result));
  } catch (const query::QueryError& e) {
    return nlohmann::json::parse(
        query::error_to_json(query::error_type(e.kind()), gpuwatch::to_valid_utf8(e.what())));
  }
}

int run_query(const QueryArgs& a) {
  static const std::map<std::string, QueryFormat> kFormats = {
      {"table", QueryFormat::kTable}, {"json", QueryFormat::kJson}, {"csv", QueryFormat::kCsv}};
  bool range = false;
  Params params;
  try {
    params = api_params(a, range);
  } catch (const query::QueryError& e) {
    std::cerr << "gpuwatch query: " << e.what() << "\n";
    return kExitUsage;
  }
  nlohmann::json response;
  try {
    auto answer = ask_agent(a.url, range, params);
    response = answer ? std::move(*answer) : evaluate_locally(a, range, params);
  } catch (const std::exception& e) {
    std::cerr << "gpuwatch query: " << e.what() << "\n";
    return kExitRuntime;
  }
  if (response["status"] != "success") {
    std::cerr << "gpuwatch query: " << response.value("errorType", "error") << ": "
              << response.value("error", "") << "\n";
    return kExitUsage;
  }
  std::cout << format_query_response(response, kFormats.at(a.format));
  return kExitOk;
}

}  // namespace

void add_query_command(CLI::App& app, CommandAction& action, const TypedFlags& /*typed*/) {
  auto args = std::make_shared<QueryArgs>();
  CLI::App* cmd =
      app.add_subcommand("query", "Evaluate a PromQL expression over the history (docs/query.md)");
  cmd->add_option("EXPR", args->expr, "PromQL expression (the subset in docs/query.md)")->required();
  auto* since = cmd->add_option("--since", args->since, "Range query over the last DURATION (e.g. 1h)");
  cmd->add_option("--start", args->start, "Range start: unix seconds, RFC 3339, now or now-DURATION")
      ->excludes(since);
  cmd->add_option("--end", args->end, "Range end, as --start (default now)");
  cmd->add_option("--time", args->time, "Instant query time, as --start (default now)");
  cmd->add_option("--step", args->step, "Range step: seconds or a duration (default: range / 240)");
  cmd->add_option("--format", args->format, "Output: table, json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  cmd->add_option("--url", args->url, "Agent to ask first")->capture_default_str();
  cmd->add_option("--data-dir", args->data_dir, "Store to read when no agent answers")->capture_default_str();
  cmd->callback([&action, args] { action = [args] { return run_query(*args); }; });
}

}  // namespace gpuwatch
