#include "cli/top/agent_source.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>

#include "cli/top/agent_frame.h"
#include "cli/top/agent_history.h"
#include "core/wall_clock.h"
#include "net/http_client.h"

namespace gpuwatch::top {

struct AgentSource::Shared {
  net::Url agent;  // shown as agent.origin(): without credentials
  std::chrono::milliseconds interval;
  std::shared_ptr<const Wakeup> wakeup;
  std::mutex mutex;
  std::condition_variable_any wake;
  FramePtr frame;  // guarded by mutex
};

namespace {

// One GET of the agent's JSON; sets `problem` and returns null when there is no usable answer.
nlohmann::json get_json(net::HttpClient& client, const std::string& url, std::string& problem) {
  const auto res = client.send({"GET", url, {}, {}, {}, {}});
  if (!res.ok()) {
    problem = "no answer from the agent (" + res.failure.message + ")";
    return nullptr;
  }
  auto body = nlohmann::json::parse(res.response.body, nullptr, false);
  if (res.response.status != 200 || body.is_discarded()) {
    problem = url + " answered HTTP " + std::to_string(res.response.status) + ": " +
              res.response.body.substr(0, 120);
    return nullptr;
  }
  return body;
}

// What the agent's history holds of the last kHistoryPoints intervals, for the plots; null when it cannot say
// (no history: the agent runs with --store none, or an older agent).
std::shared_ptr<const std::map<std::string, GpuHistory>> ask_history(net::HttpClient& client,
                                                                     const std::string& base,
                                                                     std::chrono::milliseconds interval) {
  constexpr std::size_t kHistoryPoints = 300;
  const double step = std::max(static_cast<double>(interval.count()) / 1000.0, 1.0);
  const double end = std::floor(static_cast<double>(wall_unix_ms()) / 1000.0);
  const double start = end - step * (kHistoryPoints - 1);
  std::array<nlohmann::json, 4> answers;
  for (std::size_t i = 0; i < kHistoryQueries.size(); ++i) {
    const std::string query = net::form_encode({{"query", std::string(kHistoryQueries[i])},
                                                {"start", std::to_string(start)},
                                                {"end", std::to_string(end)},
                                                {"step", std::to_string(step)}});
    const auto res = client.send({"GET", base + "/api/v1/query_range?" + query, {}, {}, {}, {}});
    if (!res.ok() || res.response.status != 200) return nullptr;
    answers[i] = nlohmann::json::parse(res.response.body, nullptr, false);
  }
  return std::make_shared<const std::map<std::string, GpuHistory>>(
      history_from_agent(answers, start, step, kHistoryPoints));
}

// The last frame with what went wrong, or a frame without GPUs when there was never one.
FramePtr with_problem(const FramePtr& last, const std::string& origin, const std::string& problem) {
  auto frame = last ? std::make_shared<TopFrame>(*last) : std::make_shared<TopFrame>();
  if (!frame->snapshot) frame->snapshot = std::make_shared<Snapshot>();
  frame->origin = "agent " + origin;
  frame->problem = problem;
  return frame;
}

// The client of the agent's origin; null with `problem` set when there is none (https without the TLS
// module).
std::unique_ptr<net::HttpClient> agent_client(const net::Url& agent, std::string& problem) {
  net::ClientOptions options;
  options.timeouts = {std::chrono::seconds(2), std::chrono::seconds(5), {}};
  options.keep_alive = true;
  try {
    return net::make_http_client(agent, options);
  } catch (const net::ClientError& e) {
    problem = e.what();
    return nullptr;
  }
}

void poll(AgentSource::Shared& shared, const std::stop_token& stop) {
  std::string no_client;
  const auto client = agent_client(shared.agent, no_client);
  if (!client) {
    std::lock_guard lock(shared.mutex);
    shared.frame = with_problem(shared.frame, shared.agent.origin(), no_client);
    shared.wakeup->notify();
    return;
  }
  const std::string base = shared.agent.target == "/" ? "" : shared.agent.target;
  bool asked_history = false;
  while (!stop.stop_requested()) {
    const auto next = std::chrono::steady_clock::now() + shared.interval;
    std::string problem;
    const auto gpus = get_json(*client, base + "/api/v1/gpus", problem);
    std::string alerts_problem;
    const auto alerts = gpus.is_null() ? nullptr : get_json(*client, base + "/api/v1/alerts", alerts_problem);
    FramePtr fresh;
    if (!gpus.is_null()) {
      try {
        auto frame = std::make_shared<TopFrame>(frame_from_agent(gpus, alerts));
        frame->origin = "agent " + shared.agent.origin() + base;
        frame->received_ms = wall_unix_ms();
        // The GPUs are current; only the alerts are missing.
        if (!alerts_problem.empty()) frame->problem = "alerts: " + alerts_problem;
        // Once, with the first frame: the plots start with what the agent remembers.
        if (!asked_history) frame->earlier = ask_history(*client, base, shared.interval);
        asked_history = true;
        fresh = std::move(frame);
      } catch (const std::exception& e) {
        problem = e.what();
      }
    }
    {
      std::unique_lock lock(shared.mutex);
      shared.frame = fresh ? fresh : with_problem(shared.frame, shared.agent.origin() + base, problem);
      shared.wakeup->notify();
      shared.wake.wait_until(lock, stop, next, [] { return false; });
    }
  }
}

}  // namespace

AgentSource::AgentSource(net::Url agent, std::chrono::milliseconds interval,
                         std::shared_ptr<const Wakeup> wakeup)
    : shared_(std::make_shared<Shared>()) {
  shared_->wakeup = std::move(wakeup);
  shared_->agent = std::move(agent);
  shared_->interval = interval;
  worker_ = std::make_unique<AbandonableWorker>(
      [shared = shared_](const std::stop_token& stop) { poll(*shared, stop); });
  worker_->start();
}

FramePtr AgentSource::latest() {
  std::lock_guard lock(shared_->mutex);
  return shared_->frame;
}

}  // namespace gpuwatch::top
