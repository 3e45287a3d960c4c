// `gpuwatch slo status [--json] [--url URL]`: a running agent's SLOs (its /api/v1/slos) as a table or JSON;
// `gpuwatch slo check FILE...`: reads Sloth or OpenSLO files as the agent would and lists their SLOs, or the
// first problem at file:line; `gpuwatch slo template`: a Sloth or OpenSLO document for a Triton, vLLM or TGI
// server with its real metric names (docs/slo.md, "Templates").
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/agent_api_get.h"
#include "cli/commands.h"
#include "cli/text_table.h"
#include "core/duration.h"
#include "core/json_text.h"
#include "slo/burn_rules.h"
#include "slo/server_templates.h"
#include "slo/spec_files.h"

namespace gpuwatch {
namespace {

struct SloArgs {
  bool json = false;
  std::string url = "http://127.0.0.1:19400";
  std::vector<std::string> files;
  std::string server = "vllm";
  std::string sli = "latency";
  std::string model;
  std::string service;
  std::string job;
  double objective = 99;
  std::string threshold;
};

std::string percent(double ratio) {
  return fmt::format("{:.3f}%", 100 * ratio);
}

int run_status(const SloArgs& args) {
  const AgentApiReply reply = get_agent_api("slo status", args.url, "/api/v1/slos");
  if (reply.exit_code != kExitOk) return reply.exit_code;
  const auto& body = reply.body;
  if (args.json) {
    std::cout << to_json_text(body, 2) << "\n";
    return kExitOk;
  }
  TextTable table({"SERVICE", "SLO", "OBJECTIVE", "SLI 5m", "SLI PERIOD", "BUDGET LEFT", "BURN 5m", "BURN 1h",
                   "BURN 6h", "ALERT", "GPUS", "GPU CAUSE"});
  for (const auto& s : body["data"]) {
    std::string gpus, cause = s["alertState"] == "ok" ? "" : "no GPU cause found";
    for (const auto& g : s["gpus"]) gpus += (gpus.empty() ? "" : ",") + g.get<std::string>();
    if (!s["gpuCause"].empty()) {
      const auto& c = s["gpuCause"][0];
      cause = fmt::format("gpu {} {} since {}", c["gpu"].get<std::string>(),
                          c["alertname"].get<std::string>(), c["since"].get<std::string>());
    }
    const auto& burn = s["burnRate"];
    const std::string state = s["alertState"];
    table.add({s["service"], s["slo"], percent(s["objective"]), percent(s["sli"]), percent(s["sliPeriod"]),
               percent(s["budgetRemaining"]), fmt::format("{:.2f}", burn.value("5m", 0.0)),
               fmt::format("{:.2f}", burn.value("1h", 0.0)), fmt::format("{:.2f}", burn.value("6h", 0.0)),
               state, gpus, cause},
              state == "page"     ? terminal_colour::kRed
              : state == "ticket" ? terminal_colour::kYellow
                                  : "");
  }
  std::cout << table.render(false);
  return kExitOk;
}

int run_check(const SloArgs& args) {
  int rc = kExitOk;
  for (const auto& file : args.files) {
    try {
      for (const auto& s : slo::load_slo_file(file)) {
        std::cout << s.origin << ": " << s.service << "/" << s.name << " objective " << percent(s.objective)
                  << " over " << (s.calendar ? slo::describe(s.calendar_period) : slo::window_name(s.period))
                  << "\n";
      }
    } catch (const slo::SpecError& e) {
      std::cerr << e.what() << "\n";
      rc = kExitUsage;
    }
  }
  return rc;
}

int run_template(const SloArgs& args) {
  slo::TemplateRequest r;
  if (args.server == "triton")
    r.server = slo::ServerKind::kTriton;
  else if (args.server == "tgi")
    r.server = slo::ServerKind::kTgi;
  else
    r.server = slo::ServerKind::kVllm;
  if (args.sli == "availability")
    r.sli = slo::TemplateSli::kAvailability;
  else if (args.sli == "ttft")
    r.sli = slo::TemplateSli::kTimeToFirstToken;
  else
    r.sli = slo::TemplateSli::kLatency;
  r.model = args.model;
  r.service = args.service;
  r.job = args.job;
  r.objective_percent = args.objective;
  if (!args.threshold.empty()) {
    const auto d = parse_duration(args.threshold);
    if (!d) {
      std::cerr << "gpuwatch slo template: --threshold: not a duration: " << args.threshold << "\n";
      return kExitUsage;
    }
    r.threshold = *d;
  }
  try {
    std::cout << slo::server_template(r);
  } catch (const std::invalid_argument& e) {
    std::cerr << "gpuwatch slo template: " << e.what() << "\n";
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

void add_slo_command(CLI::App& app, CommandAction& action, const TypedFlags& /*typed*/) {
  CLI::App* cmd =
      app.add_subcommand("slo", "SLOs: a running agent's status, SLO files checked, server templates");
  cmd->require_subcommand(1);
  auto args = std::make_shared<SloArgs>();
  CLI::App* status = cmd->add_subcommand("status", "Show a running agent's SLOs (its /api/v1/slos)");
  status->add_flag("--json", args->json, "Print the agent's /api/v1/slos JSON");
  status->add_option("--url", args->url, "The agent to ask")->capture_default_str();
  status->callback([&action, args] { action = [args] { return run_status(*args); }; });
  CLI::App* check =
      cmd->add_subcommand("check", "Read Sloth or OpenSLO files as the agent does and list their SLOs");
  check->add_option("files", args->files, "SLO files")->required();
  check->callback([&action, args] { action = [args] { return run_check(*args); }; });
  CLI::App* tmpl = cmd->add_subcommand("template", "Print an SLO document for a Triton, vLLM or TGI server");
  tmpl->add_option("--server", args->server, "triton, vllm or tgi")
      ->check(CLI::IsMember({"triton", "vllm", "tgi"}))
      ->capture_default_str();
  tmpl->add_option("--sli", args->sli, "availability, latency or ttft")
      ->check(CLI::IsMember({"availability", "latency", "ttft"}))
      ->capture_default_str();
  tmpl->add_option("--model", args->model, "The model (Triton's model label, vLLM's model_name)")->required();
  tmpl->add_option("--service", args->service, "The service label (default: the model)");
  tmpl->add_option("--job", args->job, "The scrape job to match");
  tmpl->add_option("--objective", args->objective, "Objective in percent")->capture_default_str();
  tmpl->add_option("--threshold", args->threshold,
                   "Latency SLIs: requests at or under this are good (e.g. 10s)");
  tmpl->callback([&action, args] { action = [args] { return run_template(*args); }; });
}

}  // namespace gpuwatch
