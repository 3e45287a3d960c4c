#include "ingest/exposition_parser.h"

#include <cstring>
#include <utility>

#include "core/utf8.h"
#include "ingest/text_numbers.h"

namespace gpuwatch::ingest {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t';
}
bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool is_name_char(char c) {
  return is_name_start(c) || (c >= '0' && c <= '9');
}
bool is_label_start(char c) {
  return is_name_start(c) && c != ':';
}
bool is_label_char(char c) {
  return is_name_char(c) && c != ':';
}

std::size_t skip_spaces(std::string_view s, std::size_t pos) {
  while (pos < s.size() && is_space(s[pos])) ++pos;
  return pos;
}

std::size_t token_end(std::string_view s, std::size_t pos) {
  while (pos < s.size() && !is_space(s[pos])) ++pos;
  return pos;
}

std::string quoted(std::string_view token) {
  constexpr std::size_t kShown = 40;
  std::string out = "\"" + std::string(token.substr(0, kShown));
  if (token.size() > kShown) out += "...";
  return out + "\"";
}

bool known_type(InputFormat format, std::string_view type) {
  static constexpr std::string_view kText[] = {"counter", "gauge", "histogram", "summary", "untyped"};
  static constexpr std::string_view kOpenMetrics[] = {"counter", "gauge", "histogram", "gaugehistogram",
                                                      "summary", "info",  "stateset",  "unknown"};
  if (format == InputFormat::kOpenMetrics) {
    for (const auto t : kOpenMetrics) {
      if (t == type) return true;
    }
    return false;
  }
  for (const auto t : kText) {
    if (t == type) return true;
  }
  return false;
}

}  // namespace

std::string_view to_string(InputFormat format) {
  switch (format) {
    case InputFormat::kOpenMetrics:
      return "openmetrics";
    case InputFormat::kPrometheus:
      return "prometheus";
    case InputFormat::kAuto:
      break;
  }
  return "auto";
}

InputFormat detect_format(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || is_space(text.back()))) {
    text.remove_suffix(1);
  }
  const std::size_t nl = text.rfind('\n');
  const std::string_view last = nl == std::string_view::npos ? text : text.substr(nl + 1);
  return last == "# EOF" ? InputFormat::kOpenMetrics : InputFormat::kPrometheus;
}

std::string ParseError::to_string() const {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

ExpositionParser::ExpositionParser(std::string_view text, std::string file_name, InputFormat format,
                                   ErrorSink on_error)
    : text_(text),
      file_(std::move(file_name)),
      format_(format == InputFormat::kAuto ? detect_format(text) : format),
      on_error_(std::move(on_error)) {}

bool ExpositionParser::fail(std::size_t column0, std::string message) {
  ++bad_lines_;
  if (on_error_) on_error_(ParseError{file_, line_no_, column0 + 1, std::move(message)});
  return false;
}

bool ExpositionParser::next(Sample& out) {
  while (pos_ < text_.size()) {
    const char* start = text_.data() + pos_;
    const void* nl = std::memchr(start, '\n', text_.size() - pos_);
    const std::size_t len =
        nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - start) : text_.size() - pos_;
    std::string_view line(start, len);
    pos_ += len + (nl ? 1 : 0);
    ++line_no_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (parse_line(line, out)) return true;
  }
  if (format_ == InputFormat::kOpenMetrics && !seen_eof_) {
    seen_eof_ = true;  // report once
    ++line_no_;
    fail(0, "expected \"# EOF\" at the end of OpenMetrics text (truncated file?)");
  }
  return false;
}

