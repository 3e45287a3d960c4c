// `gpuwatch report`: GPU-hours by state, cost by team and workload (most idle first), OpenCost's figure
// beside it, the GPUs under 20% and utilization over time, for a window of the history (docs/cost.md).
// It asks the agent's /api/v1/cost at --url; with --data-dir, or when no agent answers there, it reads the
// store itself (read-only) and computes the same report.
#include <fstream>
#include <iostream>
#include <memory>

#include "accounting/cost_report_json.h"
#include "cli/commands.h"
#include "cli/cost_report_formats.h"
#include "cli/query_store_access.h"
#include "config/agent_options.h"
#include "core/relative_time.h"
#include "core/wall_clock.h"
#include "net/http_client.h"
#include "query/api_params.h"

namespace gpuwatch {
namespace {

struct ReportArgs {
  std::string url = "http://127.0.0.1:19400";
  std::string data_dir;  // "": ask --url first, then read the default data dir
  std::string since = "7d";
  std::string end = "now";
  std::string format = "md";
  std::string out;
};

std::optional<std::int64_t> time_arg(const std::string& text, std::int64_t now) {
  if (auto t = parse_relative_time(text, now)) return t;
  return query::parse_api_time(text);
}

// The agent's report, or nullopt when nothing answers at the URL. Throws net::ClientError for a URL it cannot
// ask (not http(s), or https without the TLS module).
std::optional<accounting::CostReport> ask_agent(const std::string& url, std::int64_t start,
                                                std::int64_t end) {
  net::ClientOptions options;
  options.timeouts = {std::chrono::seconds(1), std::chrono::seconds(120), {}};
  const auto client = net::make_http_client(url, options);
  const std::string form = net::form_encode({{"start", std::to_string(static_cast<double>(start) / 1000.0)},
                                             {"end", std::to_string(static_cast<double>(end) / 1000.0)}});
  const auto r =
      client->send({"POST", "/api/v1/cost", {{"Content-Type", net::kFormContentType}}, form, {}, {}});
  if (!r.ok()) return std::nullopt;
  const auto body = nlohmann::json::parse(r.response.body, nullptr, false);
  if (body.is_discarded() || !body.contains("status"))
    throw std::runtime_error(url + " answered HTTP " + std::to_string(r.response.status) +
                             " but not with the cost API; is it a gpuwatch agent?");
  if (body["status"] != "success")
    throw std::runtime_error(url + ": " + body.value("error", std::string("the cost API failed")));
  return accounting::cost_report_from_json(body.at("data"));
}

int run_report(const ReportArgs& a) {
  const std::int64_t now = wall_unix_ms();
  const auto end = time_arg(a.end, now);
  const auto since = query::parse_api_duration(a.since);
  if (!end || !since || *since <= 0) {
    std::cerr << "gpuwatch report: "
              << (!end ? "--end: expected unix seconds, RFC 3339, now or now-DURATION"
                       : "--since: expected a duration such as 7d")
              << "\n";
    return kExitUsage;
  }
  const std::int64_t start = *end - *since;
  accounting::CostReport report;
  try {
    std::optional<accounting::CostReport> answer;
    if (a.data_dir.empty()) answer = ask_agent(a.url, start, *end);
    if (answer) {
      report = std::move(*answer);
    } else {
      const auto source =
          open_store_for_query(a.data_dir.empty() ? std::string(kDefaultDataDir) : a.data_dir);
      report = accounting::build_cost_report(*source, start, *end);
    }
  } catch (const std::exception& e) {
    std::cerr << "gpuwatch report: " << e.what() << "\n";
    return kExitRuntime;
  }
  std::string text;
  if (a.format == "md") text = cost_report_markdown(report);
  if (a.format == "html") text = cost_report_html(report);
  if (a.format == "csv") text = cost_report_csv(report);
  if (a.format == "json") text = accounting::to_json(report).dump(2) + "\n";
  if (a.out.empty()) {
    std::cout << text;
    return kExitOk;
  }
  std::ofstream file(a.out, std::ios::binary | std::ios::trunc);
  file << text;
  if (!file.flush()) {
    std::cerr << "gpuwatch report: cannot write " << a.out << "\n";
    return kExitRuntime;
  }
  return kExitOk;
}

}  // namespace

void add_report_command(CLI::App& app, CommandAction& action, const TypedFlags& /*typed*/) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report", "GPU-hours by state, cost by team and workload, idle waste, over a window (docs/cost.md)");
  auto* url = cmd->add_option("--url", args->url, "Agent whose /api/v1/cost to ask")->capture_default_str();
  cmd->add_option("--data-dir", args->data_dir, "Read this store instead of asking an agent")->excludes(url);
  cmd->add_option("--since", args->since, "The window: this long before --end (e.g. 7d, 30d)")
      ->capture_default_str();
  cmd->add_option("--end", args->end, "The window's end: unix seconds, RFC 3339, now or now-DURATION")
      ->capture_default_str();
  cmd->add_option("--format", args->format, "md (Markdown), html (with plots), csv or json")
      ->check(CLI::IsMember({"md", "html", "csv", "json"}))
      ->capture_default_str();
  cmd->add_option("--out", args->out, "Write the report to FILE instead of standard output");
  cmd->callback([&action, args] { action = [args] { return run_report(*args); }; });
}

}  // namespace gpuwatch
