#include "ingest/importer.h"

#include <sys/stat.h>

#include <algorithm>
#include <limits>

#include "ingest/mapped_file.h"

namespace gpuwatch::ingest {
namespace {

constexpr std::size_t kProgressEverySamples = 1 << 16;

std::size_t file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::size_t>(st.st_size) : 0;
}

std::string reason_key(const std::string& reason) {
  return reason.substr(0, reason.find(':'));
}

}  // namespace

Importer::Importer(store::SeriesAppender& appender, std::vector<std::string> paths, ImportOptions options,
                   ErrorSink on_error, ProgressSink on_progress)
    : appender_(appender),
      paths_(std::move(paths)),
      options_(options),
      on_error_(std::move(on_error)),
      on_progress_(std::move(on_progress)) {
  for (const auto& p : paths_) progress_.bytes_total += file_size(p);
  progress_.file_count = paths_.size();
  summary_.min_t_ms = std::numeric_limits<std::int64_t>::max();
  summary_.max_t_ms = std::numeric_limits<std::int64_t>::min();
  batch_.reserve(options_.batch_points);
}

ImportSummary Importer::run() {
  start_ = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    progress_.file_index = i + 1;
    import_file(paths_[i]);
  }
  appender_.commit();
  summary_.series = seen_series_.size();
  summary_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (summary_.samples_imported == 0) summary_.min_t_ms = summary_.max_t_ms = 0;
  return summary_;
}

void Importer::import_file(const std::string& path) {
  std::size_t size = 0;
  try {
    MappedFile file(path);
    size = file.text().size();
    ExpositionParser parser(file.text(), path, options_.format, on_error_);
    Sample sample;
    std::size_t next_release = options_.release_every_bytes;
    while (parser.next(sample)) {
      if (sample.new_series) {
        flush();
        batch_labels_ = *sample.labels;
        seen_series_.insert(store::labels_to_string(batch_labels_));
      } else if (batch_.size() == options_.batch_points) {
        flush();
      }
      batch_.push_back({sample.t_ms, sample.value});
      if (++summary_.samples_read % kProgressEverySamples == 0) {
        progress_.bytes_done = bytes_before_file_ + parser.offset();
        if (parser.offset() >= next_release) {
          file.release_before(parser.offset());
          next_release = parser.offset() + options_.release_every_bytes;
        }
        report_progress();
      }
    }
    flush();
    summary_.bad_lines += parser.bad_lines();
    summary_.created_skipped += parser.created_skipped();
    ++summary_.files;
  } catch (const std::runtime_error& e) {
    flush();
    ++summary_.unreadable_files;
    if (on_error_) on_error_(ParseError{path, 0, 0, e.what()});
  }
  summary_.bytes += size;
  bytes_before_file_ += size;
  progress_.bytes_done = bytes_before_file_;
  report_progress();
}

void Importer::flush() {
  if (batch_.empty()) return;
  const auto rejected = appender_.append_points(batch_labels_, batch_);
  std::size_t r = 0;
  for (std::size_t i = 0; i < batch_.size(); ++i) {
    if (r < rejected.size() && rejected[r].index == i) {
      auto& entry = summary_.rejected[reason_key(rejected[r].reason)];
      if (entry.count++ == 0)
        entry.example = store::labels_to_string(batch_labels_) + ": " + rejected[r].reason;
      ++r;
      continue;
    }
    summary_.min_t_ms = std::min(summary_.min_t_ms, batch_[i].t_ms);
    summary_.max_t_ms = std::max(summary_.max_t_ms, batch_[i].t_ms);
    ++summary_.samples_imported;
  }
  batch_.clear();
}

void Importer::report_progress() {
  if (!on_progress_) return;
  progress_.samples = summary_.samples_read;
  progress_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  on_progress_(progress_);
}

}  // namespace gpuwatch::ingest
