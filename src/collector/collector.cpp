#include "collector/collector.h"
#include "collector/workload_names.h"

#include <atomic>

#include <time.h>

#include <algorithm>
#include <thread>
#include <utility>

#include "collector/read_latch.h"
#include "sources/nvml/simulator_clock.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kFirstBackoffMs = 1'000;
constexpr std::int64_t kMaxBackoffMs = 30'000;
constexpr std::chrono::milliseconds kMinDeadline{50};

std::chrono::nanoseconds thread_cpu_time() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

void set_sample(DeviceSnapshot& d, Metric m, double value) {
  for (auto& s : d.samples) {
    if (s.metric == m) {
      s.value = value;
      return;
    }
  }
  d.samples.push_back(Sample{m, value, {}});
}

}  // namespace

std::chrono::milliseconds CollectorOptions::effective_interval() const {
  return std::max(interval, kMinInterval);
}

std::chrono::milliseconds CollectorOptions::effective_deadline() const {
  if (deadline.count() > 0) return deadline;
  const auto i = effective_interval();
  return std::max(kMinDeadline, std::min(i, i * 4 / 5));
}

// One GPU's worker and what it works on. The job is shared with the worker thread: the collector touches it
// only while the worker is idle.
struct Collector::DeviceSlot {
  struct Job {
    std::shared_ptr<GpuReader> gpu;
    std::int64_t now_ms = 0;
    std::uint64_t tick = 0;  // the tick this read was started for (ReadLatch)
    std::vector<DeviceSnapshot> result;
    std::chrono::nanoseconds cpu{0};
    std::chrono::nanoseconds nvml{0};
    std::chrono::nanoseconds cpu_seen{0};  // the worker thread's CPU time at the end of its last read

    // The read itself, on whichever thread runs it (the GPU's worker or the relay); the caller counts its
    // CPU.
    void read_gpu() {
      const auto nvml_start = gpu->nvml_time();
      gpu->read(now_ms, result);
      nvml = gpu->nvml_time() - nvml_start;
    }
  };
  std::shared_ptr<Job> job = std::make_shared<Job>();
  std::unique_ptr<AbandonableWorker> worker;
  std::size_t relay_index = ReadRelay::kNone;  // the job's place in the relay's last reads, if it went there
  unsigned index = 0;
  bool started = false;
  bool read_once = false;
  bool lost = false;
  std::vector<std::string> last_uuids;  // of the devices the last completed read reported
};

// The host sources' reader and one read's request and answer; touched by the collector only while the worker
// is idle.
struct Collector::HostJob {
  HostJob(HostSourceOptions options, const std::shared_ptr<const HostSnapshot>& resume_from)
      : reader(std::move(options), resume_from) {}
  HostReader reader;
  HostRequest request;
  HostReading result;
};

struct Collector::NodeCheck {
  std::shared_ptr<NvmlSession> session;
  bool layout_changed = false;
  std::chrono::nanoseconds nvml{0};
};

struct Collector::CallbackHolder {
  std::mutex mutex;
  EventCallback callback;
  // Shared, so publishing copies a pointer, not the function (and whatever it captured), every tick.
  std::shared_ptr<const SnapshotCallback> on_snapshot;
  // Set by the event thread on an XID or a double-bit ECC error: run() collects at once instead of at the
  // next interval, so the rules see the fault now.
  std::atomic<bool> collect_now{false};
  // Only run()'s sleep is woken: a caller driving tick() itself (lockstep tests) keeps its own time.
  std::atomic<bool> running{false};
  Clock* clock = nullptr;  // outlives the listener (declared before it)
};

namespace {

constexpr unsigned long long kCollectAtOnce = nvmlEventTypeXidCriticalError | nvmlEventTypeDoubleBitEccError;

// SourceStatus::reason for a session that did not come up.
const char* init_failure_reason(nvmlReturn_t init_result) {
  switch (init_result) {
    case NVML_SUCCESS:
      return "device_count_failed";  // init worked; enumerating the GPUs did not
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return "driver_not_loaded";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
      return "driver_version_mismatch";
    case NVML_ERROR_NO_PERMISSION:
      return "no_permission";
    default:
      return "init_failed";
  }
}

}  // namespace

