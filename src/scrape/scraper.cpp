#include "scrape/scraper.h"

#include <spdlog/spdlog.h>

#include <deque>
#include <mutex>
#include <set>

#include "collector/abandonable_worker.h"
#include "core/stale_marker.h"
#include "scrape/listening_sockets.h"
#include "scrape/target_scraper.h"
#include "sources/host/host_snapshot.h"

namespace gpuwatch::scrape {
namespace {

constexpr std::int64_t kDiscoveryEveryMs = 10'000;
constexpr std::int64_t kProbeRetryMs = 60'000;
// Results kept for the collector between two ticks: a target scraped more often than the agent ticks keeps
// its newest ones.
constexpr std::size_t kMaxPending = 8;

}  // namespace

// What a target's worker thread owns (an abandoned worker still holds it).
struct Scraper::Job {
  explicit Job(ScrapeTarget target) : scraper(std::move(target)) {}
  TargetScraper scraper;
  std::int64_t t_ms = 0;  // set before each start
  std::mutex mu;
  std::deque<std::shared_ptr<const ScrapeResult>> done;  // under mu
};

struct Scraper::Slot {
  std::shared_ptr<Job> job;
  std::unique_ptr<AbandonableWorker> worker;
  std::int64_t next_due_ms = 0;
  bool discovered = false;
  bool confirmed = true;  // a discovered target: a scrape of it succeeded
  unsigned pid = 0;
  bool started = false;  // in this collect()
};

Scraper::Scraper(ScrapeConfig config, std::string proc_root)
    : config_(std::move(config)), proc_root_(std::move(proc_root)) {
  for (auto& t : config_.targets) {
    auto target = make_target(t);
    auto slot = std::make_shared<Slot>();
    slot->job = std::make_shared<Job>(target);
    add_slot(target.key, std::move(slot));
  }
}

Scraper::~Scraper() {
  for (auto& [key, slot] : slots_) slot->worker->request_stop();
}

void Scraper::add_slot(std::string key, std::shared_ptr<Slot> slot) {
  slot->worker = std::make_unique<AbandonableWorker>([job = slot->job](std::stop_token) {
    auto result = job->scraper.scrape(job->t_ms);
    std::lock_guard lock(job->mu);
    job->done.push_back(std::move(result));
    while (job->done.size() > kMaxPending) job->done.pop_front();
  });
  slots_.emplace(std::move(key), std::move(slot));
}

void Scraper::discover(std::int64_t now_ms, const Snapshot& snapshot,
                       std::vector<std::shared_ptr<const ScrapeResult>>& out) {
  if (!config_.discovery.enabled || now_ms < next_discovery_ms_) return;
  next_discovery_ms_ = now_ms + kDiscoveryEveryMs;
  // The GPU processes: pid -> the GPUs it uses, its name.
  struct Process {
    std::vector<const DeviceIdentity*> gpus;
    std::string name;
  };
  std::map<unsigned, Process> processes;
  for (const auto& d : snapshot.devices) {
    for (const auto& p : d.processes) {
      auto& proc = processes[p.pid];
      proc.gpus.push_back(&d.identity);
      if (proc.name.empty()) proc.name = p.name;
    }
  }
  std::set<std::string> present;
  for (const auto& [pid, proc] : processes) {
    for (const auto& socket : listening_sockets(proc_root_, pid)) {
      ScrapeTargetConfig c = config_.discovery.target;
      c.url = "http://" + socket.address + ":" + std::to_string(socket.port) + config_.discovery.path;
      std::string gpus, uuids;
      for (const auto* id : proc.gpus) {
        gpus += (gpus.empty() ? "" : ",") + std::to_string(id->index);
        uuids += (uuids.empty() ? "" : ",") + id->uuid;
      }
      Labels extra{{"pid", std::to_string(pid)}, {"process", proc.name}, {"gpu", gpus}, {"uuid", uuids}};
      if (snapshot.host && snapshot.host->workloads) {
        if (const auto it = snapshot.host->workloads->find(pid); it != snapshot.host->workloads->end()) {
          extra.emplace_back("container_id", it->second.container_id);
          extra.emplace_back("pod_uid", it->second.pod_uid);
          extra.emplace_back("slurm_job", it->second.slurm_job);
        }
      }
      ScrapeTarget target;
      try {
        target = make_target(c, extra);
      } catch (const std::invalid_argument& e) {
        spdlog::warn("scrape discovery: {}", e.what());
        continue;
      }
      present.insert(target.key);
      if (slots_.count(target.key) != 0) continue;
      auto slot = std::make_shared<Slot>();
      slot->discovered = true;
      slot->confirmed = false;
      slot->pid = pid;
      slot->next_due_ms = now_ms;
      const std::string key = target.key;
      slot->job = std::make_shared<Job>(std::move(target));
      add_slot(key, std::move(slot));
    }
  }
  // Targets whose process left the GPUs (or stopped listening): gone, their series marked stale.
  for (auto it = slots_.begin(); it != slots_.end();) {
    const auto& slot = it->second;
    if (!slot->discovered || present.count(it->first) != 0) {
      ++it;
      continue;
    }
    if (slot->confirmed && !slot->worker->busy()) {
      // An answer that never came marks everything of the last good scrape stale, up included.
      FetchResult gone;
      gone.error = "target no longer discovered";
      auto last = slot->job->scraper.scrape_answer(now_ms, gone, 0);
      auto retired = std::make_shared<ScrapeResult>(*last);
      for (auto& s : retired->samples) s.value = stale_marker();
      out.push_back(std::move(retired));
    }
    spdlog::info("scrape: target {} is gone (process {} left the GPUs or its socket closed)", it->first,
                 slot->pid);
    it = slots_.erase(it);
  }
}

std::vector<std::shared_ptr<const ScrapeResult>> Scraper::collect(
    std::int64_t now_ms, const Snapshot& snapshot, std::chrono::steady_clock::time_point wait_until) {
  std::vector<std::shared_ptr<const ScrapeResult>> out;
  discover(now_ms, snapshot, out);
  for (auto& [key, slot] : slots_) {
    slot->started = false;
    if (now_ms < slot->next_due_ms || slot->worker->busy()) continue;
    slot->job->t_ms = now_ms;
    slot->started = slot->worker->start();
    const std::int64_t interval = slot->job->scraper.target().config.interval.count();
    slot->next_due_ms = std::max(slot->next_due_ms + interval, now_ms + interval / 2);
  }
  for (auto& [key, slot] : slots_) {
    if (slot->started) slot->worker->wait_until(wait_until);
    std::deque<std::shared_ptr<const ScrapeResult>> done;
    {
      std::lock_guard lock(slot->job->mu);
      done.swap(slot->job->done);
    }
    for (auto& r : done) {
      if (!slot->confirmed) {
        if (!r->up) {
          slot->next_due_ms = r->t_ms + kProbeRetryMs;  // nothing answers /metrics there (yet)
          continue;
        }
        slot->confirmed = true;
        spdlog::info("scrape: discovered {} (pid {})", key, slot->pid);
      }
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace gpuwatch::scrape
