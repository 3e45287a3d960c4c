// `gpuwatch alerts [--json] [--url URL]`: the pending and firing alerts of a running agent (its
// /api/v1/alerts), as a table or as the API's JSON. `gpuwatch alerts inhibit-rules` prints the
// inhibit_rules for Alertmanager's config that match the agent's own inhibition table.

#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "alerting/inhibition.h"

#include "cli/agent_api_get.h"
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
  const AgentApiReply reply = get_agent_api("alerts", args.url, "/api/v1/alerts");
  if (reply.exit_code != kExitOk) return reply.exit_code;
  const auto& body = reply.body;
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

void add_alerts_command(CLI::App& app, CommandAction& action, const TypedFlags& /*typed*/) {
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
