// `gpuwatch alerts [--json] [--url URL]`: the pending and firing alerts of a running agent (its
// /api/v1/alerts), as a table or as the API's JSON. `gpuwatch alerts inhibit-rules` prints the
// inhibit_rules for Alertmanager's config that match the agent's own inhibition table.
#include <httplib.h>

#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "alerting/inhibition.h"

#include "alerting/receiver.h"
#include "cli/alerts_table.h"
#include "cli/commands.h"
#include "core/json_text.h"

namespace gpuwatch {
namespace {

struct AlertsArgs {
  bool json = false;
  std::string url = "http://127.0.0.1:19400";
};

int run_alerts(const AlertsArgs& args) {
  std::string origin, path;
  if (auto error = alerting::split_url(args.url, origin, path); !error.empty()) {
    std::cerr << "gpuwatch alerts: --url: " << error << "\n";
    return kExitUsage;
  }
  httplib::Client client(origin);
  client.set_connection_timeout(std::chrono::seconds(3));
  client.set_read_timeout(std::chrono::seconds(10));
  const std::string base = path == "/" ? "" : path;
  const auto res = client.Get(base + "/api/v1/alerts");
  if (!res) {
    std::cerr << "gpuwatch alerts: no agent answers at " << args.url << " ("
              << httplib::to_string(res.error())
              << "); is `gpuwatch agent` running there? Pass --url to ask another.\n";
    return kExitRuntime;
  }
  const auto body = nlohmann::json::parse(res->body, nullptr, false);
  if (res->status != 200 || body.is_discarded() || !body.contains("data")) {
    std::cerr << "gpuwatch alerts: " << args.url << "/api/v1/alerts answered HTTP " << res->status << ": "
              << res->body.substr(0, 300) << "\n";
    return kExitRuntime;
  }
  const auto& alerts = body["data"]["alerts"];
  if (args.json) {
    std::cout << to_json_text(body, 2) << "\n";
    return kExitOk;
  }
  if (alerts.empty()) {
    std::cout << "no pending or firing alerts\n";
    return kExitOk;
  }
  std::cout << render_alerts_table(alerts);
  return kExitOk;
}

}  // namespace

void add_alerts_command(CLI::App& app, CommandAction& action) {
  CLI::App* cmd = app.add_subcommand("alerts", "Show the pending and firing alerts of a running agent");
  auto args = std::make_shared<AlertsArgs>();
  CLI::Option* json = cmd->add_flag("--json", args->json, "Print the agent's /api/v1/alerts JSON");
  CLI::Option* url = cmd->add_option("--url", args->url, "The agent to ask")->capture_default_str();
  cmd->callback([&action, args, cmd] {
    if (cmd->get_subcommands().empty()) action = [args] { return run_alerts(*args); };
  });
  CLI::App* rules = cmd->add_subcommand(
      "inhibit-rules", "Print Alertmanager inhibit_rules matching gpuwatch's inhibition table");
  // It asks no agent: the flags of `alerts` itself are an error beside it, not ignored.
  rules->excludes(json)->excludes(url);
  rules->callback([&action] {
    action = [] {
      std::cout << alerting::alertmanager_inhibit_rules_yaml();
      return static_cast<int>(kExitOk);
    };
  });
}

}  // namespace gpuwatch