bool ExpositionParser::parse_line(std::string_view line, Sample& out) {
  if (seen_eof_) {
    if (skip_spaces(line, 0) == line.size()) return false;
    return fail(0, "unexpected text after \"# EOF\" (expected the end of the file)");
  }
  const std::size_t first = skip_spaces(line, 0);
  if (first == line.size()) return false;  // blank line
  if (line[first] == '#') return parse_comment(line);

  std::size_t pos = 0;
  const std::size_t known = series_text_.size();
  if (series_valid_ && line.size() > known && is_space(line[known]) &&
      std::memcmp(line.data(), series_text_.data(), known) == 0) {
    pos = known;
    out.new_series = false;
  } else {
    if (!parse_series(line, pos)) return false;
    out.new_series = true;
  }
  if (skip_series_) {
    ++created_skipped_;
    return false;
  }
  out.labels = &labels_;
  return parse_value_and_time(line, pos, out);
}

bool ExpositionParser::parse_comment(std::string_view line) {
  const std::size_t hash = skip_spaces(line, 0);
  std::size_t pos = skip_spaces(line, hash + 1);
  const std::size_t word_end = token_end(line, pos);
  const std::string_view word = line.substr(pos, word_end - pos);
  const bool om = format_ == InputFormat::kOpenMetrics;
  if (om && line.substr(hash) == "# EOF") {
    seen_eof_ = true;
    return false;
  }
  if (word != "HELP" && word != "TYPE" && word != "UNIT") {
    if (!om) return false;  // text 0.0.4 allows any comment
    return fail(hash, "expected \"# HELP\", \"# TYPE\", \"# UNIT\" or \"# EOF\"");
  }
  if (word == "UNIT" && !om) return false;
  pos = skip_spaces(line, word_end);
  const std::size_t name_end = token_end(line, pos);
  const std::string_view name = line.substr(pos, name_end - pos);
  if (name.empty() || !is_name_start(name[0])) {
    return fail(pos, "expected a metric family name after \"# " + std::string(word) + "\"");
  }
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (!is_name_char(name[i])) return fail(pos + i, "invalid character in metric family name");
  }
  if (word != "TYPE") return false;
  pos = skip_spaces(line, name_end);
  const std::string_view type = line.substr(pos, token_end(line, pos) - pos);
  if (!known_type(format_, type)) {
    return fail(pos, std::string("expected a metric type (") +
                         (om ? "counter, gauge, histogram, gaugehistogram, summary, info, stateset or unknown"
                             : "counter, gauge, histogram, summary or untyped") +
                         "), found " + quoted(type));
  }
  if (om) family_types_[std::string(name)] = std::string(type);
  return false;
}

bool ExpositionParser::parse_series(std::string_view line, std::size_t& pos) {
  series_valid_ = false;
  if (!is_name_start(line[0])) return fail(0, "expected a metric name, a comment or a blank line");
  pos = 1;
  while (pos < line.size() && is_name_char(line[pos])) ++pos;
  const std::string_view name = line.substr(0, pos);
  labels_.clear();
  labels_.emplace_back("__name__", std::string(name));
  if (const std::size_t brace = skip_spaces(line, pos); brace < line.size() && line[brace] == '{') {
    pos = brace;
    if (!parse_labels(line, pos)) return false;
    if (std::string problem = store::normalize_labels(labels_); !problem.empty()) return fail(brace, problem);
  }
  std::size_t text_end = pos;
  while (text_end > 0 && is_space(line[text_end - 1])) --text_end;
  if (pos >= line.size() || !is_space(line[pos])) {
    return fail(
        pos, pos >= line.size() ? "expected a value after the series" : "expected a space after the series");
  }
  series_text_.assign(line.data(), text_end);
  skip_series_ = format_ == InputFormat::kOpenMetrics && skip_created(name);
  series_valid_ = true;
  return true;
}

