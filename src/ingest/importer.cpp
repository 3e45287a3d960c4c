#include "ingest/importer.h"

#include <sys/stat.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>

#include "ingest/mapped_file.h"

namespace gpuwatch::ingest {
namespace {

constexpr std::size_t kProgressEverySamples = 1 << 16;
// Batches parsed ahead of the appends: enough to keep both threads busy, few enough to hold little memory
// (at most this many batches of ImportOptions::batch_points samples).
constexpr std::size_t kBatchesAhead = 16;

std::size_t file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::size_t>(st.st_size) : 0;
}

std::string reason_key(const std::string& reason) {
  return reason.substr(0, reason.find(':'));
}

}  // namespace

// One item of the hand-over: a batch of one series, a parse error, a progress mark or a file's end.
struct Importer::Parsed {
  enum class Kind { kFileStart, kBatch, kError, kProgress, kFileDone, kFileUnreadable };
  Kind kind = Kind::kBatch;
  store::Labels labels;              // kBatch
  bool new_series = false;           // kBatch: the first batch of a series spelled anew
  std::vector<store::Point> points;  // kBatch
  ParseError error;                  // kError, kFileUnreadable
  std::size_t samples = 0;           // kProgress, kFileDone: samples read in the file so far
  std::size_t offset = 0;            // kProgress: bytes of the file parsed; kFileDone: its size
  std::size_t bad_lines = 0;         // kFileDone
  std::size_t created_skipped = 0;   // kFileDone
};

class Importer::ParsedQueue {
 public:
  // False when the reader has stopped (it will take nothing more).
  bool put(Parsed item, const std::stop_token& stop) {
    std::unique_lock lock(mu_);
    if (!room_.wait(lock, stop, [this] { return items_.size() < kBatchesAhead; })) return false;
    items_.push_back(std::move(item));
    ready_.notify_one();
    return true;
  }
  void close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    ready_.notify_one();
  }
  // The next item, or none once the writer has closed the queue and every item was taken.
  std::optional<Parsed> take() {
    std::unique_lock lock(mu_);
    ready_.wait(lock, [this] { return !items_.empty() || closed_; });
    if (items_.empty()) return std::nullopt;
    Parsed item = std::move(items_.front());
    items_.pop_front();
    room_.notify_one();
    return item;
  }

 private:
  std::mutex mu_;
  std::condition_variable_any room_;
  std::condition_variable ready_;
  std::deque<Parsed> items_;
  bool closed_ = false;
};

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
}

ImportSummary Importer::run() {
  start_ = std::chrono::steady_clock::now();
  ParsedQueue queue;
  std::jthread parser([this, &queue](const std::stop_token& stop) {
    struct CloseOnExit {
      ParsedQueue& q;
      ~CloseOnExit() { q.close(); }
    } close_on_exit{queue};
    for (const std::string& path : paths_) {
      Parsed start;
      start.kind = Parsed::Kind::kFileStart;
      if (!queue.put(std::move(start), stop) || !parse_file(path, queue, stop)) return;
    }
  });
  // Should an append throw, the parser stops at its next hand-over and is joined before this returns.
  struct StopOnExit {
    std::jthread& t;
    ~StopOnExit() {
      t.request_stop();
      t.join();
    }
  } stop_on_exit{parser};
  std::size_t bytes_before_file = 0, samples_before_file = 0;
  while (std::optional<Parsed> item = queue.take()) {
    switch (item->kind) {
      case Parsed::Kind::kFileStart:
        ++progress_.file_index;
        break;
      case Parsed::Kind::kBatch:
        take(*item);
        break;
      case Parsed::Kind::kError:
        if (on_error_) on_error_(item->error);
        break;
      case Parsed::Kind::kProgress:
        summary_.samples_read = samples_before_file + item->samples;
        progress_.bytes_done = bytes_before_file + item->offset;
        report_progress();
        break;
      case Parsed::Kind::kFileUnreadable:
      case Parsed::Kind::kFileDone:
        if (item->kind == Parsed::Kind::kFileUnreadable) {
          ++summary_.unreadable_files;
          if (on_error_) on_error_(item->error);
        } else {
          summary_.bad_lines += item->bad_lines;
          summary_.created_skipped += item->created_skipped;
          ++summary_.files;
        }
        samples_before_file += item->samples;
        summary_.samples_read = samples_before_file;
        summary_.bytes += item->offset;
        bytes_before_file += item->offset;
        progress_.bytes_done = bytes_before_file;
        report_progress();
        break;
    }
  }
  appender_.commit();
  summary_.series = seen_series_.size();
  summary_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (summary_.samples_imported == 0) summary_.min_t_ms = summary_.max_t_ms = 0;
  return summary_;
}

