// Import of exposition files into the history store: parses each file (exposition_parser.h), appends its
// samples through a store::SeriesAppender in batches of one series, and keeps the figures of the summary.
// A bad line or a rejected sample costs that sample only; a file that cannot be read costs that file only.
// Parsing runs on a thread of its own, a few batches ahead of the appends (about a third of an import's time
// is parsing); the appender, the error sink and the progress sink are called on the thread that runs run(),
// in file order.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <stop_token>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/series.h"
#include "ingest/exposition_parser.h"

namespace gpuwatch::ingest {

struct ImportProgress {
  std::size_t bytes_done = 0;   // of all files, the current one included
  std::size_t bytes_total = 0;  // of all files given to the importer
  std::size_t samples = 0;      // read so far
  double seconds = 0;
  std::size_t file_index = 0;  // 1-based
  std::size_t file_count = 0;
};

struct RejectedSamples {
  std::size_t count = 0;
  std::string example;  // the first reason given, in full, with the series
};

struct ImportSummary {
  std::size_t files = 0;  // imported (readable)
  std::size_t unreadable_files = 0;
  std::size_t bytes = 0;
  std::size_t series = 0;  // distinct series seen
  std::size_t samples_read = 0;
  std::size_t samples_imported = 0;
  std::int64_t min_t_ms = 0;  // of imported samples; only when samples_imported > 0
  std::int64_t max_t_ms = 0;
  std::size_t bad_lines = 0;
  std::size_t created_skipped = 0;
  std::map<std::string, RejectedSamples> rejected;  // by reason (the text before its first ':')
  double seconds = 0;
};

struct ImportOptions {
  InputFormat format = InputFormat::kAuto;
  std::size_t batch_points = 8192;
  // Pages of a file already parsed are handed back to the kernel every this many bytes, so that importing
  // a file larger than memory keeps the resident set flat.
  std::size_t release_every_bytes = std::size_t{64} << 20;
};

class Importer {
 public:
  using ErrorSink = ExpositionParser::ErrorSink;
  using ProgressSink = std::function<void(const ImportProgress&)>;

  // `paths` are all the files of this import (their sizes make the progress total). Errors (bad lines,
  // unreadable files) go to on_error; progress is reported about every 64 k samples and at each file's end.
  Importer(store::SeriesAppender& appender, std::vector<std::string> paths, ImportOptions options,
           ErrorSink on_error, ProgressSink on_progress = {});

  // Imports every file, commits, and returns the summary.
  ImportSummary run();

 private:
  struct Parsed;      // what the parsing thread hands over (importer.cpp)
  class ParsedQueue;  // the bounded hand-over between the two threads (importer.cpp)
  // Parses one file into `out`; false once the reader has stopped taking (stop requested).
  bool parse_file(const std::string& path, ParsedQueue& out, const std::stop_token& stop) const;
  void take(Parsed& item);
  void report_progress();

  store::SeriesAppender& appender_;
  std::vector<std::string> paths_;
  ImportOptions options_;
  ErrorSink on_error_;
  ProgressSink on_progress_;
  ImportSummary summary_;
  ImportProgress progress_;
  std::chrono::steady_clock::time_point start_;
  std::unordered_set<std::string> seen_series_;
};

}  // namespace gpuwatch::ingest
