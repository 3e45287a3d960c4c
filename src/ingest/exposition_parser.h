// A streaming parser of timestamped Prometheus text 0.0.4 (timestamps in integer milliseconds) and
// OpenMetrics 1.0 (timestamps in seconds, a fraction allowed; `# EOF` last) over text in memory (a mapped
// file), one sample at a time, without copying the text.
//
// A caller may rely on:
//  - every sample has a timestamp (a line without one is an error: import writes history, not "now"), unless
//    set_scrape_time() gave the time of a scrape: then a sample without one is at that time;
//  - a bad line is reported once through the error callback, as file:line:column and what was expected,
//    and skipped; parsing continues on the next line;
//  - labels are normalised (store::normalize_labels) and include __name__; consecutive samples spelled
//    with the same series text share one Labels object (Sample::new_series is false for the second);
//  - OpenMetrics: counter samples keep their `_total` name; `_created` samples of counters, histograms and
//    summaries are creation times, not values, and are skipped (counted in created_skipped()); info and
//    stateset samples are plain samples; exemplars are ignored.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/series.h"

namespace gpuwatch::ingest {

enum class InputFormat { kAuto, kOpenMetrics, kPrometheus };

// "openmetrics" or "prometheus".
std::string_view to_string(InputFormat format);
// kAuto resolved from the text: OpenMetrics when its last line is "# EOF", else Prometheus text.
InputFormat detect_format(std::string_view text);

struct ParseError {
  std::string file;
  std::size_t line = 0;           // 1-based
  std::size_t column = 0;         // 1-based, in bytes
  std::string message;            // what was expected or found
  std::string to_string() const;  // "file:line:column: message"
};

struct Sample {
  const store::Labels* labels = nullptr;  // valid until the next call of next()
  bool new_series = true;                 // the series text differs from the previous sample's
  std::int64_t t_ms = 0;
  bool timestamped = true;  // the text gave t_ms (false: the scrape time)
  double value = 0;
};

class ExpositionParser {
 public:
  using ErrorSink = std::function<void(const ParseError&)>;

  // `text` must outlive the parser. kAuto is resolved with detect_format.
  ExpositionParser(std::string_view text, std::string file_name, InputFormat format, ErrorSink on_error);

  // Reading a scrape: a sample without a timestamp is at t_ms (a scrape's time) instead of an error.
  void set_scrape_time(std::int64_t t_ms) {
    scrape_time_ms_ = t_ms;
    has_scrape_time_ = true;
  }

  // The next sample, skipping comments and bad lines; false at the end of the text.
  bool next(Sample& out);

  InputFormat format() const { return format_; }
  std::size_t offset() const { return pos_; }  // bytes consumed so far
  std::size_t bad_lines() const { return bad_lines_; }
  std::size_t created_skipped() const { return created_skipped_; }

 private:
  // Parses one line; true when it was a sample (written to out).
  bool parse_line(std::string_view line, Sample& out);
  bool parse_comment(std::string_view line);
  bool parse_series(std::string_view line, std::size_t& pos);
  bool parse_labels(std::string_view line, std::size_t& pos);
  bool parse_value_and_time(std::string_view line, std::size_t pos, Sample& out);
  bool skip_created(std::string_view name) const;
  bool fail(std::size_t column0, std::string message);  // reports, counts, returns false

  std::string_view text_;
  std::string file_;
  InputFormat format_;
  ErrorSink on_error_;
  std::size_t pos_ = 0;
  std::size_t line_no_ = 0;
  std::size_t bad_lines_ = 0;
  std::size_t created_skipped_ = 0;
  bool seen_eof_ = false;
  bool has_scrape_time_ = false;
  std::int64_t scrape_time_ms_ = 0;

  std::string series_text_;    // the raw name{labels} text of the current series
  bool series_valid_ = false;  // series_text_ and labels_ describe the last good sample's series
  bool skip_series_ = false;   // that series is an OpenMetrics _created series
  store::Labels labels_;
  std::unordered_map<std::string, std::string> family_types_;  // OpenMetrics # TYPE, by family name
};

}  // namespace gpuwatch::ingest
