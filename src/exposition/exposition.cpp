#include "exposition/exposition.h"

#include <array>
#include <charconv>
#include <cmath>

#include "core/exposition_escaping.h"

namespace gpuwatch {
namespace {

std::string_view strip_suffix(std::string_view name, std::string_view suffix) {
  if (name.ends_with(suffix)) name.remove_suffix(suffix.size());
  return name;
}

void append_series(std::string& out, std::string_view sample_name, const Series& s) {
  append_series_name(out, sample_name, s);
  out += ' ';
  append_value(out, s.value);
  out += '\n';
}

}  // namespace

std::string_view type_word(FamilyType type, ExpositionFormat format) {
  switch (type) {
    case FamilyType::kCounter:
      return "counter";
    case FamilyType::kInfo:
      return format == ExpositionFormat::kOpenMetrics ? "info" : "gauge";
    case FamilyType::kGauge:
      break;
  }
  return "gauge";
}

std::string_view content_type(ExpositionFormat format) {
  return format == ExpositionFormat::kOpenMetrics
             ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
             : "text/plain; version=0.0.4; charset=utf-8";
}

void append_series_name(std::string& out, std::string_view sample_name, const Series& series) {
  out += sample_name;
  if (series.labels.empty()) return;
  out += '{';
  bool first = true;
  for (const auto& [name, value] : series.labels) {
    if (!first) out += ',';
    first = false;
    out += name;
    out += "=\"";
    append_escaped_label_value(out, value);
    out += '"';
  }
  out += '}';
}

void append_value(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
  } else {
    std::array<char, 32> buf{};
    auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), value);
    out.append(buf.data(), end);
  }
}

void append_family_header(std::string& out, const Family& family, ExpositionFormat format) {
  if (format == ExpositionFormat::kText004) {
    out += "# HELP ";
    out += family.name;
    out += ' ';
    append_escaped_help_text(out, family.help);
    out += "\n# TYPE ";
    out += family.name;
    out += ' ';
    out += type_word(family.type, format);
    out += '\n';
  } else {
    // OpenMetrics names the family without the sample suffix, and wants TYPE, UNIT, HELP in that order.
    std::string_view base = family.name;
    if (family.type == FamilyType::kCounter) base = strip_suffix(base, "_total");
    if (family.type == FamilyType::kInfo) base = strip_suffix(base, "_info");
    out += "# TYPE ";
    out += base;
    out += ' ';
    out += type_word(family.type, format);
    out += '\n';
    if (!family.unit.empty()) {
      out += "# UNIT ";
      out += base;
      out += ' ';
      out += family.unit;
      out += '\n';
    }
    out += "# HELP ";
    out += base;
    out += ' ';
    append_escaped_label_value(out, family.help);  // OpenMetrics escapes HELP as a label value
    out += '\n';
  }
}

void append_family(std::string& out, const Family& family, ExpositionFormat format) {
  if (family.series.empty()) return;
  append_family_header(out, family, format);
  for (const auto& s : family.series) append_series(out, family.name, s);
}

void append_end(std::string& out, ExpositionFormat format) {
  if (format == ExpositionFormat::kOpenMetrics) out += "# EOF\n";
}

}  // namespace gpuwatch
