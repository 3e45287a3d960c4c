// `gpuwatch sim export`: runs the collector on libnvml-sim in lockstep (scenario time moves tick by tick, as
// fast as the machine allows) and writes every native family of every snapshot, per-process series and GPM
// ratios included, as timestamped exposition files: a deterministic corpus that `gpuwatch import`, promtool
// and VictoriaMetrics read identically.
//
// The export ends at the wall clock's now (its start is aligned to the step), unless GPUWATCH_SIM_EPOCH or
// the scenario's node.start fixes the start. What the collector would measure of the exporting machine is
// left out, so the same scenario and start give the same files anywhere: the host's own kernel log, /sys
// and /proc, and the wall time of each collection.
#include <chrono>
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
#include "core/metric_catalogue.h"
#include "core/rfc3339.h"
#include "core/wall_clock.h"
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

// The families that time the exporting machine (the wall time of each collection and source read), not the
// scenario.
bool times_the_exporter(std::string_view family) {
  return family == metric_def(Metric::kCollectionSeconds).name ||
         family == metric_def(Metric::kSourceDuration).name;
}

// Milliseconds since the epoch as GPUWATCH_SIM_EPOCH reads them: seconds with a fraction.
std::string epoch_seconds(std::int64_t ms) {
  const std::string fraction = std::to_string(1000 + ms % 1000);
  return std::to_string(ms / 1000) + "." + fraction.substr(1);
}

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
  const std::int64_t step_ms = step->count();
  const std::int64_t ticks = duration->count() / step_ms;
  const std::int64_t wall_now_ms = wall_unix_ms();
  // The last snapshot at the last multiple of the step before now, the first ticks - 1 steps earlier. The
  // simulator reads GPUWATCH_SIM_EPOCH at nvmlInit; a scenario's node.start still wins over it.
  const char* user_epoch = std::getenv("GPUWATCH_SIM_EPOCH");
  const bool start_given = user_epoch != nullptr && *user_epoch != '\0';
  const std::int64_t planned_start = wall_now_ms / step_ms * step_ms - (ticks - 1) * step_ms;
  if (!start_given) ::setenv("GPUWATCH_SIM_EPOCH", epoch_seconds(planned_start).c_str(), 1);

  AgentOptions options;
  options.sim_scenario = flags.scenario;
  options.nvml_library = flags.nvml_library;
  options.kmsg.clear();  // the host's sources describe this machine, not the scenario's node
  options.sysfs_root.clear();
  options.proc_root.clear();
  if (auto problem = prepare_simulator(options); !problem.empty()) {
    std::cerr << problem << "\n";
    return kExitUsage;
  }
  ::setenv("GPUWATCH_SIM_MODE", "lockstep", 1);
  CollectorOptions copts = collector_options(options);
  copts.interval = *step;
  // A hung call is known at once in lockstep (Collector::wait_for); a healthy read on a loaded machine must
  // never be reported stale.
  copts.deadline = std::chrono::seconds(10);
  Collector collector(copts);
  Clock& clock = collector.clock();
  if (std::string_view(clock.domain()) != "scenario-lockstep") {
    std::cerr << "sim export needs the simulator's lockstep clock, got " << clock.domain() << "\n";
    return kExitUsage;
  }
  const std::int64_t start = clock.now_ms();
  const std::int64_t last = start + (ticks - 1) * step_ms;
  std::cout << "sim export: " << format_rfc3339_ms(start) << " .. " << format_rfc3339_ms(last) << ", "
            << ticks << " snapshots " << format_duration(*step) << " apart" << std::endl;
  if (last > wall_now_ms) {
    // History is never stamped ahead of the clock (and gpuwatch's lockstep clock would wait for it).
    std::cerr << "sim export: the export would end "
              << format_duration(std::chrono::milliseconds(last - wall_now_ms))
              << " after now: its start is fixed by "
              << (start_given ? "GPUWATCH_SIM_EPOCH (or the scenario's node.start)"
                              : "the scenario's node.start")
              << "; give an earlier start or a shorter --duration, or leave the start to the export\n";
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
  for (std::int64_t i = 0; i < ticks; ++i) {
    if (i > 0) clock.sleep_until_ms(start + i * step_ms);
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
    std::vector<Family> families = native_families(*snapshot);
    std::erase_if(families, [](const Family& f) { return times_the_exporter(f.name); });
    exposition.add(families, t);
  }
  write_window();
  std::cout << "files=" << files << " series=" << exposition.series() << " samples=" << samples
            << " start_ms=" << start << " end_ms=" << last << " step_ms=" << step_ms << " ticks=" << ticks
            << "\n";
  return kExitOk;
}

}  // namespace

void add_sim_export_command(CLI::App& sim, CommandAction& action, const TypedFlags& /*typed*/) {
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