bool Importer::parse_file(const std::string& path, ParsedQueue& out, const std::stop_token& stop) const {
  Parsed batch;
  std::size_t samples = 0, size = 0;
  bool stopped = false;
  // Errors go over the queue, so that the sink is called on the reader's thread, in order with the batches.
  auto to_reader = [&](const ParseError& e) {
    Parsed error;
    error.kind = Parsed::Kind::kError;
    error.error = e;
    stopped = stopped || !out.put(std::move(error), stop);
  };
  const auto hand_over = [&] {
    if (batch.points.empty()) return;
    stopped = stopped || !out.put(std::move(batch), stop);
    batch = Parsed{};
    batch.points.reserve(options_.batch_points);
  };
  try {
    MappedFile file(path);
    size = file.text().size();
    ExpositionParser parser(file.text(), path, options_.format, to_reader);
    Sample sample;
    std::size_t next_release = options_.release_every_bytes;
    batch.points.reserve(options_.batch_points);
    while (!stopped && parser.next(sample)) {
      if (sample.new_series || batch.points.size() == options_.batch_points) {
        hand_over();
        batch.labels = *sample.labels;
        batch.new_series = sample.new_series;
      }
      batch.points.push_back({sample.t_ms, sample.value});
      if (++samples % kProgressEverySamples == 0) {
        hand_over();
        batch.labels = *sample.labels;
        Parsed mark;
        mark.kind = Parsed::Kind::kProgress;
        mark.samples = samples;
        mark.offset = parser.offset();
        stopped = stopped || !out.put(std::move(mark), stop);
        if (parser.offset() >= next_release) {
          file.release_before(parser.offset());
          next_release = parser.offset() + options_.release_every_bytes;
        }
      }
    }
    hand_over();
    Parsed done;
    done.kind = Parsed::Kind::kFileDone;
    done.samples = samples;
    done.offset = size;
    done.bad_lines = parser.bad_lines();
    done.created_skipped = parser.created_skipped();
    return !stopped && out.put(std::move(done), stop);
  } catch (const std::runtime_error& e) {
    hand_over();
    Parsed unreadable;
    unreadable.kind = Parsed::Kind::kFileUnreadable;
    unreadable.samples = samples;
    unreadable.offset = size;
    unreadable.error = ParseError{path, 0, 0, e.what()};
    return !stopped && out.put(std::move(unreadable), stop);
  }
}

void Importer::take(Parsed& batch) {
  if (batch.new_series) seen_series_.insert(store::labels_to_string(batch.labels));
  const auto rejected = appender_.append_points(batch.labels, batch.points);
  std::size_t r = 0;
  for (std::size_t i = 0; i < batch.points.size(); ++i) {
    if (r < rejected.size() && rejected[r].index == i) {
      auto& entry = summary_.rejected[reason_key(rejected[r].reason)];
      if (entry.count++ == 0)
        entry.example = store::labels_to_string(batch.labels) + ": " + rejected[r].reason;
      ++r;
      continue;
    }
    summary_.min_t_ms = std::min(summary_.min_t_ms, batch.points[i].t_ms);
    summary_.max_t_ms = std::max(summary_.max_t_ms, batch.points[i].t_ms);
    ++summary_.samples_imported;
  }
}

void Importer::report_progress() {
  if (!on_progress_) return;
  progress_.samples = summary_.samples_read;
  progress_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  on_progress_(progress_);
}

}  // namespace gpuwatch::ingest
