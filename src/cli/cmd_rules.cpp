// `gpuwatch rules slo FILE...`: Prometheus recording and alerting rules for the SLOs of Sloth or OpenSLO
// files, with Sloth's names, agreeing with the agent's evaluation (docs/slo.md); `gpuwatch rules inhibit`:
// the inhibit_rules for Alertmanager's config that match the agent's inhibition table (as `alerts
// inhibit-rules`).
#include <iostream>
#include <memory>

#include "alerting/inhibition.h"
#include "cli/commands.h"
#include "slo/prometheus_rules.h"
#include "slo/spec_files.h"

namespace gpuwatch {
namespace {

int run_slo_rules(const std::vector<std::string>& files) {
  std::vector<slo::SloSpec> slos;
  for (const auto& file : files) {
    try {
      for (auto& s : slo::load_slo_file(file)) slos.push_back(std::move(s));
    } catch (const slo::SpecError& e) {
      std::cerr << e.what() << "\n";
      return kExitUsage;
    }
  }
  std::cout << slo::prometheus_rules_yaml(slos);
  return kExitOk;
}

}  // namespace

void add_rules_command(CLI::App& app, CommandAction& action, const TypedFlags& /*typed*/) {
  CLI::App* cmd = app.add_subcommand("rules", "Print rules for Prometheus and Alertmanager");
  cmd->require_subcommand(1);
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* slo =
      cmd->add_subcommand("slo", "Prometheus recording and alerting rules for SLO files (Sloth names)");
  slo->add_option("files", *files, "Sloth or OpenSLO files")->required();
  slo->callback([&action, files] { action = [files] { return run_slo_rules(*files); }; });
  CLI::App* inhibit =
      cmd->add_subcommand("inhibit", "Print Alertmanager inhibit_rules matching gpuwatch's inhibition table");
  inhibit->callback([&action] {
    action = [] {
      std::cout << alerting::alertmanager_inhibit_rules_yaml();
      return static_cast<int>(kExitOk);
    };
  });
}

}  // namespace gpuwatch
