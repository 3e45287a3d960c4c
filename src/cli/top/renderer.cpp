#include "cli/top/renderer.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>

#include "cli/gpu_readings.h"
#include "cli/top/keys.h"
#include "cli/top/line_builder.h"
#include "cli/top/plot.h"
#include "cli/top/process_rows.h"
#include "core/duration.h"

namespace gpuwatch::top {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

template <typename... Args>
std::string fmt(const char* format, Args... args) {
  std::array<char, 96> buf{};
  std::snprintf(buf.data(), buf.size(), format, args...);
  return buf.data();
}

std::string age(std::int64_t ms) {
  return format_duration(std::chrono::milliseconds(std::max<std::int64_t>(ms, 0) / 1000 * 1000));
}

std::string size_text(const std::optional<double>& bytes) {
  if (!bytes) return "-";
  return *bytes >= kGiB ? fmt("%.1fG", *bytes / kGiB) : fmt("%.0fM", *bytes / (1024.0 * 1024.0));
}

std::optional<double> ratio(const std::optional<double>& v, const std::optional<double>& of) {
  if (!v || !of || *of <= 0) return std::nullopt;
  return *v / *of;
}

Style verdict_style(HealthVerdict v) {
  switch (v) {
    case HealthVerdict::kHealthy:
      return Style::kGood;
    case HealthVerdict::kWarning:
      return Style::kWarning;
    case HealthVerdict::kCritical:
      return Style::kBad;
  }
  return Style::kNormal;
}

const char* verdict_mark(HealthVerdict v) {
  switch (v) {
    case HealthVerdict::kHealthy:
      return "OK";
    case HealthVerdict::kWarning:
      return "WARN";
    case HealthVerdict::kCritical:
      return "CRIT";
  }
  return "?";
}

// HH:MM:SS of a reading, in local time: that it moves shows the readings are new.
std::string clock_time(std::int64_t ms) {
  const std::time_t t = ms / 1000;
  std::tm local{};
  localtime_r(&t, &local);
  std::array<char, 16> buf{};
  std::strftime(buf.data(), buf.size(), "%H:%M:%S", &local);
  return buf.data();
}

// Used of total, or only the used size where the bar is too narrow for both.
std::string memory_bar(const GpuReadings& r, std::size_t width) {
  return bar(ratio(r.memory_used, r.memory_total), width,
             size_text(r.memory_used) + "/" + size_text(r.memory_total), size_text(r.memory_used));
}

struct Layout {
  std::size_t cols = 80;
  std::size_t bar = 20;  // each of the four bars
};

ScreenLine node_line(const TopFrame* frame, const RenderContext& ctx, std::size_t cols) {
  LineBuilder line(cols);
  line.add("gpuwatch top", Style::kTitle);
  if (frame == nullptr) return line.add("  waiting for the first reading...").take();
  const Snapshot& s = *frame->snapshot;
  // Most telling first: a narrow terminal cuts the driver's versions before the source and the time.
  line.add("  " + (s.node.hostname.empty() ? std::string("?") : s.node.hostname));
  const auto mig = std::count_if(s.devices.begin(), s.devices.end(),
                                 [](const DeviceSnapshot& d) { return d.identity.is_mig_instance; });
  line.add(fmt("  %td GPU(s)", static_cast<std::ptrdiff_t>(s.devices.size()) - mig));
  if (mig > 0) line.add(fmt(", %td MIG", mig));
  line.add("  at " + clock_time(s.timestamp_ms));
  line.add("  " + frame->origin, Style::kDim);
  line.add("  every " + format_duration(ctx.interval), Style::kDim);
  if (!s.node.driver_version.empty()) line.add("  driver " + s.node.driver_version, Style::kDim);
  if (!s.node.cuda_driver_version.empty()) line.add("  CUDA " + s.node.cuda_driver_version, Style::kDim);
  return line.take();
}

// The GPU's two lines: identity, utilization and memory; then temperature, power, marks.
void gpu_lines(const DeviceSnapshot& d, const Health& health, const Layout& layout, std::int64_t snapshot_ms,
               std::vector<ScreenLine>& out) {
  const GpuReadings r = readings_of(d);
  LineBuilder first(layout.cols);
  first.add(fit(std::to_string(d.identity.index), 4), Style::kHeader).add(" ");
  first.add(fit(d.identity.name, 20)).add(" ");
  first.add("UTIL ", Style::kDim)
      .add(bar(r.utilization, layout.bar, r.utilization ? fmt("%.0f%%", *r.utilization * 100) : ""),
           Style::kBar);
  first.add("  MEM ", Style::kDim).add(memory_bar(r, layout.bar), Style::kBar);
  out.push_back(first.take());

  LineBuilder second(layout.cols);
  if (d.state == DeviceState::kLost) {
    second.add("     LOST", Style::kBad).add("  fell off the bus: no readings", Style::kBad);
  } else {
    second.add(fit("", 4)).add(" ");
    if (d.state == DeviceState::kStale) {
      // The collector gave up on this GPU's read at the deadline: the values are its last read's.
      second.add(fit("STALE " + age(snapshot_ms - d.last_read_ms), 20), Style::kBad);
    } else {
      second.add(fit(r.sm_clock ? fmt("%.0f MHz", *r.sm_clock / 1e6) : "", 20), Style::kDim);
    }
    second.add(" TEMP ", Style::kDim)
        .add(bar(r.temperature ? std::optional<double>(*r.temperature / 100.0) : std::nullopt, layout.bar,
                 r.temperature ? fmt("%.0fC", *r.temperature) : ""),
             Style::kBar);
    second.add("  POW ", Style::kDim)
        .add(bar(ratio(r.power, r.power_limit), layout.bar,
                 r.power && r.power_limit ? fmt("%.0f/%.0fW", *r.power, *r.power_limit) : "",
                 r.power ? fmt("%.0fW", *r.power) : ""),
             Style::kBar);
  }
  second.add("  ").add(verdict_mark(health.verdict), verdict_style(health.verdict));
  if (!r.throttle.empty()) second.add(" THR " + r.throttle, Style::kWarning);
  if (!health.reasons.empty()) second.add(" " + health.reasons.front(), verdict_style(health.verdict));
  out.push_back(second.take());
}

// A MIG instance in one line, under its GPU.
ScreenLine mig_line(const Snapshot& snap, const DeviceSnapshot& d, const Health& health,
                    const Layout& layout) {
  const GpuReadings r = readings_of(d);
  LineBuilder line(layout.cols);
  line.add("  MIG " + fit(device_label(snap, d), 7), Style::kHeader);
  // Its profile ("3g.40gb"): the model is its GPU's, on the line above.
  const std::string& name = d.identity.name;
  const auto profile = name.rfind("MIG ");
  line.add(fit(profile == std::string::npos ? name : name.substr(profile + 4), 14)).add(" SM ", Style::kDim);
  line.add(bar(r.utilization, layout.bar, r.utilization ? fmt("%.0f%%", *r.utilization * 100) : ""),
           Style::kBar);
  line.add("  MEM ", Style::kDim).add(memory_bar(r, layout.bar), Style::kBar);
  line.add(fmt("  %zu proc", d.processes.size()), Style::kDim);
  line.add("  ").add(d.state == DeviceState::kOk ? verdict_mark(health.verdict) : device_state_name(d.state),
                     d.state == DeviceState::kOk ? verdict_style(health.verdict) : Style::kBad);
  return line.take();
}

std::vector<ScreenLine> gpu_block(const TopFrame& frame, const Layout& layout) {
  std::vector<ScreenLine> out;
  const auto& devices = frame.snapshot->devices;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].identity.is_mig_instance) continue;
    gpu_lines(devices[i], frame.health.at(i), layout, frame.snapshot->timestamp_ms, out);
    for (std::size_t j = 0; j < devices.size(); ++j) {
      if (devices[j].identity.is_mig_instance && devices[j].identity.parent_uuid == devices[i].identity.uuid)
        out.push_back(mig_line(*frame.snapshot, devices[j], frame.health.at(j), layout));
    }
  }
  return out;
}

