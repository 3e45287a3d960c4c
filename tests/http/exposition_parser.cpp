#include "exposition_parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace gpuwatch::testing {
namespace {

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':';
}
bool is_name_char(char c) {
  return is_name_start(c) || std::isdigit(static_cast<unsigned char>(c));
}

bool valid_metric_name(std::string_view n) {
  if (n.empty() || !is_name_start(n[0])) return false;
  for (char c : n) {
    if (!is_name_char(c)) return false;
  }
  return true;
}

bool valid_label_name(std::string_view n) {
  return valid_metric_name(n) && n.find(':') == std::string_view::npos;
}

bool parse_number(std::string_view t, double& out) {
  if (t == "+Inf" || t == "Inf") {
    out = std::numeric_limits<double>::infinity();
    return true;
  }
  if (t == "-Inf") {
    out = -std::numeric_limits<double>::infinity();
    return true;
  }
  if (t == "NaN") {
    out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (t.empty() || t.find_first_not_of("0123456789.eE+-") != std::string_view::npos) return false;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  return ec == std::errc() && end == t.data() + t.size();
}

struct Parser {
  ExpositionFormat format;
  ParseResult result;
  int line_no = 0;
  std::set<std::string> declared;
  std::set<std::string> series_seen;
  bool samples_started = false;  // for the current family (metadata must come first in OpenMetrics)

  bool om() const { return format == ExpositionFormat::kOpenMetrics; }
  void error(const std::string& what) {
    result.errors.push_back("line " + std::to_string(line_no) + ": " + what);
  }

  ParsedFamily* current() { return result.families.empty() ? nullptr : &result.families.back(); }

  ParsedFamily& family_for_metadata(const std::string& name, const std::string& keyword) {
    ParsedFamily* f = current();
    if (f && f->name == name) {
      if (samples_started) error(keyword + " for " + name + " after its samples");
      return *f;
    }
    if (!declared.insert(name).second)
      error("family " + name + " declared twice (families must be contiguous)");
    result.families.push_back(ParsedFamily{name, "", "", "", {}});
    samples_started = false;
    return result.families.back();
  }

  std::string unescape(std::string_view v, bool quotes_allowed) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v[i] != '\\') {
        out += v[i];
        continue;
      }
      if (++i == v.size()) {
        error("dangling backslash");
        break;
      }
      if (v[i] == 'n') {
        out += '\n';
      } else if (v[i] == '\\') {
        out += '\\';
      } else if (v[i] == '"' && quotes_allowed) {
        out += '"';
      } else {
        error(std::string("invalid escape \\") + v[i]);
      }
    }
    return out;
  }

  void metadata(std::string_view line) {
    // "# KEYWORD name rest"
    const std::size_t k_end = line.find(' ', 2);
    const std::string keyword(line.substr(2, k_end == std::string_view::npos ? line.npos : k_end - 2));
    if (keyword != "HELP" && keyword != "TYPE" && keyword != "UNIT") {
      if (om())
        error("unknown comment \"" + std::string(line) +
              "\" (OpenMetrics allows only TYPE, UNIT, HELP, EOF)");
      return;
    }
    if (k_end == std::string_view::npos) return error(keyword + " without a metric name");
    const std::string_view rest = line.substr(k_end + 1);
    const std::size_t n_end = rest.find(' ');
    const std::string name(rest.substr(0, n_end));
    const std::string_view value = n_end == std::string_view::npos ? "" : rest.substr(n_end + 1);
    if (!valid_metric_name(name)) error("invalid metric name \"" + name + "\"");
    if (n_end == std::string_view::npos && keyword != "HELP")
      error(keyword + " " + name + " without a value");
    ParsedFamily& f = family_for_metadata(name, keyword);
    if (keyword == "TYPE") {
      if (!f.type.empty()) error("second TYPE for " + name);
      if (om() && (!f.unit.empty() || !f.help.empty()))
        error("TYPE for " + name + " must come before UNIT and HELP");
      static const std::set<std::string> kOmTypes{"counter",   "gauge",          "info",    "stateset",
                                                  "histogram", "gaugehistogram", "summary", "unknown"};
      static const std::set<std::string> kTextTypes{"counter", "gauge", "histogram", "summary", "untyped"};
      if (!(om() ? kOmTypes : kTextTypes).contains(std::string(value)))
        error("unknown type " + std::string(value));
      f.type = value;
    } else if (keyword == "UNIT") {
      if (!om()) error("UNIT exists only in OpenMetrics");
      if (!f.unit.empty()) error("second UNIT for " + name);
      if (!f.help.empty()) error("UNIT for " + name + " must come before HELP");
      if (!name.ends_with("_" + std::string(value)))
        error("family " + name + " does not end in its unit " + std::string(value));
      f.unit = value;
    } else {
      if (!f.help.empty()) error("second HELP for " + name);
      f.help = unescape(value, om());
    }
  }

  std::string expected_family(const std::string& sample_name, const ParsedFamily& f) {
    if (f.type == "counter") {
      if (om()) {
        if (sample_name == f.name + "_total" || sample_name == f.name + "_created") return f.name;
        return "";
      }
      return sample_name == f.name ? f.name : "";
    }
    if (f.type == "info" && om()) return sample_name == f.name + "_info" ? f.name : "";
    return sample_name == f.name ? f.name : "";
  }

  void sample(std::string_view line) {
    std::size_t pos = 0;
    while (pos < line.size() && is_name_char(line[pos])) ++pos;
    ParsedSample s;
    s.name = line.substr(0, pos);
    if (!valid_metric_name(s.name)) return error("invalid sample name in \"" + std::string(line) + "\"");
    if (pos < line.size() && line[pos] == '{') {
      ++pos;
      std::set<std::string> names;
      while (pos < line.size() && line[pos] != '}') {
        const std::size_t eq = line.find('=', pos);
        if (eq == std::string_view::npos) return error("label without '='");
        const std::string lname(line.substr(pos, eq - pos));
        if (!valid_label_name(lname)) error("invalid label name \"" + lname + "\"");
        if (!names.insert(lname).second) error("label " + lname + " twice");
        if (eq + 1 >= line.size() || line[eq + 1] != '"') return error("label value not quoted");
        std::size_t end = eq + 2;
        while (end < line.size() && line[end] != '"') end += line[end] == '\\' ? 2 : 1;
        if (end >= line.size()) return error("unterminated label value");
        s.labels.emplace_back(lname, unescape(line.substr(eq + 2, end - eq - 2), true));
        pos = end + 1;
        if (pos < line.size() && line[pos] == ',') ++pos;
      }
      if (pos >= line.size()) return error("unterminated label set");
      ++pos;
    }
    if (pos >= line.size() || line[pos] != ' ')
      return error("no space before the value in \"" + std::string(line) + "\"");
    std::string_view value = line.substr(pos + 1);
    if (value.find(' ') != std::string_view::npos)
      return error("timestamps are not expected: \"" + std::string(line) + "\"");
    if (!parse_number(value, s.value)) error("invalid value \"" + std::string(value) + "\"");

    ParsedFamily* f = current();
    if (!f || expected_family(s.name, *f).empty()) {
      if (om() || (f && !f->type.empty())) {
        return error("sample " + s.name + " is not part of the family declared just before it");
      }
      result.families.push_back(ParsedFamily{s.name, "untyped", "", "", {}});
      f = current();
    }
    if (f->type.empty()) error("family " + f->name + " has samples but no TYPE");
    if (om() && f->type == "counter" && (std::isnan(s.value) || s.value < 0))
      error("counter " + s.name + " negative or NaN");
    if (om() && f->type == "info" && s.value != 1) error("info " + s.name + " must have the value 1");
    std::string key = s.name;
    auto sorted = s.labels;
    std::sort(sorted.begin(), sorted.end());
    for (const auto& [k, v] : sorted) key += "\x1f" + k + "=" + v;
    if (!series_seen.insert(key).second) error("duplicate series " + key);
    samples_started = true;
    f->samples.push_back(std::move(s));
  }

  void run(std::string_view text) {
    if (!text.empty() && text.back() != '\n') {
      line_no = 0;
      error("the text does not end with a line feed");
    }
    bool eof = false;
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      const std::string_view line = text.substr(start, end - start);
      start = end + 1;
      ++line_no;
      if (eof) {
        error("text after # EOF");
        break;
      }
      if (line == "# EOF" && om()) {
        eof = true;
      } else if (line.empty()) {
        if (om()) error("empty line");
      } else if (line.starts_with("# ")) {
        metadata(line);
      } else if (line.starts_with('#')) {
        if (om()) error("comment without a space");
      } else {
        sample(line);
      }
    }
    if (om() && !eof) error("OpenMetrics text must end with # EOF");
  }
};

}  // namespace

ParseResult parse_exposition(std::string_view text, ExpositionFormat format) {
  Parser p{format, {}, 0, {}, {}, false};
  p.run(text);
  return std::move(p.result);
}

const ParsedSample* find_sample(const ParseResult& r, std::string_view sample_name,
                                const std::vector<std::pair<std::string, std::string>>& match) {
  for (const auto& f : r.families) {
    for (const auto& s : f.samples) {
      if (s.name != sample_name) continue;
      bool all = true;
      for (const auto& m : match) {
        bool found = false;
        for (const auto& l : s.labels) found = found || l == m;
        all = all && found;
      }
      if (all) return &s;
    }
  }
  return nullptr;
}

}  // namespace gpuwatch::testing
