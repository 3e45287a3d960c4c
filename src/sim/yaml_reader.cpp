#include "sim/yaml_reader.h"

#include <charconv>
#include <vector>

#include "core/spelling.h"
#include "sim/units.h"

namespace gpuwatch::sim {

std::string YamlReader::where(const YAML::Node& at) const {
  const YAML::Mark mark = at.Mark();
  if (mark.is_null()) return file_;
  return file_ + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

void YamlReader::fail(const YAML::Node& at, const std::string& what) const {
  throw ScenarioError(where(at) + ": " + what);
}

void YamlReader::expect_map(const YAML::Node& node, std::string_view what,
                            std::initializer_list<std::string_view> keys) const {
  if (!node.IsMap()) fail(node, "expected " + std::string(what) + " as a map of keys");
  const std::vector<std::string_view> known(keys);
  for (const auto& entry : node) {
    const std::string key = entry.first.Scalar();
    bool ok = false;
    for (auto k : known) ok = ok || k == key;
    if (ok) continue;
    std::string message = "unknown key '" + key + "' in " + std::string(what);
    if (auto hint = closest_match(key, known); !hint.empty()) message += " (did you mean '" + hint + "'?)";
    fail(entry.first, message);
  }
}

void YamlReader::expect_list(const YAML::Node& node, std::string_view what) const {
  if (!node.IsSequence()) fail(node, "expected " + std::string(what) + " as a list");
}

std::string YamlReader::text(const YAML::Node& node, std::string_view what) const {
  if (!node.IsScalar()) fail(node, "expected " + std::string(what) + " as a single value");
  return node.Scalar();
}

double YamlReader::number(const YAML::Node& node, std::string_view what) const {
  const std::string s = text(node, what);
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size())
    fail(node, "expected " + std::string(what) + " as a number, got '" + s + "'");
  return v;
}

unsigned YamlReader::whole(const YAML::Node& node, std::string_view what) const {
  const std::string s = text(node, what);
  unsigned v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size())
    fail(node, "expected " + std::string(what) + " as a whole number >= 0, got '" + s + "'");
  return v;
}

bool YamlReader::flag(const YAML::Node& node) const {
  const std::string s = text(node, "true or false");
  if (s == "true" || s == "yes") return true;
  if (s == "false" || s == "no") return false;
  fail(node, "expected true or false, got '" + s + "'");
}

double YamlReader::seconds(const YAML::Node& node) const {
  const std::string s = text(node, "a duration");
  if (auto v = parse_seconds(s)) return *v;
  fail(node, "expected a duration like 90s, 10m, 1h or 1h30m, got '" + s + "'");
}

double YamlReader::seconds_or_forever(const YAML::Node& node) const {
  if (node.IsScalar() && node.Scalar() == "forever") return std::numeric_limits<double>::infinity();
  const std::string s = text(node, "a duration");
  if (auto v = parse_seconds(s)) return *v;
  fail(node, "expected a duration like 90s, 10m, 1h, or 'forever', got '" + s + "'");
}

double YamlReader::bytes(const YAML::Node& node) const {
  const std::string s = text(node, "a size");
  if (auto v = parse_bytes(s)) return *v;
  fail(node, "expected a size like 80GiB, 512MiB or 2GB, got '" + s + "'");
}

double YamlReader::watts(const YAML::Node& node) const {
  const std::string s = text(node, "a power");
  if (auto v = parse_watts(s)) return *v;
  fail(node, "expected a power like 700W, got '" + s + "'");
}

double YamlReader::rate(const YAML::Node& node, bool bytes) const {
  const std::string s = text(node, "a rate");
  if (auto v = parse_rate(s, bytes)) return *v;
  fail(node, bytes ? "expected a rate like 50MiB/s or 2GiB/m, got '" + s + "'"
                   : "expected a rate like 5/s, 10/m or 3/h, got '" + s + "'");
}

std::vector<std::string> YamlReader::text_list(const YAML::Node& node, std::string_view what) const {
  expect_list(node, what);
  std::vector<std::string> out;
  for (const auto& item : node) out.push_back(text(item, what));
  return out;
}

}  // namespace gpuwatch::sim