Collector::Collector(CollectorOptions options, std::unique_ptr<Clock> clock)
    : options_(std::move(options)),
      read_latch_(std::make_shared<ReadLatch>()),
      callback_(std::make_shared<CallbackHolder>()) {
  auto opened = NvmlLibrary::open(options_.nvml_library);
  lib_ = std::move(opened.library);
  lib_error_ = std::move(opened.error);
  clock_ = clock ? std::move(clock) : make_clock(lib_);
  callback_->clock = clock_.get();
  latest_.store(std::make_shared<const Snapshot>());
  if (!options_.host.kmsg.empty() || !options_.host.sysfs_root.empty() || !options_.host.proc_root.empty() ||
      !options_.host.pod_resources_socket.empty() || !options_.host.hpc_job_mapping_dir.empty()) {
    host_job_ = std::make_shared<HostJob>(options_.host, options_.resume_host);
    options_.resume_host.reset();  // a whole host reading: not kept beyond the start
    host_worker_ = std::make_unique<AbandonableWorker>(
        [job = host_job_](std::stop_token) { job->result = job->reader.read(job->request); });
  }
}

Collector::~Collector() {
  close_session();
}

void Collector::set_event_callback(EventCallback callback) {
  std::lock_guard lock(callback_->mutex);
  callback_->callback = std::move(callback);
}

void Collector::set_snapshot_callback(SnapshotCallback callback) {
  auto shared = callback ? std::make_shared<const SnapshotCallback>(std::move(callback)) : nullptr;
  std::lock_guard lock(callback_->mutex);
  callback_->on_snapshot = std::move(shared);
}

CollectorStats Collector::stats() const {
  std::lock_guard lock(stats_mutex_);
  return stats_;
}

void Collector::note_failure(std::int64_t now_ms) {
  backoff_ms_ = backoff_ms_ == 0 ? kFirstBackoffMs : std::min(backoff_ms_ * 2, kMaxBackoffMs);
  next_attempt_ms_ = now_ms + backoff_ms_;
}

void Collector::open_session() {
  session_ = std::make_shared<NvmlSession>(lib_, options_.proc_root, options_.hostname);
  if (!session_->ok()) return;
  parked_calls_ = std::string_view(clock_->domain()) == "scenario-lockstep"
                      ? reinterpret_cast<ParkedCalls>(lib_->optional_symbol("gpuwatchSimParkedCalls"))
                      : nullptr;
  node_check_ = std::make_shared<NodeCheck>();
  node_check_->session = session_;
  node_worker_ = std::make_unique<AbandonableWorker>([check = node_check_](std::stop_token) {
    auto& calls = check->session->calls();
    const auto start = calls.nvml_time();
    check->layout_changed = check->session->layout_changed();
    check->nvml = calls.nvml_time() - start;
  });
  if (options_.read_in_turn) relay_ = std::make_unique<ReadRelay>();
  for (const auto& gpu : session_->gpus()) {
    auto slot = std::make_unique<DeviceSlot>();
    slot->index = gpu->gpu().identity().index;
    slot->job->gpu = gpu;
    slot->worker =
        std::make_unique<AbandonableWorker>([job = slot->job, latch = read_latch_](std::stop_token) {
          job->read_gpu();
          // The thread runs only this job: one CPU clock read (a system call) per read, and its wake-up
          // counts.
          const auto cpu_now = thread_cpu_time();
          job->cpu = cpu_now - job->cpu_seen;
          job->cpu_seen = cpu_now;
          latch->done(job->tick);
        });
    slots_.push_back(std::move(slot));
  }
}

// Events are counted per UUID, so a GPU is registered once its first read told its UUID. A GPU identified
// later (one that hung from the start) makes a new listener that covers it too; the counts live on.
void Collector::update_listener(std::chrono::steady_clock::time_point deadline) {
  if (!options_.listen_events) return;
  auto watchable = [](const DeviceSlot& slot) {
    return slot.read_once && !slot.lost && !slot.last_uuids.empty() && !slot.last_uuids.front().empty();
  };
  // Counted before anything is copied: at almost every tick nothing new can be watched.
  const auto count =
      std::count_if(slots_.begin(), slots_.end(), [&](const auto& slot) { return watchable(*slot); });
  if (static_cast<std::size_t>(count) <= listened_gpus_) return;
  std::vector<WatchedDevice> watched;
  for (const auto& slot : slots_) {
    if (watchable(*slot)) watched.push_back({slot->job->gpu->handle(), slot->last_uuids.front()});
  }
  listened_gpus_ = watched.size();
  listener_.reset();
  listener_ = std::make_unique<EventListener>(
      lib_, std::move(watched), event_counts_,
      [holder = callback_](const std::string& uuid, unsigned long long type, unsigned long long data) {
        if (type & kCollectAtOnce) {
          holder->collect_now = true;
          if (holder->running) holder->clock->interrupt();
        }
        std::lock_guard lock(holder->mutex);
        if (holder->callback) holder->callback(uuid, type, data);
      },
      deadline);
}

