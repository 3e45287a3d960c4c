// The pieces of `gpuwatch top` without a terminal: the agent's JSON read back into the frame `top` draws,
// the renderer's screen at several sizes, the process table's order and filter, and the keys.
#include <gtest/gtest.h>

#include <curses.h>

#include <cmath>
#include <sstream>

#include "cli/top/agent_frame.h"
#include "cli/top/agent_history.h"
#include "cli/top/history.h"
#include "cli/top/keys.h"
#include "cli/top/plot.h"
#include "cli/top/process_rows.h"
#include "cli/top/renderer.h"
#include "http/json_api.h"
#include "rules/health.h"
#include "snapshot_fixture.h"

namespace gpuwatch::top {
namespace {

// The fixture node as the agent holds it: GPU 0's processes in a Slurm job and a pod
// (collector/workload_names.h puts those on the processes).
std::shared_ptr<Snapshot> node() {
  auto snap = std::make_shared<Snapshot>(testing::h200_node());
  auto& processes = snap->devices.at(0).processes;
  processes.at(0).slurm_job = "4242";
  processes.at(1).container_id = "containerd://abc123";
  processes.at(1).pod_uid = "1b2c3d4e-0000-1111-2222-333344445555";
  processes.at(1).namespace_name = "research";
  processes.at(1).pod = "train-0";
  return snap;
}

// What the agent serves for the node, read back.
TopFrame agent_frame(const Snapshot& snap) {
  nlohmann::json alerts = {{"status", "success"},
                           {"data",
                            {{"alerts",
                              {{{"state", "pending"},
                                {"labels", {{"alertname", "GpuStale"}, {"severity", "page"}, {"gpu", "2"}}},
                                {"annotations", {{"summary", "driver calls on GPU 2 are not returning"}}},
                                {"activeAt", "2025-11-29T06:53:10Z"}},
                               {{"state", "firing"},
                                {"labels", {{"alertname", "Watchdog"}, {"severity", "none"}}},
                                {"annotations", nlohmann::json::object()}},
                               {{"state", "firing"},
                                {"labels", {{"alertname", "GpuLost"}, {"severity", "page"}, {"gpu", "3"}}},
                                {"annotations", {{"summary", "GPU 3 fell off the bus"}}},
                                {"activeAt", "2025-11-29T06:50:00Z"}}}}}}};
  return frame_from_agent(snapshot_to_json(snap), alerts);
}

TEST(AgentFrame, IsTheSnapshotTheAgentHolds) {
  const auto snap = node();
  const TopFrame frame = agent_frame(*snap);
  ASSERT_EQ(frame.snapshot->devices.size(), snap->devices.size());
  EXPECT_EQ(frame.snapshot->sequence, snap->sequence);
  EXPECT_EQ(frame.snapshot->node.hostname, snap->node.hostname);
  for (std::size_t i = 0; i < snap->devices.size(); ++i) {
    const DeviceSnapshot& ours = frame.snapshot->devices[i];
    const DeviceSnapshot& theirs = snap->devices[i];
    EXPECT_EQ(ours.identity.uuid, theirs.identity.uuid);
    EXPECT_EQ(ours.identity.name, theirs.identity.name);
    EXPECT_EQ(ours.identity.is_mig_instance, theirs.identity.is_mig_instance);
    EXPECT_EQ(ours.state, theirs.state) << i;
    EXPECT_EQ(frame.health[i].verdict, assess_health(theirs).verdict) << i;
    // A lost GPU's values are not served: none come back.
    if (theirs.state == DeviceState::kLost) {
      EXPECT_TRUE(ours.samples.empty());
      continue;
    }
    ASSERT_EQ(ours.samples.size(), theirs.samples.size()) << i;
    for (const Sample& s : theirs.samples) {
      const Sample* back = ours.find(s.metric, s.labels[0], s.labels[1]);
      ASSERT_NE(back, nullptr) << metric_def(s.metric).name;
      EXPECT_DOUBLE_EQ(back->value, s.value) << metric_def(s.metric).name;
    }
    ASSERT_EQ(ours.processes.size(), theirs.processes.size());
    for (std::size_t p = 0; p < theirs.processes.size(); ++p) {
      EXPECT_EQ(ours.processes[p].pid, theirs.processes[p].pid);
      EXPECT_EQ(ours.processes[p].name, theirs.processes[p].name);
      EXPECT_EQ(ours.processes[p].user, theirs.processes[p].user);
      EXPECT_EQ(ours.processes[p].used_memory_bytes, theirs.processes[p].used_memory_bytes);
    }
  }
  // Each process's workload, read back from the JSON's own fields.
  const auto& p0 = frame.snapshot->devices[0].processes;
  EXPECT_EQ(p0[0].slurm_job, "4242");
  EXPECT_EQ(p0[1].pod_uid, "1b2c3d4e-0000-1111-2222-333344445555");
  EXPECT_EQ(p0[1].container_id, "containerd://abc123");
  EXPECT_EQ(p0[1].namespace_name, "research");
  EXPECT_EQ(p0[1].pod, "train-0");
  // The watchdog is left out; firing comes first.
  ASSERT_EQ(frame.alerts.size(), 2U);
  EXPECT_EQ(frame.alerts[0].name, "GpuLost");
  // A process name with a line feed (the fixture has one) stays on its line.
  bool line_feed = false;
  for (const auto& d : frame.snapshot->devices) {
    for (const auto& p : d.processes) line_feed |= p.name.find('\n') != std::string::npos;
  }
  EXPECT_TRUE(line_feed);
  EXPECT_EQ(frame.alerts[0].state, "firing");
  EXPECT_EQ(frame.alerts[1].name, "GpuStale");
  EXPECT_EQ(frame.alerts[1].gpu, "2");
  EXPECT_GT(frame.alerts[1].active_since_ms, frame.alerts[0].active_since_ms);
}

TEST(AgentFrame, AnAnswerWithoutDevicesSaysWhatIsMissing) {
  try {
    frame_from_agent(nlohmann::json{{"sequence", 1}, {"timestamp_ms", 5}}, nullptr);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "/api/v1/gpus has no \"devices\"");
  }
}

std::vector<std::string> lines_of(const Screen& screen) {
  std::vector<std::string> lines;
  std::istringstream in(screen_text(screen));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(Renderer, ShowsEveryGpuItsProcessesAndTheHelpLineWithinTheTerminal) {
  const TopFrame frame = agent_frame(*node());
  History history;
  history.add(frame);
  const ViewState view;
  for (const ScreenSize size : {ScreenSize{40, 120}, ScreenSize{24, 80}, ScreenSize{12, 50}}) {
    const Screen screen = render(&frame, history, view, {size, std::chrono::seconds(1), 1'764'400'005'000});
    const auto lines = lines_of(screen);
    ASSERT_EQ(lines.size(), static_cast<std::size_t>(size.rows)) << screen_text(screen);
    for (const auto& line : screen.lines) {
      std::size_t width = 0;
      for (const auto& span : line) width += columns(span.text);
      EXPECT_LE(width, static_cast<std::size_t>(size.cols));
    }
    EXPECT_EQ(lines.back().rfind("q quit", 0), 0U) << lines.back();
    const std::string text = screen_text(screen);
    EXPECT_NE(text.find("gpuwatch top"), std::string::npos);
    if (size.rows >= 24) {
      for (const char* gpu : {"\n0 ", "\n1 ", "\n2 ", "\n3 "})
        EXPECT_NE(text.find(gpu), std::string::npos) << gpu;
      EXPECT_NE(text.find("STALE"), std::string::npos) << text;
      EXPECT_NE(text.find("LOST"), std::string::npos) << text;
      EXPECT_NE(text.find("THR sw_power_cap"), std::string::npos) << text;
      EXPECT_NE(text.find("GPU MEM▼"), std::string::npos) << text;
      EXPECT_NE(text.find("job 4242"), std::string::npos) << text;
      EXPECT_NE(text.find("FIRING  page   GpuLost"), std::string::npos) << text;
    }
  }
}

TEST(Renderer, TheHelpScreenListsEveryKey) {
  const TopFrame frame = agent_frame(*node());
  ViewState view;
  apply_key(view, 'h');
  const std::string text =
      screen_text(render(&frame, History(), view, {{30, 100}, std::chrono::seconds(1), 0}));
  for (const auto& k : kKeyHelp) EXPECT_NE(text.find(std::string(k.what)), std::string::npos) << k.what;
  apply_key(view, 'x');
  EXPECT_FALSE(view.help);
}

TEST(Renderer, BeforeTheFirstReadingItSaysSo) {
  const std::string text =
      screen_text(render(nullptr, History(), ViewState(), {{10, 60}, std::chrono::seconds(1), 0}));
  EXPECT_NE(text.find("waiting for the first reading"), std::string::npos);
}

TEST(ProcessRows, SortAndFilterByKey) {
  const TopFrame frame = agent_frame(*node());
  ViewState view;
  auto rows = process_rows(frame, view);
  ASSERT_EQ(rows.size(), 2U);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_FALSE(rows[i - 1].memory_bytes < rows[i].memory_bytes) << "GPU memory, largest first";
  }
  apply_key(view, 'p');
  rows = process_rows(frame, view);
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_LT(rows[i - 1].pid, rows[i].pid);
  apply_key(view, 'r');
  rows = process_rows(frame, view);
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_GT(rows[i - 1].pid, rows[i].pid);
  // "/4242<Enter>": only the process of that Slurm job; "/<Esc>" keeps the filter; "/" erased clears it.
  for (int key : {'/', '4', '2', '4', '2', '\n'}) apply_key(view, key);
  rows = process_rows(frame, view);
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].workload, "job 4242");
  for (int key : std::initializer_list<int>{'/', 'x', 27}) apply_key(view, key);
  EXPECT_EQ(view.filter, "4242");
  for (int key :
       std::initializer_list<int>{'/', KEY_BACKSPACE, KEY_BACKSPACE, KEY_BACKSPACE, KEY_BACKSPACE, '\n'})
    apply_key(view, key);
  EXPECT_EQ(view.filter, "");
  apply_key(view, 'q');
  EXPECT_TRUE(view.quit);
}

