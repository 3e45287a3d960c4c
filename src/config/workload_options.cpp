// The options of workload names (the kubelet's socket, the job-mapping directory) and of accounting: the
// rows of the options table that docs/cost.md describes.
#include "config/workload_options.h"

#include <array>
#include <charconv>
#include <cstdlib>
#include <string>

#include "config/option_kinds.h"

namespace gpuwatch {
namespace {

using namespace std::chrono_literals;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    const auto at = s.find(sep);
    out.push_back(trim(s.substr(0, at)));
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return out;
}

std::optional<double> number(std::string_view s) {
  const std::string text(trim(s));
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !(v >= 0) || v > 1e12) return std::nullopt;
  return v;
}

std::optional<std::string> apply_prices(AgentOptions& o, std::string_view v) {
  std::vector<GpuHourPrice> prices;
  for (auto entry : split(v, ',')) {
    const auto eq = entry.find('=');
    const auto price = eq == std::string_view::npos ? std::nullopt : number(entry.substr(eq + 1));
    if (!price || trim(entry.substr(0, eq)).empty())
      return "expected MODEL=PRICE pairs separated by commas (\"*\" for every other GPU), e.g. "
             "H200=3.80,A100=1.60,*=0.95";
    prices.push_back({std::string(trim(entry.substr(0, eq))), *price});
  }
  o.accounting.gpu_hour_prices = std::move(prices);
  return std::nullopt;
}

std::string show_prices(const AgentOptions& o) {
  std::string out;
  for (const auto& p : o.accounting.gpu_hour_prices) {
    if (!out.empty()) out += ",";
    std::array<char, 32> buf{};
    const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), p.price);
    out += p.model + "=" + std::string(buf.data(), r.ptr);
  }
  return out;
}

std::optional<std::string> apply_teams(AgentOptions& o, std::string_view v) {
  std::vector<TeamRule> rules;
  constexpr const char* kExpected =
      "expected TEAM=KIND:VALUE,... per team, teams separated by ';' (KIND: namespace, user, job, "
      "slurm_account or pod), "
      "e.g. research=namespace:research,user:carol;hpc=job:4242";
  for (auto team : split(v, ';')) {
    if (team.empty()) continue;
    const auto eq = team.find('=');
    if (eq == std::string_view::npos || trim(team.substr(0, eq)).empty()) return kExpected;
    const std::string name(trim(team.substr(0, eq)));
    for (auto member : split(team.substr(eq + 1), ',')) {
      const auto colon = member.find(':');
      if (colon == std::string_view::npos) return kExpected;
      const std::string kind(trim(member.substr(0, colon)));
      const std::string value(trim(member.substr(colon + 1)));
      if ((kind != "namespace" && kind != "user" && kind != "job" && kind != "slurm_account" &&
           kind != "pod") ||
          value.empty())
        return kExpected;
      rules.push_back({name, kind, value});
    }
  }
  o.accounting.teams = std::move(rules);
  return std::nullopt;
}

std::string show_teams(const AgentOptions& o) {
  std::string out, team;
  for (const auto& r : o.accounting.teams) {
    if (r.team != team) {
      if (!out.empty()) out += ";";
      out += r.team + "=";
      team = r.team;
    } else {
      out += ",";
    }
    out += r.kind + ":" + r.value;
  }
  return out;
}

std::string show_number(double v) {
  std::array<char, 32> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return std::string(buf.data(), r.ptr);
}

// A path the agent reads (and top, which names the workloads on the screen the same way), taken as given
// (restart only).
OptionSpec text_option(std::string_view key, std::string_view value_name, std::string_view help,
                       std::string AgentOptions::*field) {
  return {key,
          value_name,
          help,
          false,
          [field](AgentOptions& o, std::string_view v) -> std::optional<std::string> {
            o.*field = std::string(v);
            return std::nullopt;
          },
          [field](const AgentOptions& o) { return o.*field; },
          kAgentCommand | kTopCommand};
}

}  // namespace

std::vector<OptionSpec> workload_options() {
  std::vector<OptionSpec> out;
  out.push_back(text_option("pod_resources_socket", "PATH",
                            "The kubelet's PodResources socket, for the pod and container of each GPU (its "
                            "directory is watched, so a kubelet restart is survived); \"\" = off. In "
                            "Kubernetes: /var/lib/kubelet/pod-resources/kubelet.sock",
                            &AgentOptions::pod_resources_socket));
  out.push_back(text_option("hpc_job_mapping_dir", "DIR",
                            "dcgm-exporter's HPC job-mapping directory: one file per GPU index (or "
                            "index.instance) holding the ids of the jobs on it; \"\" = off",
                            &AgentOptions::hpc_job_mapping_dir));
  out.push_back({"active_utilization", "RATIO",
                 "A GPU at or above this utilization (0..1) is active; below it idle, held or not", true,
                 [](AgentOptions& o, std::string_view v) -> std::optional<std::string> {
                   const auto n = number(v);
                   if (!n || *n > 1) return "expected a ratio from 0 to 1, e.g. 0.05";
                   o.accounting.active_utilization = *n;
                   return std::nullopt;
                 },
                 [](const AgentOptions& o) { return show_number(o.accounting.active_utilization); }});
  out.push_back({"gpu_hour_price", "MODEL=PRICE,...",
                 "Price of a GPU-hour by model; \"*\" for every other GPU (the node's price)", true,
                 apply_prices, show_prices});
  out.push_back({"energy_price_per_kwh", "PRICE",
                 "Price of a kWh of the energy the GPUs measured, added to their cost; 0 = not priced", true,
                 [](AgentOptions& o, std::string_view v) -> std::optional<std::string> {
                   const auto n = number(v);
                   if (!n) return "expected a price of 0 or more, e.g. 0.15";
                   o.accounting.energy_price_per_kwh = *n;
                   return std::nullopt;
                 },
                 [](const AgentOptions& o) { return show_number(o.accounting.energy_price_per_kwh); }});
  out.push_back({"teams", "TEAM=KIND:VALUE,...;...",
                 "Which team a workload belongs to, by namespace, user, job, slurm_account (the job's Slurm "
                 "account) or "
                 "pod; the first rule that matches wins",
                 true, apply_teams, show_teams});
  out.push_back(count_option({"accounting_max_workloads",
                              "Workloads with their own accounting counters; more are summed as \"other\""},
                             &AgentOptions::accounting_max_workloads,
                             {.min = 1, .max = 1'000'000, .what = "workloads", .example = "500"}));
  out.push_back(duration_option(
      {"accounting_workload_expiry", "A workload seen nowhere for this long loses its accounting counters"},
      &AgentOptions::accounting_workload_expiry, {.min = 1min, .example = "24h"}));
  return out;
}

}  // namespace gpuwatch