bool ExpositionParser::parse_labels(std::string_view line, std::size_t& pos) {
  ++pos;  // '{'
  std::string value;
  while (true) {
    pos = skip_spaces(line, pos);
    if (pos < line.size() && line[pos] == '}') {
      ++pos;
      return true;
    }
    if (pos >= line.size() || !is_label_start(line[pos])) return fail(pos, "expected a label name or '}'");
    const std::size_t name_start = pos;
    while (pos < line.size() && is_label_char(line[pos])) ++pos;
    const std::string_view name = line.substr(name_start, pos - name_start);
    pos = skip_spaces(line, pos);
    if (pos >= line.size() || line[pos] != '=') return fail(pos, "expected '=' after the label name");
    pos = skip_spaces(line, pos + 1);
    if (pos >= line.size() || line[pos] != '"') return fail(pos, "expected '\"' to open the label value");
    ++pos;
    value.clear();
    while (true) {
      if (pos >= line.size()) return fail(pos, "expected '\"' to close the label value");
      const char c = line[pos];
      if (c == '"') break;
      if (c == '\\') {
        const char e = pos + 1 < line.size() ? line[pos + 1] : '\0';
        if (e != '\\' && e != '"' && e != 'n') {
          return fail(pos, "invalid escape in label value (expected \\\\, \\\" or \\n)");
        }
        value += e == 'n' ? '\n' : e;
        pos += 2;
        continue;
      }
      value += c;
      ++pos;
    }
    ++pos;  // closing quote
    // Prometheus refuses a whole scrape over one invalid label value; the sample is kept, its bad bytes
    // replaced, so that what the store holds can be served.
    labels_.emplace_back(std::string(name), to_valid_utf8(value));
    pos = skip_spaces(line, pos);
    if (pos < line.size() && line[pos] == ',') {
      ++pos;
      continue;
    }
    if (pos < line.size() && line[pos] == '}') {
      ++pos;
      return true;
    }
    return fail(pos, "expected ',' or '}' after the label value");
  }
}

bool ExpositionParser::parse_value_and_time(std::string_view line, std::size_t pos, Sample& out) {
  pos = skip_spaces(line, pos);
  std::size_t end = token_end(line, pos);
  if (pos == end) return fail(pos, "expected a value after the series");
  if (!parse_sample_value(line.substr(pos, end - pos), out.value)) {
    return fail(pos, "expected a number, NaN, +Inf or -Inf as the value, found " +
                         quoted(line.substr(pos, end - pos)));
  }
  pos = skip_spaces(line, end);
  const bool om = format_ == InputFormat::kOpenMetrics;
  out.timestamped = true;
  if (has_scrape_time_ && (pos == line.size() || (om && line[pos] == '#'))) {
    out.t_ms = scrape_time_ms_;
    out.timestamped = false;
    return true;
  }
  if (pos == line.size() || (om && line[pos] == '#')) {
    return fail(pos, om ? "expected a timestamp in seconds after the value (import needs timestamped samples)"
                        : "expected a timestamp in milliseconds after the value (import needs timestamped "
                          "samples)");
  }
  end = token_end(line, pos);
  const std::string_view ts = line.substr(pos, end - pos);
  if (om ? !parse_timestamp_seconds(ts, out.t_ms) : !parse_timestamp_ms(ts, out.t_ms)) {
    return fail(pos, std::string(om ? "expected a timestamp in seconds"
                                    : "expected a timestamp in integer "
                                      "milliseconds") +
                         ", found " + quoted(ts));
  }
  pos = skip_spaces(line, end);
  if (pos == line.size() || (om && line[pos] == '#')) return true;  // an exemplar follows '#': not history
  return fail(pos, om ? "expected the end of the line or an exemplar ('#') after the timestamp"
                      : "expected the end of the line after the timestamp");
}

bool ExpositionParser::skip_created(std::string_view name) const {
  constexpr std::string_view kCreated = "_created";
  if (name.size() <= kCreated.size() || name.substr(name.size() - kCreated.size()) != kCreated) return false;
  const auto it = family_types_.find(std::string(name.substr(0, name.size() - kCreated.size())));
  if (it == family_types_.end()) return false;
  return it->second == "counter" || it->second == "histogram" || it->second == "summary" ||
         it->second == "gaugehistogram";
}

}  // namespace gpuwatch::ingest