// The workload column names a pod as the kubelet named it (namespace/pod), read here or served by the agent;
// a pod no kubelet named is known by its cgroup's UID.
TEST(ProcessRows, NameThePodAsTheKubeletNamedIt) {
  auto snap = node();
  auto& in_pod = snap->devices.at(0).processes.at(1);
  const auto workload_of = [&in_pod](const TopFrame& frame, const ViewState& view) {
    for (const auto& row : process_rows(frame, view))
      if (row.pid == in_pod.pid) return row.workload;
    return std::string("(no row)");
  };
  in_pod.namespace_name.clear();  // the node's pod, before the kubelet named it
  in_pod.pod.clear();
  TopFrame local;
  local.snapshot = snap;
  EXPECT_EQ(workload_of(local, ViewState()), "pod 1b2c3d4e-0000-1111-2222-333344445555");
  in_pod.namespace_name = "research";
  in_pod.pod = "train-1";
  in_pod.container = "trainer";
  EXPECT_EQ(workload_of(local, ViewState()), "pod research/train-1");
  const TopFrame served = agent_frame(*snap);
  EXPECT_EQ(workload_of(served, ViewState()), "pod research/train-1");
  // And the filter finds it by its name.
  ViewState view;
  for (int key : {'/', 't', 'r', 'a', 'i', 'n', '-', '1', '\n'}) apply_key(view, key);
  const auto rows = process_rows(served, view);
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].pid, in_pod.pid);
}