// One line per GPU: its utilization and memory over the last points, side by side.
std::vector<ScreenLine> plot_block(const TopFrame& frame, const History& history, std::size_t cols) {
  std::vector<ScreenLine> out;
  const std::size_t width = cols > 24 ? (cols - 24) / 2 : 0;
  if (width < 8) return out;
  LineBuilder title(cols);
  title.add(fit("HISTORY", 10), Style::kHeader).add(fit("util", width + 6), Style::kHeader);
  title.add("memory", Style::kHeader);
  out.push_back(title.take());
  for (const auto& d : frame.snapshot->devices) {
    if (d.identity.is_mig_instance) continue;
    const GpuHistory& h = history.of(d.identity.uuid);
    LineBuilder line(cols);
    line.add(fit("GPU " + std::to_string(d.identity.index), 10), Style::kDim);
    line.add(sparkline(h.utilization, width), Style::kGood).add("      ");
    line.add(sparkline(h.memory, width), Style::kBar);
    out.push_back(line.take());
  }
  return out;
}

std::vector<ScreenLine> alert_block(const TopFrame& frame, std::int64_t now_ms, std::size_t cols,
                                    std::size_t max) {
  std::vector<ScreenLine> out;
  if (max < 2) return out;
  const auto firing = std::count_if(frame.alerts.begin(), frame.alerts.end(),
                                    [](const TopAlert& a) { return a.state == "firing"; });
  LineBuilder title(cols);
  title.add(fmt("ALERTS  %td firing, %td pending", firing,
                static_cast<std::ptrdiff_t>(frame.alerts.size()) - firing),
            Style::kHeader);
  out.push_back(title.take());
  for (const auto& a : frame.alerts) {
    if (out.size() == max) break;
    LineBuilder line(cols);
    const bool page = a.severity == "page";
    line.add(fit(a.state == "firing" ? "FIRING" : "pending", 8),
             a.state == "firing" ? (page ? Style::kBad : Style::kWarning) : Style::kDim);
    line.add(fit(a.severity, 7)).add(fit(a.name, 28), Style::kHeader);
    line.add(fit(a.gpu.empty() ? "node" : "GPU " + a.gpu, 9));
    line.add(fit(a.active_since_ms > 0 ? "for " + age(now_ms - a.active_since_ms) : "", 12), Style::kDim);
    line.add(a.summary);
    out.push_back(line.take());
  }
  return out;
}

