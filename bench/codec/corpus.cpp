#include "corpus.h"

#include <charconv>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

namespace gpuwatch::bench {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

double parse_value(std::string_view s, bool& ok) {
  ok = true;
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s == "+Inf" || s == "Inf") return std::numeric_limits<double>::infinity();
  if (s == "-Inf") return -std::numeric_limits<double>::infinity();
  double v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  ok = r.ec == std::errc() && r.ptr == s.data() + s.size();
  return v;
}

}  // namespace

std::vector<CorpusSeries> load_prometheus_text(const std::string& path) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) throw std::runtime_error(path + ": cannot open");
  std::vector<CorpusSeries> series;
  std::unordered_map<std::string, std::size_t> index;
  std::size_t current = std::numeric_limits<std::size_t>::max();
  std::string pending;
  std::vector<char> buf(1 << 22);
  std::size_t line_no = 0;

  auto take_line = [&](std::string_view line) {
    ++line_no;
    if (line.empty() || line[0] == '#') return;
    const auto fail = [&](const char* what) {
      throw std::runtime_error(path + ":" + std::to_string(line_no) + ": " + what);
    };
    const std::size_t ts_space = line.rfind(' ');
    if (ts_space == std::string_view::npos || ts_space == 0) fail("expected 'series value timestamp_ms'");
    const std::size_t value_space = line.rfind(' ', ts_space - 1);
    if (value_space == std::string_view::npos) fail("expected 'series value timestamp_ms'");
    const std::string_view name = line.substr(0, value_space);
    const std::string_view value = line.substr(value_space + 1, ts_space - value_space - 1);
    const std::string_view ts = line.substr(ts_space + 1);
    std::int64_t t = 0;
    const auto tr = std::from_chars(ts.data(), ts.data() + ts.size(), t);
    if (tr.ec != std::errc() || tr.ptr != ts.data() + ts.size()) fail("timestamp is not an integer (ms)");
    bool ok = false;
    const double v = parse_value(value, ok);
    if (!ok) fail("value is not a number");
    // Series are contiguous in the corpus: look the name up only when it changes.
    if (current >= series.size() || series[current].name != name) {
      const auto [it, added] = index.try_emplace(std::string(name), series.size());
      if (added) series.push_back(CorpusSeries{std::string(name), {}, {}});
      current = it->second;
    }
    series[current].timestamps_ms.push_back(t);
    series[current].values.push_back(v);
  };

  std::size_t got = 0;
  while ((got = std::fread(buf.data(), 1, buf.size(), file.get())) > 0) {
    std::string_view chunk(buf.data(), got);
    std::size_t start = 0;
    for (std::size_t nl = chunk.find('\n'); nl != std::string_view::npos; nl = chunk.find('\n', start)) {
      if (!pending.empty()) {
        pending.append(chunk.substr(start, nl - start));
        take_line(pending);
        pending.clear();
      } else {
        take_line(chunk.substr(start, nl - start));
      }
      start = nl + 1;
    }
    pending.append(chunk.substr(start));
  }
  if (!pending.empty()) take_line(pending);
  return series;
}

}  // namespace gpuwatch::bench