void Collector::close_session() {
  listener_.reset();
  listened_gpus_ = 0;
  bool any_busy = false;
  for (auto& slot : slots_) {
    any_busy = any_busy || slot->worker->busy();
    slot->worker->request_stop();
  }
  if (relay_) {
    any_busy = any_busy || relay_->busy();
    relay_->request_stop();
  }
  if (node_worker_) {
    any_busy = any_busy || node_worker_->busy();
    node_worker_->request_stop();
  }
  if (any_busy && session_) session_->skip_shutdown();
  slots_.clear();
  relay_.reset();
  node_worker_.reset();
  node_check_.reset();
  session_.reset();
}

bool Collector::all_parked() const {
  unsigned hung = 0, event_waits = 0;
  if (parked_calls_(&hung, &event_waits) != 0) return false;
  // Readers park only in hangs and the listener only in event waits, counted apart: a listener being
  // replaced (its old thread still in a wait) never makes a reader that is still working look parked.
  const auto busy =
      std::count_if(slots_.begin(), slots_.end(), [](const auto& s) { return s->worker->busy(); }) +
      (node_worker_ && node_worker_->busy() ? 1 : 0) + (relay_ && relay_->busy() ? 1 : 0);
  const bool listener_parked = !(listener_ && listener_->listening()) || event_waits > 0;
  return static_cast<unsigned>(busy) <= hung && listener_parked;
}

bool Collector::held_by_relay(const DeviceSlot& slot) const {
  return relay_ && slot.relay_index != ReadRelay::kNone && relay_->running() == slot.relay_index;
}

bool Collector::busy(const DeviceSlot& slot) const {
  return slot.worker->busy() || held_by_relay(slot);
}

bool Collector::wait_idle(DeviceSlot& slot, std::chrono::steady_clock::time_point deadline) const {
  if (held_by_relay(slot) && !wait_relayed(slot.relay_index, deadline)) return false;
  return wait_for(*slot.worker, deadline);
}

// The GPUs one after another on the relay while each read takes at most its share of the deadline; when one
// takes longer, the reads not begun are taken back and left unstarted, for tick() to give them workers of
// their own as it does every GPU whose read did not start.
void Collector::read_in_turn(std::int64_t now, std::uint64_t tick,
                             std::chrono::steady_clock::time_point deadline) {
  std::vector<ReadRelay::Read> reads;
  std::vector<DeviceSlot*> relayed;
  for (auto& slot : slots_) {
    slot->started = false;
    slot->relay_index = ReadRelay::kNone;
    if (slot->worker->busy()) continue;  // inside an earlier read: the parallel path below waits for it
    slot->job->now_ms = now;
    slot->job->tick = tick;
    slot->relay_index = reads.size();
    relayed.push_back(slot.get());
    reads.emplace_back([job = slot->job, latch = read_latch_] {
      const auto cpu_start = thread_cpu_time();
      job->read_gpu();
      job->cpu = thread_cpu_time() - cpu_start;
      latch->done(job->tick);
    });
  }
  for (std::size_t i = 0; i < reads.size(); ++i) read_latch_->expect();
  if (!relay_->start(std::move(reads))) {
    for (DeviceSlot* slot : relayed) {
      read_latch_->cancel();
      slot->relay_index = ReadRelay::kNone;
    }
    return;
  }
  for (DeviceSlot* slot : relayed) slot->started = true;
  const auto share = std::max<std::chrono::steady_clock::duration>(
      options_.effective_deadline() / std::max<std::size_t>(1, relayed.size()),
      std::chrono::milliseconds(10));
  const bool settled =
      wait_until_ended([&](auto until) { return relay_->wait_for_all(share, until); }, deadline);
  if (settled && relay_->all_ended()) return;
  for (std::size_t j = relay_->take_back(); j < relayed.size(); ++j) {
    read_latch_->cancel();
    relayed[j]->relay_index = ReadRelay::kNone;
    relayed[j]->started = false;
  }
}

