#include "exposition/timed_exposition.h"

namespace gpuwatch {
namespace {

void append_timestamp(std::string& out, std::int64_t t_ms, ExpositionFormat format) {
  if (format == ExpositionFormat::kText004) {
    out += std::to_string(t_ms);
    return;
  }
  // Seconds, exact to the millisecond (a double would not be).
  const bool negative = t_ms < 0;
  const std::uint64_t abs_ms =
      negative ? 0 - static_cast<std::uint64_t>(t_ms) : static_cast<std::uint64_t>(t_ms);
  if (negative) out += '-';
  out += std::to_string(abs_ms / 1000);
  if (const std::uint64_t ms = abs_ms % 1000; ms != 0) {
    const char digits[4] = {'.', static_cast<char>('0' + ms / 100), static_cast<char>('0' + ms / 10 % 10),
                            static_cast<char>('0' + ms % 10)};
    out.append(digits, 4);
  }
}

void append_length(std::string& out, std::size_t n) {
  const auto n32 = static_cast<std::uint32_t>(n);
  out.append(reinterpret_cast<const char*>(&n32), sizeof n32);
}

}  // namespace

void TimedExposition::add(const std::vector<Family>& families, std::int64_t t_ms) {
  for (const Family& f : families) {
    auto [fit, new_family] = family_index_.try_emplace(f.name, families_.size());
    if (new_family) families_.push_back({Family{f.name, f.type, f.unit, f.help, {}}, {}, {}});
    FamilyData& fd = families_[fit->second];
    for (const Series& s : f.series) {
      // Looked up by its labels as they are (each with its length, so no two label sets read alike): the
      // escaped name{labels} is built once per series, not once per sample.
      scratch_.clear();
      for (const auto& [name, value] : s.labels) {
        append_length(scratch_, name.size());
        scratch_ += name;
        append_length(scratch_, value.size());
        scratch_ += value;
      }
      auto [sit, new_series] = fd.index.try_emplace(scratch_, fd.series.size());
      if (new_series) {
        std::string prefix;
        append_series_name(prefix, f.name, s);
        prefix += ' ';
        fd.series.push_back({std::move(prefix), {}});
        ++series_count_;
      }
      fd.series[sit->second].points.emplace_back(t_ms, s.value);
    }
  }
}

std::size_t TimedExposition::write(std::ostream& out) {
  std::size_t samples = 0;
  std::string text;
  for (FamilyData& fd : families_) {
    bool any = false;
    for (const SeriesData& s : fd.series) any = any || !s.points.empty();
    if (!any) continue;
    text.clear();
    append_family_header(text, fd.header, format_);
    out << text;
    for (SeriesData& s : fd.series) {
      text.clear();
      for (const auto& [t, v] : s.points) {
        text += s.prefix;
        append_value(text, v);
        text += ' ';
        append_timestamp(text, t, format_);
        text += '\n';
      }
      out << text;
      samples += s.points.size();
      s.points.clear();
    }
  }
  text.clear();
  append_end(text, format_);
  out << text;
  return samples;
}

}  // namespace gpuwatch
