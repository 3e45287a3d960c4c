#include "cli/cost_report_formats.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/rfc3339.h"
#include "http/html_escape.h"

namespace gpuwatch {
namespace {

using accounting::CostReport;
using accounting::GpuState;
using accounting::kGpuStates;
using accounting::state_name;

constexpr auto kActive = static_cast<std::size_t>(GpuState::kActive);
constexpr auto kIdleHeld = static_cast<std::size_t>(GpuState::kIdleHeld);
constexpr auto kUnallocated = static_cast<std::size_t>(GpuState::kUnallocated);
constexpr auto kUnavailable = static_cast<std::size_t>(GpuState::kUnavailable);

std::string hours(double h) {
  return fmt::format("{:.2f}", h);
}
std::string money(double c) {
  return fmt::format("{:.2f}", c);
}
std::string percent(double ratio) {
  return fmt::format("{:.1f}%", ratio * 100);
}
std::string team_name(const std::string& team) {
  return team.empty() ? "(no team)" : team;
}
std::string gpu_name(const accounting::GpuFigures& g) {
  return g.gpu_instance_id.empty() ? g.gpu : g.gpu + "/" + g.gpu_instance_id;
}

// A line of block characters, one per bucket, as high as its mean utilization.
std::string sparkline(const CostReport& r) {
  static const char* kBlocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  std::string out;
  for (const auto& u : r.utilization) out += kBlocks[std::clamp(static_cast<int>(u.mean * 8), 0, 7)];
  return out;
}

// Mean utilization per day (the Markdown's table; the HTML plots every bucket).
std::map<std::string, std::pair<double, std::size_t>> daily(const CostReport& r) {
  std::map<std::string, std::pair<double, std::size_t>> days;
  for (const auto& u : r.utilization) {
    auto& d = days[format_rfc3339_ms(u.t_ms).substr(0, 10)];
    d.first += u.mean;
    ++d.second;
  }
  return days;
}

}  // namespace

std::string cost_report_markdown(const CostReport& r) {
  std::string out = fmt::format("# GPU usage and cost, {} to {}\n\n", format_rfc3339_ms(r.start_ms),
                                format_rfc3339_ms(r.end_ms));
  out += "## GPU-hours by state\n\n| state | GPU-hours | share | cost |\n|---|---:|---:|---:|\n";
  const double total = r.node.total_hours();
  for (std::size_t i = 0; i < kGpuStates.size(); ++i) {
    out += fmt::format("| {} | {} | {} | {} |\n", state_name(kGpuStates[i]), hours(r.node.hours[i]),
                       percent(total > 0 ? r.node.hours[i] / total : 0), money(r.node.cost[i]));
  }
  out += fmt::format("| total | {} | 100.0% | {} |\n\n", hours(total), money(r.node.total_cost()));

  out +=
      "## OpenCost's view of the same GPUs\n\nAllocated GPU-hours times price: a GPU held at 0% counts as "
      "used, only unallocated time is idle.\n\n| | GPU-hours | cost |\n|---|---:|---:|\n";
  out += fmt::format("| allocated | {} | {} |\n| idle | {} | {} |\n", hours(r.opencost.allocated_hours),
                     money(r.opencost.allocated_cost), hours(r.opencost.idle_hours),
                     money(r.opencost.idle_cost));
  out += fmt::format(
      "\nOf OpenCost's allocated cost, {} ({} GPU-hours) was idle-held: allocated and not computing.\n\n",
      money(r.node.cost[kIdleHeld]), hours(r.node.hours[kIdleHeld]));

  out +=
      "## Cost by team, most idle first\n\n| team | active GPU-hours | idle-held GPU-hours | active cost | "
      "idle-held cost | cost |\n|---|---:|---:|---:|---:|---:|\n";
  for (const auto& t : r.teams) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", team_name(t.name), hours(t.active_hours),
                       hours(t.idle_held_hours), money(t.active_cost), money(t.idle_held_cost),
                       money(t.active_cost + t.idle_held_cost));
  }
  out += fmt::format("| unallocated | | {} | | {} | {} |\n\n", hours(r.node.hours[kUnallocated]),
                     money(r.node.cost[kUnallocated]), money(r.node.cost[kUnallocated]));

  if (!r.namespaces.empty()) {
    out +=
        "## Cost by namespace, most idle first\n\n| namespace | active GPU-hours | idle-held GPU-hours | "
        "active "
        "cost | idle-held cost | cost |\n|---|---:|---:|---:|---:|---:|\n";
    for (const auto& n : r.namespaces) {
      out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", n.name, hours(n.active_hours),
                         hours(n.idle_held_hours), money(n.active_cost), money(n.idle_held_cost),
                         money(n.active_cost + n.idle_held_cost));
    }
    out += "\n";
  }

  out +=
      "## Cost by workload, most idle first\n\n| workload | team | active GPU-hours | idle-held GPU-hours | "
      "idle-held cost | cost |\n|---|---|---:|---:|---:|---:|\n";
  for (const auto& w : r.workloads) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", w.name(), team_name(w.team),
                       hours(w.active_hours), hours(w.idle_held_hours), money(w.idle_held_cost),
                       money(w.active_cost + w.idle_held_cost));
  }

  out +=
      "\n## GPUs\n\n| GPU | model | active | idle-held | unallocated | unavailable | mean utilization | cost "
      "|\n|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& g : r.gpus) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", gpu_name(g), g.model,
                       hours(g.states.hours[kActive]), hours(g.states.hours[kIdleHeld]),
                       hours(g.states.hours[kUnallocated]), hours(g.states.hours[kUnavailable]),
                       g.mean_utilization ? percent(*g.mean_utilization) : "-", money(g.states.total_cost()));
  }
  out += fmt::format("\n## GPUs under {:.0f}% sustained utilization\n\n", r.low_utilization_below * 100);
  if (r.low_utilization_gpus.empty()) out += "None.\n";
  for (const auto& g : r.low_utilization_gpus) out += "- GPU " + g + "\n";

  out += "\n## Utilization over time\n\n";
  if (r.utilization.empty()) {
    out += "No utilization samples in the window.\n";
  } else {
    out += "`" + sparkline(r) + "`\n\n| day | mean utilization |\n|---|---:|\n";
    for (const auto& [day, d] : daily(r))
      out += fmt::format("| {} | {} |\n", day, percent(d.first / static_cast<double>(d.second)));
  }
  return out;
}