std::vector<ScreenLine> process_block(const TopFrame& frame, const ViewState& view, std::size_t cols,
                                      std::size_t max) {
  std::vector<ScreenLine> out;
  if (max < 2) return out;
  const std::vector<ProcessRow> rows = process_rows(frame, view);
  static constexpr std::array<std::pair<ProcessSort, std::size_t>, 5> kColumns = {{
      {ProcessSort::kGpu, 7},
      {ProcessSort::kPid, 8},
      {ProcessSort::kUser, 10},
      {ProcessSort::kMemory, 9},
      {ProcessSort::kSm, 6},
  }};
  LineBuilder header(cols);
  for (const auto& [sort, width] : kColumns) {
    std::string name = sort_column(sort);
    if (sort == view.sort) name += view.descending ? "▼" : "▲";
    header.add(fit(name, width), sort == view.sort ? Style::kKey : Style::kHeader);
  }
  header.add(fit("TYPE", 9), Style::kHeader).add(fit("WORKLOAD", 22), Style::kHeader);
  header.add(
      std::string("COMMAND") + (view.sort == ProcessSort::kCommand ? (view.descending ? "▼" : "▲") : ""),
      view.sort == ProcessSort::kCommand ? Style::kKey : Style::kHeader);
  if (!view.filter.empty())
    header.add(fmt("   %zu matching \"", rows.size()) + view.filter + "\"", Style::kWarning);
  out.push_back(header.take());
  for (const auto& row : rows) {
    if (out.size() == max) break;
    LineBuilder line(cols);
    line.add(fit(row.gpu, 7)).add(fit(std::to_string(row.pid), 8)).add(fit(row.user, 10));
    line.add(fit(size_text(row.memory_bytes), 9), Style::kBar);
    line.add(fit(row.sm ? fmt("%.0f%%", *row.sm * 100) : "-", 6));
    line.add(fit(row.type, 9), Style::kDim)
        .add(fit(row.workload.empty() ? "-" : row.workload, 22), Style::kDim);
    line.add(row.command);
    out.push_back(line.take());
  }
  if (rows.empty()) {
    LineBuilder none(cols);
    none.add(view.filter.empty() ? "no GPU processes" : "no process matches the filter", Style::kDim);
    out.push_back(none.take());
  }
  return out;
}