bool Collector::wait_until_ended(const std::function<bool(std::chrono::steady_clock::time_point)>& ended,
                                 std::chrono::steady_clock::time_point deadline) const {
  if (parked_calls_ == nullptr) return ended(deadline);
  std::chrono::microseconds slice{20};
  for (;;) {
    if (ended(std::min(deadline, std::chrono::steady_clock::now() + slice))) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    // A read that ended since the wait above is neither busy nor parked: it is asked again.
    if (all_parked()) return ended(now);
    slice = std::min<std::chrono::microseconds>(slice * 2, std::chrono::milliseconds(1));
  }
}

bool Collector::wait_for(AbandonableWorker& worker, std::chrono::steady_clock::time_point deadline) const {
  return wait_until_ended([&](auto until) { return worker.wait_until(until); }, deadline);
}

bool Collector::wait_relayed(std::size_t read, std::chrono::steady_clock::time_point deadline) const {
  return wait_until_ended([&](auto until) { return relay_->wait_for(read, until); }, deadline);
}

void Collector::settle_listener(std::chrono::steady_clock::time_point deadline) const {
  if (parked_calls_ == nullptr || !listener_) return;
  // The listener parks again within one event wait of its own once it has taken every event due; it does
  // not park while the driver answers errors, so this waits that long at most.
  const auto until = std::min(
      deadline, std::chrono::steady_clock::now() + 2 * std::chrono::milliseconds(EventListener::kWaitMs));
  for (std::chrono::microseconds slice{20}; !all_parked() && std::chrono::steady_clock::now() < until;
       slice = std::min<std::chrono::microseconds>(slice * 2, std::chrono::milliseconds(1)))
    std::this_thread::sleep_for(slice);
}

bool Collector::ensure_session(std::int64_t now_ms, std::string& error) {
  if (session_ && session_->ok()) return true;
  if (now_ms < next_attempt_ms_) {
    error = last_error_ + "; retrying in " + std::to_string((next_attempt_ms_ - now_ms + 999) / 1000) + " s";
    return false;
  }
  if (!lib_) {
    auto opened = NvmlLibrary::open(options_.nvml_library);
    lib_ = std::move(opened.library);
    lib_error_ = std::move(opened.error);
  }
  if (!lib_) {
    last_error_ = lib_error_;
    last_reason_ = "library_not_loaded";
  } else {
    {
      std::lock_guard lock(stats_mutex_);
      ++stats_.nvml_inits;
    }
    open_session();
    if (session_->ok()) {
      backoff_ms_ = 0;
      last_error_.clear();
      return true;
    }
    last_error_ = session_->error();
    last_reason_ = init_failure_reason(session_->init_result());
    // After a driver upgrade the loaded library no longer matches the kernel module: load it afresh (threads
    // still inside the old one keep it mapped through their own references).
    if (session_->init_result() == NVML_ERROR_LIB_RM_VERSION_MISMATCH) lib_.reset();
    session_.reset();
  }
  note_failure(now_ms);
  error = last_error_ + "; retrying in " + std::to_string(backoff_ms_ / 1000) + " s";
  return false;
}

void Collector::add_stale(const DeviceSlot& slot, const Snapshot* previous, Snapshot& snap) const {
  auto mark = [](DeviceSnapshot& d) {
    d.state = DeviceState::kStale;
    std::erase_if(d.samples, [](const Sample& s) { return s.metric == Metric::kCriticalEvents; });
    set_sample(d, Metric::kUp, 0);
    set_sample(d, Metric::kStale, 1);
  };
  bool found = false;
  for (const auto& uuid : slot.last_uuids) {
    if (previous == nullptr) break;
    for (const auto& p : previous->devices) {
      if (p.identity.uuid != uuid) continue;
      mark(snap.devices.emplace_back(p));
      found = true;
      break;
    }
  }
  if (!found) {  // never read yet: all that is known is where it sits
    DeviceSnapshot& d = snap.devices.emplace_back();
    d.identity.index = slot.index;
    if (!slot.last_uuids.empty()) d.identity.uuid = slot.last_uuids.front();
    mark(d);
  }
}