TEST(Plot, BarsAndSparklines) {
  EXPECT_EQ(bar(0.5, 12, "50%"), "[|||||  50%]");
  EXPECT_EQ(bar(std::nullopt, 8, "x"), "[   n/a]");
  EXPECT_EQ(bar(2.0, 6, ""), "[||||]");
  EXPECT_EQ(sparkline({0.0, 0.5, 1.0, std::nan("")}, 6), "  ▁▅█ ");
}

TEST(History, OnePointPerSnapshotAndNoneForAStaleGpu) {
  const TopFrame frame = agent_frame(*node());
  History history(3);
  history.add(frame);
  history.add(frame);  // the same snapshot again: no new point
  EXPECT_EQ(history.of(frame.snapshot->devices[0].identity.uuid).utilization.size(), 1U);
  EXPECT_TRUE(history.of(frame.snapshot->devices[2].identity.uuid).utilization.empty()) << "GPU 2 is stale";
}

// The agent's range answers become the plots' first points, a step without a value a gap.
TEST(History, StartsWithWhatTheAgentRemembers) {
  const auto matrix = [](const char* uuid, nlohmann::json values) {
    return nlohmann::json{
        {"status", "success"},
        {"data",
         {{"resultType", "matrix"},
          {"result", {{{"metric", {{"uuid", uuid}, {"gpu", "0"}}}, {"values", std::move(values)}}}}}}};
  };
  const std::array<nlohmann::json, 4> answers = {
      matrix("GPU-a", {{100, "0.5"}, {102, "0.75"}}), matrix("GPU-a", {{101, "0.25"}}),
      nlohmann::json{{"status", "error"}}, matrix("GPU-b", {{103, "0.6"}, {999, "1"}})};
  const auto earlier = history_from_agent(answers, 100, 1, 4);
  ASSERT_EQ(earlier.size(), 2U);
  const GpuHistory& a = earlier.at("GPU-a");
  ASSERT_EQ(a.utilization.size(), 4U);
  EXPECT_EQ(a.utilization[0], 0.5);
  EXPECT_TRUE(std::isnan(a.utilization[1]));
  EXPECT_EQ(a.utilization[2], 0.75);
  EXPECT_EQ(a.memory[1], 0.25);
  EXPECT_TRUE(a.power.empty()) << "the power query failed: no points, not zeros";
  EXPECT_EQ(earlier.at("GPU-b").temperature.back(), 0.6) << "a point past the range is left out";

  // The first frame brings it; the frame's own reading follows.
  TopFrame frame = agent_frame(*node());
  auto moved = std::make_shared<std::map<std::string, GpuHistory>>(earlier);
  (*moved)[frame.snapshot->devices[0].identity.uuid] = a;
  frame.earlier = moved;
  History history(3);
  history.add(frame);
  const GpuHistory& gpu0 = history.of(frame.snapshot->devices[0].identity.uuid);
  ASSERT_EQ(gpu0.utilization.size(), 3U) << "cut to the history's points";
  EXPECT_EQ(gpu0.utilization[0], 0.75) << "the agent's newest points: 0.75 and a gap";
  EXPECT_TRUE(std::isnan(gpu0.utilization[1]));
  EXPECT_NEAR(gpu0.utilization[2], 0.87, 1e-9) << "then the frame's own reading";
}

}  // namespace
}  // namespace gpuwatch::top