ScreenLine help_line(const ViewState& view, std::size_t cols) {
  LineBuilder line(cols);
  if (view.editing_filter) {
    return line.add("filter: ", Style::kKey)
        .add(view.filter_draft + "_")
        .add("   Enter applies, Esc drops", Style::kDim)
        .take();
  }
  line.add("q", Style::kKey)
      .add(" quit  ")
      .add("s", Style::kKey)
      .add(std::string(" sort:") + sort_column(view.sort) + "  ");
  line.add("r", Style::kKey).add(" reverse  ").add("/", Style::kKey).add(" filter");
  if (!view.filter.empty()) line.add(":" + view.filter, Style::kWarning);
  line.add("  ").add("t", Style::kKey).add(" plots  ").add("h", Style::kKey).add(" help");
  return line.take();
}

std::vector<ScreenLine> help_screen(std::size_t cols) {
  std::vector<ScreenLine> out;
  out.push_back(LineBuilder(cols).add("KEYS", Style::kHeader).take());
  for (const auto& k : kKeyHelp)
    out.push_back(LineBuilder(cols).add("  " + fit(k.keys, 14), Style::kKey).add(k.what).take());
  out.push_back(LineBuilder(cols).add("").take());
  for (const char* text :
       {"Bars: utilization, memory used/total, temperature (of 100 C), power/limit.",
        "OK WARN CRIT: the health verdict, worst reason beside it (docs/health.md).",
        "STALE: the GPU missed the read deadline (a hung driver call); its values are old.",
        "LOST: fell off the bus.  THR: what holds the clocks down.",
        "ALERTS: from the agent (--url), or the detectors run here on each reading."}) {
    out.push_back(LineBuilder(cols).add(text, Style::kDim).take());
  }
  out.push_back(LineBuilder(cols).add("Any key closes this help.", Style::kDim).take());
  return out;
}

}  // namespace

Screen render(const TopFrame* frame, const History& history, const ViewState& view,
              const RenderContext& ctx) {
  Screen screen;
  const auto rows = static_cast<std::size_t>(std::max(ctx.size.rows, 1));
  const auto cols = static_cast<std::size_t>(std::max(ctx.size.cols, 1));
  // The second GPU line holds 37 columns of text beside its two bars and wants about 24 for the marks.
  Layout layout{cols, std::clamp<std::size_t>((cols > 61 ? cols - 61 : 0) / 2, 8, 40)};
  std::vector<ScreenLine> body;
  body.push_back(node_line(frame, ctx, cols));
  if (frame != nullptr && !frame->problem.empty())
    body.push_back(LineBuilder(cols).add(frame->problem, Style::kBad).take());
  if (frame != nullptr && view.help) {
    for (auto& l : help_screen(cols)) body.push_back(std::move(l));
  } else if (frame != nullptr) {
    if (!frame->snapshot->source_error.empty())
      body.push_back(LineBuilder(cols).add(frame->snapshot->source_error, Style::kBad).take());
    for (auto& l : gpu_block(*frame, layout)) body.push_back(std::move(l));
    // What is left below the GPUs: the help line last; the alerts and plots each get their lines while the
    // processes keep at least a header and three rows.
    const std::size_t used = body.size() + 1;
    std::size_t left = rows > used ? rows - used : 0;
    const std::size_t alert_lines =
        frame->alerts.empty() ? 0 : std::min(frame->alerts.size() + 1, std::size_t{6});
    const std::size_t alerts_fit = left > 4 ? std::min(alert_lines, left - 4) : 0;
    left -= alerts_fit;
    std::vector<ScreenLine> plots;
    if (view.plots) plots = plot_block(*frame, history, cols);
    if (plots.size() + 4 > left) plots.clear();
    left -= plots.size();
    for (auto& l : plots) body.push_back(std::move(l));
    for (auto& l : alert_block(*frame, ctx.now_ms, cols, alerts_fit)) body.push_back(std::move(l));
    for (auto& l : process_block(*frame, view, cols, left)) body.push_back(std::move(l));
  }
  if (body.size() + 1 > rows) body.resize(rows > 1 ? rows - 1 : 0);
  while (body.size() + 1 < rows) body.emplace_back();
  body.push_back(help_line(view, cols));
  screen.lines = std::move(body);
  return screen;
}

}  // namespace gpuwatch::top