void Collector::harvest(DeviceSlot& slot, Snapshot& snap, bool& reinit) {
  auto& job = *slot.job;
  slot.read_once = true;
  slot.lost = !job.result.empty() && job.result.front().state == DeviceState::kLost;
  // Assigned in place: the strings keep their buffers, so a steady GPU costs no allocation here.
  slot.last_uuids.resize(job.result.size());
  for (std::size_t i = 0; i < job.result.size(); ++i) {
    slot.last_uuids[i] = job.result[i].identity.uuid;
    snap.devices.push_back(std::move(job.result[i]));
  }
  job.result.clear();
  for (const auto& reader : job.gpu->readers()) {
    auto& calls = reader->calls();
    for (const auto& e : calls.errors()) {
      errors_[{reader->identity().uuid, std::string(nvml_symbol_name(e.call)), e.code}] += e.count;
      if (needs_reinit(static_cast<nvmlReturn_t>(e.code))) reinit_answer_ = e.code;
    }
    calls.errors().clear();
    reinit = reinit || calls.needs_reinit();
  }
}

namespace {

// The GPUs' AER counters from the host reading become samples of their devices: served, stored and shown
// in /api/v1/gpus like any NVML reading.
void add_aer_samples(const HostSnapshot& host, Snapshot& snap) {
  for (auto& d : snap.devices) {
    std::erase_if(d.samples, [](const Sample& s) { return s.metric == Metric::kPcieAerErrors; });
    if (d.identity.is_mig_instance || d.state == DeviceState::kLost) continue;
    const auto it = host.aer.find(d.identity.pci_bus_id);
    if (it == host.aer.end()) continue;
    const kernel::AerCounters& c = it->second;
    d.samples.push_back(Sample{Metric::kPcieAerErrors, static_cast<double>(c.correctable), {"correctable"}});
    d.samples.push_back(Sample{Metric::kPcieAerErrors, static_cast<double>(c.nonfatal), {"nonfatal"}});
    d.samples.push_back(Sample{Metric::kPcieAerErrors, static_cast<double>(c.fatal), {"fatal"}});
  }
}

// Who runs each process and how, from the host reading, into the process samples: every consumer of the
// snapshot finds them on the process.
void add_process_details(const HostSnapshot& host, Snapshot& snap) {
  if (!host.process_details) return;
  for (auto& d : snap.devices) {
    for (auto& p : d.processes) {
      const auto it = host.process_details->find(p.pid);
      if (it == host.process_details->end()) continue;
      p.uid = it->second.uid;
      p.user = it->second.user;
      p.command = it->second.command;
    }
  }
}

}  // namespace

// The host sources read after the GPUs, for this tick's GPUs and processes. A read that overruns the deadline
// is left running (a sysfs or /proc read can block); its sources are reported failed and the last reading is
// carried. The kernel log loses nothing meanwhile: its events stay in the reader's window for the next read.
void Collector::read_host(std::int64_t now_ms, std::chrono::steady_clock::time_point deadline,
                          const Snapshot* previous, Snapshot& snap) {
  if (!host_job_) return;
  const auto start = std::chrono::steady_clock::now();
  // The host gets at least a moment of its own after a GPU read that spent the tick's deadline.
  constexpr std::chrono::milliseconds kMinHostBudget{20};
  const auto host_deadline = std::max(deadline, start + kMinHostBudget);
  bool started = false;
  if (!host_worker_->busy()) {
    HostRequest& request = host_job_->request;
    request.now_ms = now_ms;
    request.deadline = host_deadline;
    request.gpu_bus_ids.clear();
    request.pids.clear();
    for (const auto& d : snap.devices) {
      if (!d.identity.is_mig_instance && !d.identity.pci_bus_id.empty())
        request.gpu_bus_ids.push_back(d.identity.pci_bus_id);
      for (const auto& p : d.processes) request.pids.push_back(p.pid);
    }
    std::sort(request.pids.begin(), request.pids.end());
    request.pids.erase(std::unique(request.pids.begin(), request.pids.end()), request.pids.end());
    started = host_worker_->start();
  }
  if (started && host_worker_->wait_until(host_deadline)) {
    HostReading& reading = host_job_->result;
    snap.host = reading.host;
    for (auto& status : reading.sources) snap.sources.push_back(std::move(status));
    reading.sources.clear();
  } else {
    snap.host = previous != nullptr ? previous->host : nullptr;
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const auto& name : host_job_->reader.source_names()) {
      snap.sources.push_back(
          SourceStatus{name, false, waited, "deadline_exceeded",
                       name + ": the host read did not finish before the tick's deadline"});
    }
  }
  if (snap.host) {
    add_aer_samples(*snap.host, snap);
    add_process_details(*snap.host, snap);
    add_workload_names(*snap.host, snap);
  }
}

