// Reading a scenario's YAML with errors that say where and what: every failure names file:line:column
// (1-based) and what was expected; unknown keys get a did-you-mean hint.
#pragma once

#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::sim {

class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class YamlReader {
 public:
  explicit YamlReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& what) const;
  std::string where(const YAML::Node& at) const;

  // A map with only these keys (an unknown key is an error naming the closest known one).
  void expect_map(const YAML::Node& node, std::string_view what,
                  std::initializer_list<std::string_view> keys) const;
  void expect_list(const YAML::Node& node, std::string_view what) const;

  std::string text(const YAML::Node& node, std::string_view what) const;
  double number(const YAML::Node& node, std::string_view what) const;
  unsigned whole(const YAML::Node& node, std::string_view what) const;
  bool flag(const YAML::Node& node) const;
  double seconds(const YAML::Node& node) const;             // "90s", "10m", "1h"
  double seconds_or_forever(const YAML::Node& node) const;  // also "forever"
  double bytes(const YAML::Node& node) const;               // "80GiB"
  double watts(const YAML::Node& node) const;               // "700W"
  double rate(const YAML::Node& node, bool bytes) const;    // "50MiB/s", "10/m"
  std::vector<std::string> text_list(const YAML::Node& node, std::string_view what) const;

 private:
  std::string file_;
};

}  // namespace gpuwatch::sim