std::string cost_report_csv(const CostReport& r) {
  std::string out = "section,name,team,state,gpu_hours,cost\n";
  auto quoted = [](const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  for (std::size_t i = 0; i < kGpuStates.size(); ++i)
    out += fmt::format("node,,,{},{},{}\n", state_name(kGpuStates[i]), r.node.hours[i], r.node.cost[i]);
  out += fmt::format("opencost,allocated,,,{},{}\n", r.opencost.allocated_hours, r.opencost.allocated_cost);
  out += fmt::format("opencost,idle,,,{},{}\n", r.opencost.idle_hours, r.opencost.idle_cost);
  for (const auto& t : r.teams) {
    out += fmt::format("team,{},{},active,{},{}\n", quoted(team_name(t.name)), quoted(t.name), t.active_hours,
                       t.active_cost);
    out += fmt::format("team,{},{},idle_held,{},{}\n", quoted(team_name(t.name)), quoted(t.name),
                       t.idle_held_hours, t.idle_held_cost);
  }
  for (const auto& n : r.namespaces) {
    out += fmt::format("namespace,{},,active,{},{}\n", quoted(n.name), n.active_hours, n.active_cost);
    out +=
        fmt::format("namespace,{},,idle_held,{},{}\n", quoted(n.name), n.idle_held_hours, n.idle_held_cost);
  }
  for (const auto& w : r.workloads) {
    out += fmt::format("workload,{},{},active,{},{}\n", quoted(w.name()), quoted(w.team), w.active_hours,
                       w.active_cost);
    out += fmt::format("workload,{},{},idle_held,{},{}\n", quoted(w.name()), quoted(w.team),
                       w.idle_held_hours, w.idle_held_cost);
  }
  for (const auto& g : r.gpus) {
    for (std::size_t i = 0; i < kGpuStates.size(); ++i)
      out += fmt::format("gpu,{},,{},{},{}\n", quoted(gpu_name(g)), state_name(kGpuStates[i]),
                         g.states.hours[i], g.states.cost[i]);
  }
  return out;
}

std::string cost_report_html(const CostReport& r) {
  auto row = [](std::initializer_list<std::string> cells, const char* tag = "td") {
    std::string out = "<tr>";
    for (const auto& c : cells) out += fmt::format("<{0}>{1}</{0}>", tag, html_escaped(c));
    return out + "</tr>\n";
  };
  std::string out =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>GPU usage and cost</title><style>"
      "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1.5em}"
      "td,th{border:1px solid #ccc;padding:.3em "
      ".6em;text-align:right}td:first-child,th:first-child{text-align:left}"
      "</style></head><body>\n";
  out += fmt::format("<h1>GPU usage and cost, {} to {}</h1>\n", html_escaped(format_rfc3339_ms(r.start_ms)),
                     html_escaped(format_rfc3339_ms(r.end_ms)));

  // Utilization over time: a polyline over the window, 0..100%.
  constexpr double kWidth = 800, kHeight = 160;
  out += "<h2>Utilization over time</h2>\n";
  out += fmt::format(
      "<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"mean GPU utilization\">"
      "<rect width=\"100%\" height=\"100%\" fill=\"#f8f8f8\"/><polyline fill=\"none\" "
      "stroke=\"#2a6\" stroke-width=\"1.5\" points=\"",
      kWidth, kHeight);
  const double span = static_cast<double>(std::max<std::int64_t>(1, r.end_ms - r.start_ms));
  for (const auto& u : r.utilization) {
    out += fmt::format("{:.1f},{:.1f} ", static_cast<double>(u.t_ms - r.start_ms) / span * kWidth,
                       kHeight - std::clamp(u.mean, 0.0, 1.0) * kHeight);
  }
  out += "\"/></svg>\n";

  // GPU-hours by state: one stacked bar.
  static const char* kColours[] = {"#2a6", "#e93", "#bbb", "#c33"};
  out +=
      "<h2>GPU-hours by state</h2>\n<svg width=\"800\" height=\"30\" role=\"img\" aria-label=\"GPU-hours by "
      "state\">";
  const double total = std::max(r.node.total_hours(), 1e-9);
  double x = 0;
  for (std::size_t i = 0; i < kGpuStates.size(); ++i) {
    const double w = r.node.hours[i] / total * kWidth;
    out += fmt::format(
        "<rect x=\"{:.1f}\" width=\"{:.1f}\" height=\"30\" fill=\"{}\"><title>{}: {} h</title></rect>", x, w,
        kColours[i], state_name(kGpuStates[i]), hours(r.node.hours[i]));
    x += w;
  }
  out += "</svg>\n<table>\n" + row({"state", "GPU-hours", "cost"}, "th");
  for (std::size_t i = 0; i < kGpuStates.size(); ++i)
    out += row({std::string(state_name(kGpuStates[i])), hours(r.node.hours[i]), money(r.node.cost[i])});
  out += row({"total", hours(r.node.total_hours()), money(r.node.total_cost())}) + "</table>\n";

  out += "<h2>OpenCost's view</h2>\n<table>\n" + row({"", "GPU-hours", "cost"}, "th");
  out += row({"allocated", hours(r.opencost.allocated_hours), money(r.opencost.allocated_cost)});
  out += row({"idle", hours(r.opencost.idle_hours), money(r.opencost.idle_cost)}) + "</table>\n";

  out += "<h2>Cost by team, most idle first</h2>\n<table>\n" +
         row({"team", "active GPU-hours", "idle-held GPU-hours", "active cost", "idle-held cost"}, "th");
  for (const auto& t : r.teams)
    out += row({team_name(t.name), hours(t.active_hours), hours(t.idle_held_hours), money(t.active_cost),
                money(t.idle_held_cost)});
  out += "</table>\n<h2>Cost by namespace, most idle first</h2>\n<table>\n" +
         row({"namespace", "active GPU-hours", "idle-held GPU-hours", "active cost", "idle-held cost"}, "th");
  for (const auto& n : r.namespaces)
    out += row({n.name, hours(n.active_hours), hours(n.idle_held_hours), money(n.active_cost),
                money(n.idle_held_cost)});
  out += "</table>\n<h2>Cost by workload, most idle first</h2>\n<table>\n" +
         row({"workload", "team", "active GPU-hours", "idle-held GPU-hours", "idle-held cost", "cost"}, "th");
  for (const auto& w : r.workloads)
    out += row({w.name(), team_name(w.team), hours(w.active_hours), hours(w.idle_held_hours),
                money(w.idle_held_cost), money(w.active_cost + w.idle_held_cost)});
  out += "</table>\n<h2>GPUs</h2>\n<table>\n" + row({"GPU", "model", "active", "idle-held", "unallocated",
                                                     "unavailable", "mean utilization", "cost"},
                                                    "th");
  for (const auto& g : r.gpus)
    out += row({gpu_name(g), g.model, hours(g.states.hours[kActive]), hours(g.states.hours[kIdleHeld]),
                hours(g.states.hours[kUnallocated]), hours(g.states.hours[kUnavailable]),
                g.mean_utilization ? percent(*g.mean_utilization) : "-", money(g.states.total_cost())});
  out += "</table>\n";
  out += fmt::format("<h2>GPUs under {:.0f}% sustained utilization</h2>\n<p>", r.low_utilization_below * 100);
  std::string list;
  for (const auto& g : r.low_utilization_gpus) list += (list.empty() ? "GPU " : ", GPU ") + g;
  out += html_escaped(list.empty() ? "None." : list) + "</p>\n</body></html>\n";
  return out;
}

}  // namespace gpuwatch
