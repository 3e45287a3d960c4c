// `gpuwatch import FILE...`: backfills the history store from Prometheus text (millisecond timestamps) or
// OpenMetrics files, the way to migrate from another TSDB or to put identical data into gpuwatch and its
// peers. Bad lines and rejected samples are reported and skipped; the rest is imported.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/import_report.h"
#include "ingest/importer.h"
#include "ingest/validating_appender.h"
#include "store/store.h"

namespace gpuwatch {
namespace {

constexpr std::size_t kShownErrors = 20;

struct ImportFlags {
  std::vector<std::string> files;
  std::string data_dir;
  std::string format = "auto";
  bool dry_run = false;
  bool quiet = false;
};

// The history store for writing, in whatever clock domain it was recorded in (a new one: wall time). It
// refuses while an agent holds the directory: import into a stopped agent's data dir.
std::shared_ptr<store::Store> open_store_for_import(const std::string& data_dir, std::string& error) {
  store::StoreOptions options;
  options.data_dir = data_dir;
  options.clock_domain = "";
  try {
    return store::Store::open(options);
  } catch (const std::exception& e) {
    error = "cannot import into " + data_dir + ": " + e.what();
    return nullptr;
  }
}

int run_import(const ImportFlags& flags) {
  const ingest::InputFormat format = flags.format == "openmetrics"  ? ingest::InputFormat::kOpenMetrics
                                     : flags.format == "prometheus" ? ingest::InputFormat::kPrometheus
                                                                    : ingest::InputFormat::kAuto;
  std::shared_ptr<store::SeriesAppender> appender;
  std::shared_ptr<store::Store> history;
  if (flags.dry_run) {
    appender = std::make_shared<ingest::ValidatingAppender>();
  } else {
    if (flags.data_dir.empty()) {
      std::cerr << "import needs --data-dir DIR (or --dry-run to only validate the files)\n";
      return kExitUsage;
    }
    std::string error;
    history = open_store_for_import(flags.data_dir, error);
    appender = history;
    if (!appender) {
      std::cerr << error << "\n";
      return kExitRuntime;
    }
  }
  std::size_t errors = 0;
  auto on_error = [&errors](const ingest::ParseError& e) {
    if (++errors <= kShownErrors) std::cerr << e.to_string() << "\n";
    if (errors == kShownErrors + 1) std::cerr << "(further errors are counted, not shown)\n";
  };
  ImportProgressPrinter printer(std::cerr);
  ingest::Importer::ProgressSink on_progress;
  if (!flags.quiet && ::isatty(STDERR_FILENO) == 1) {
    on_progress = [&printer](const ingest::ImportProgress& p) { printer.update(p); };
  }
  ingest::ImportOptions options;
  options.format = format;
  ingest::Importer importer(*appender, flags.files, options, on_error, on_progress);
  const ingest::ImportSummary summary = importer.run();
  // Imported history is complete: seal it into compressed blocks now rather than leaving the last hour of
  // every series in the write-ahead log.
  if (history) history->seal_all();
  printer.finish();
  print_import_summary(std::cout, summary);
  const bool clean = summary.bad_lines == 0 && summary.unreadable_files == 0 && summary.rejected.empty();
  return clean ? kExitOk : kExitWarning;
}

}  // namespace

void add_import_command(CLI::App& app, CommandAction& action, const TypedFlags& /*typed*/) {
  CLI::App* cmd = app.add_subcommand(
      "import",
      "Import timestamped Prometheus text or OpenMetrics files into the history store (exit 2 when lines or "
      "samples were skipped)");
  auto flags = std::make_shared<ImportFlags>();
  cmd->add_option("FILE", flags->files, "Files to import, in order")->required()->check(CLI::ExistingFile);
  cmd->add_option("--data-dir", flags->data_dir, "The store's data directory");
  cmd->add_option("--format", flags->format,
                  "Input format: auto (OpenMetrics when the file ends in # EOF), "
                  "openmetrics (timestamps in s) or prometheus (timestamps in ms)")
      ->check(CLI::IsMember({"auto", "openmetrics", "prometheus"}))
      ->capture_default_str();
  cmd->add_flag("--dry-run", flags->dry_run, "Parse and check ordering only; write nothing");
  cmd->add_flag("--quiet", flags->quiet, "No progress output");
  cmd->callback([&action, flags] { action = [flags] { return run_import(*flags); }; });
}

}  // namespace gpuwatch