void Collector::tick() {
  const auto wall_start = std::chrono::steady_clock::now();
  const auto cpu_start = thread_cpu_time();
  const std::int64_t now = clock_->now_ms();
  const auto previous = latest_.load();

  auto snap = std::make_shared<Snapshot>();
  snap->timestamp_ms = now;
  std::chrono::nanoseconds worker_cpu{0};
  std::chrono::nanoseconds nvml{0};
  std::uint64_t reads = 0;
  bool reinit = false;

  std::string error;
  SourceStatus nvml_status{"nvml", true, 0, {}, {}};
  // A MIG reconfiguration already delivered makes this tick's MIG handles stale: re-enumerate first.
  if (session_ && event_counts_->take_mig_change()) close_session();
  const NvmlSession* const session_before = session_.get();
  const bool have_session = ensure_session(now, error);
  if (!have_session) {
    nvml_status.success = false;
    nvml_status.reason = last_reason_;
    nvml_status.message = last_error_;
    snap->source_error = std::move(error);
    if (lib_) snap->node.nvml_library = lib_->path();
  } else {
    const auto deadline = wall_start + options_.effective_deadline();
    settle_listener(deadline);
    // A session opened by this tick has just counted its GPUs and their MIG modes: nothing to compare yet
    // (and a one-shot read starts no thread for it).
    const bool check_layout = session_.get() == session_before;
    const bool node_started = check_layout && node_worker_->start();
    const std::uint64_t this_tick = sequence_ + 1;
    read_latch_->begin(this_tick);
    auto start_read = [&](DeviceSlot& slot) {
      slot.relay_index = ReadRelay::kNone;
      slot.job->now_ms = now;
      slot.job->tick = this_tick;
      read_latch_->expect();
      slot.started = slot.worker->start();
      if (!slot.started) read_latch_->cancel();
    };
    if (relay_ && !relay_->busy()) {
      read_in_turn(now, this_tick, deadline);
    } else {
      for (auto& slot : slots_) {
        slot->started = false;
        if (!busy(*slot)) start_read(*slot);
      }
    }
    // A worker still inside an earlier read gets no new work, unless that read returns before this tick's
    // deadline (its late result is dropped: it describes an earlier time); a read the relay gave back starts
    // here at once.
    for (auto& slot : slots_) {
      if (!slot->started && wait_idle(*slot, deadline)) start_read(*slot);
    }
    // One sleep for all of them; in lockstep a parked (simulated hung) read is seen by wait_for below.
    if (parked_calls_ == nullptr) read_latch_->wait_until(deadline);
    snap->devices.reserve(slots_.size());
    for (auto& slot : slots_) {
      const std::size_t first = snap->devices.size();
      if (slot->started && (slot->relay_index != ReadRelay::kNone ? wait_relayed(slot->relay_index, deadline)
                                                                  : wait_for(*slot->worker, deadline))) {
        worker_cpu += slot->job->cpu;
        nvml += slot->job->nvml;
        ++reads;
        harvest(*slot, *snap, reinit);
      } else {
        add_stale(*slot, previous.get(), *snap);
      }
      for (std::size_t i = first; i < snap->devices.size(); ++i) {
        if (!snap->devices[i].identity.is_mig_instance) event_counts_->fill(snap->devices[i]);
      }
    }
    // Registration gets a deadline of its own: the tick's may be spent already on a hung GPU.
    update_listener(std::chrono::steady_clock::now() + options_.effective_deadline());
    bool layout_changed = false;
    const bool node_checked = node_started && wait_for(*node_worker_, deadline);
    if (node_checked) {
      layout_changed = node_check_->layout_changed;
      nvml += node_check_->nvml;
    }
    if (node_checked || !check_layout) {  // the node's calls are this thread's to read
      auto& node_calls = session_->calls();
      for (const auto& e : node_calls.errors()) {
        errors_[{std::string(), std::string(nvml_symbol_name(e.call)), e.code}] += e.count;
        if (needs_reinit(static_cast<nvmlReturn_t>(e.code))) reinit_answer_ = e.code;
      }
      node_calls.errors().clear();
      reinit = reinit || node_calls.needs_reinit();
    }
    snap->node = session_->node();
    if (reinit) {
      // The driver went away under this tick's reads: say so, and report the GPUs' last values as stale.
      const char* text = lib_->fn().nvmlErrorString(static_cast<nvmlReturn_t>(reinit_answer_));
      snap->source_error = std::string("NVML answered: ") + (text != nullptr ? text : "unknown error") +
                           " (NVML error " + std::to_string(reinit_answer_) + "); re-initialising";
      nvml_status.success = false;
      nvml_status.reason = "reinitialising";
      nvml_status.message = snap->source_error;
      snap->devices.clear();
      for (const auto& slot : slots_) add_stale(*slot, previous.get(), *snap);
    }
    // Handles are invalid after a MIG reconfiguration, a GPU reset or a driver reload: start over next tick.
    if (reinit || layout_changed || event_counts_->take_mig_change()) close_session();
  }

  nvml_status.duration_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  snap->sources.push_back(std::move(nvml_status));
  read_host(now, wall_start + options_.effective_deadline(), previous.get(), *snap);
  if (options_.scrapes) {
    // Only in lockstep does a tick wait for the scrapes it starts: scenario time stands still meanwhile.
    const bool lockstep = std::string_view(clock_->domain()) == "scenario-lockstep";
    snap->scrapes = options_.scrapes(
        now, *snap, lockstep ? wall_start + options_.effective_deadline() : std::chrono::steady_clock::now());
  }

  snap->collector_errors = errors_;
  snap->sequence = ++sequence_;
  const auto wall = std::chrono::steady_clock::now() - wall_start;
  snap->collection_seconds = std::chrono::duration<double>(wall).count();
  {
    std::lock_guard lock(stats_mutex_);
    ++stats_.ticks;
    stats_.device_reads += reads;
    stats_.nvml_time += nvml;
    stats_.cpu_time += worker_cpu + (thread_cpu_time() - cpu_start);
    stats_.wall_time += wall;
    stats_.last_tick_wall = wall;
    snap->ticks = stats_.ticks;
  }
  SnapshotPtr published = std::move(snap);
  latest_.store(published);
  if (have_session) ready_.store(true);
  std::shared_ptr<const SnapshotCallback> on_snapshot;
  {
    std::lock_guard lock(callback_->mutex);
    on_snapshot = callback_->on_snapshot;
  }
  if (on_snapshot) (*on_snapshot)(published);
}

void Collector::run(std::stop_token stop) {
  std::stop_callback wake(stop, [this] { clock_->interrupt(); });
  const std::int64_t interval = options_.effective_interval().count();
  std::int64_t next = clock_->now_ms();
  // An XID storm must not turn into a tick storm: an extra collection waits this long after the last one.
  const std::int64_t min_gap = std::max<std::int64_t>(10, interval / 10);
  std::int64_t last = 0;
  callback_->running = true;
  while (!stop.stop_requested()) {
    last = clock_->now_ms();
    tick();
    next += interval;
    const std::int64_t now = clock_->now_ms();
    if (now - next > interval) next = now;  // fell behind (a suspended host): do not burst to catch up
    // Woken early by a critical event: collect now, then keep the cadence.
    while (!clock_->sleep_until_ms(next) && !stop.stop_requested()) {
      if (!callback_->collect_now.exchange(false)) continue;
      if (clock_->now_ms() - last < min_gap) clock_->sleep_until_ms(last + min_gap);
      if (stop.stop_requested()) break;
      last = clock_->now_ms();
      tick();
    }
  }
  callback_->running = false;
}

}  // namespace gpuwatch
