// `gpuwatch sim export`: runs the collector on libnvml-sim in lockstep (scenario time moves tick by tick, as
// fast as the machine allows) and writes every native family of every snapshot, per-process series and GPM
// ratios included, as timestamped exposition files: a deterministic corpus that `gpuwatch import`, promtool
// and VictoriaMetrics read identically.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "agent/collector_setup.h"
#include "cli/agent_flags.h"
#include "cli/commands.h"
#include "collector/collector.h"
#include "core/duration.h"
#include "exposition/native_metrics.h"
#include "exposition/timed_exposition.h"

namespace gpuwatch {
namespace {

struct ExportFlags {
  std::string scenario;
  std::string duration = "24h";
  std::string step = "1s";
  std::string split = "2h";
  std::string format = "openmetrics";
  std::string out_dir;
  std::string nvml_library;
};

int run_export(const ExportFlags& flags) {
  const auto duration = parse_duration(flags.duration);
  const auto step = parse_duration(flags.step);
  const auto split =
      flags.split == "0" ? std::optional(std::chrono::milliseconds(0)) : parse_duration(flags.split);
  if (!duration || !step || !split || step->count() < 10 || duration->count() < step->count()) {
    std::cerr
        << "sim export: --duration, --step (>= 10ms, <= duration) and --split (0 = one file) are durations "
           "such as 24h, 1s\n";
    return kExitUsage;
  }
  AgentOptions options;
  options.sim_scenario = flags.scenario;
  options.nvml_library = flags.nvml_library;
  if (auto problem = prepare_simulator(options); !problem.empty()) {
    std::cerr << problem << "\n";
    return kExitUsage;
  }
  ::setenv("GPUWATCH_SIM_MODE", "lockstep", 1);
  CollectorOptions copts = collector_options(options);
  copts.interval = *step;
  Collector collector(copts);
  Clock& clock = collector.clock();
  if (std::string_view(clock.domain()) != "scenario-lockstep") {
    std::cerr << "sim export needs the simulator's lockstep clock, got " << clock.domain() << "\n";
    return kExitUsage;
  }
  const ExpositionFormat format =
      flags.format == "prometheus" ? ExpositionFormat::kText004 : ExpositionFormat::kOpenMetrics;
  const char* extension = format == ExpositionFormat::kText004 ? ".prom" : ".om";
  std::filesystem::create_directories(flags.out_dir);

  TimedExposition exposition(format);
  std::size_t files = 0;
  std::size_t samples = 0;
  std::int64_t window_start = 0;
  auto write_window = [&] {
    const auto path = std::filesystem::path(flags.out_dir) /
                      ("gpuwatch-" + std::to_string(window_start / 1000) + extension);
    std::ofstream out(path, std::ios::binary);
    samples += exposition.write(out);
    out.close();
    if (!out) throw std::runtime_error("cannot write " + path.string());
    ++files;
  };
  const std::int64_t split_ms = split->count();
  const std::int64_t ticks = duration->count() / step->count();
  const std::int64_t start = clock.now_ms();
  for (std::int64_t i = 0; i < ticks; ++i) {
    if (i > 0) clock.sleep_until_ms(start + i * step->count());
    collector.tick();
    const SnapshotPtr snapshot = collector.latest();
    if (!snapshot->source_error.empty()) {
      std::cerr << "sim export: " << snapshot->source_error << "\n";
      return kExitNoGpu;
    }
    const std::int64_t t = snapshot->timestamp_ms;
    if (i == 0) window_start = t;
    if (split_ms > 0 && t / split_ms != window_start / split_ms) {
      write_window();
      window_start = t;
    }
    exposition.add(native_families(*snapshot), t);
  }
  write_window();
  std::cout << "files=" << files << " series=" << exposition.series() << " samples=" << samples
            << " start_ms=" << start << " step_ms=" << step->count() << " ticks=" << ticks << "\n";
  return kExitOk;
}

}  // namespace

void add_sim_export_command(CLI::App& sim, CommandAction& action) {
  CLI::App* cmd = sim.add_subcommand(
      "export",
      "Run a scenario in lockstep and write every snapshot's native metrics as timestamped exposition");
  auto flags = std::make_shared<ExportFlags>();
  cmd->add_option(flag_names("sim_scenario"), flags->scenario, "Scenario file")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--duration", flags->duration, "Scenario time to export")->capture_default_str();
  cmd->add_option("--step", flags->step, "Scenario time between snapshots")->capture_default_str();
  cmd->add_option("--split", flags->split, "One file per aligned window of this length (0: one file)")
      ->capture_default_str();
  cmd->add_option("--format", flags->format, "openmetrics (timestamps in s) or prometheus (ms)")
      ->check(CLI::IsMember({"openmetrics", "prometheus"}))
      ->capture_default_str();
  cmd->add_option("--out-dir", flags->out_dir, "Directory for the files")->required();
  cmd->add_option(flag_names("nvml_library"), flags->nvml_library,
                  "libnvml-sim (default: the one next to gpuwatch)");
  cmd->callback([&action, flags] { action = [flags] { return run_export(*flags); }; });
}

}  // namespace gpuwatch
