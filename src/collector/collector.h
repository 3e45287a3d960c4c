// The collector owns every device call. Each tick it gives every GPU (and MIG instance) a read on that
// device's own worker thread, waits for them until a wall-clock deadline, and publishes one immutable
// Snapshot. A GPU whose read misses the deadline is reported stale with its last values and gets no new work
// until its worker returns; the other GPUs keep their interval. Readers of latest() never touch a device.
//
// Without an NVML library or driver it still publishes snapshots, with Snapshot::source_error saying what was
// tried, and retries with exponential backoff; the same holds after NVML starts answering
// LIB_RM_VERSION_MISMATCH, DRIVER_NOT_LOADED or UNINITIALIZED (driver upgrade or unload).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <vector>

#include "collector/event_listener.h"
#include "collector/read_relay.h"
#include "core/clock.h"
#include "core/snapshot.h"
#include "sources/host/host_reader.h"
#include "sources/nvml/nvml_library.h"
#include "sources/nvml/nvml_session.h"

namespace gpuwatch {

class ReadLatch;

using SnapshotCallback = std::function<void(const SnapshotPtr&)>;

// The scraping source (src/scrape): called once a tick on the collector's thread with the tick's snapshot so
// far; returns the scrapes that finished since the last call. It waits for nothing past wait_until (the
// tick's deadline in lockstep, else the moment of the call).
using ScrapeSource = std::function<std::vector<std::shared_ptr<const ScrapeResult>>(
    std::int64_t now_ms, const Snapshot& snapshot, std::chrono::steady_clock::time_point wait_until)>;

struct CollectorOptions {
  std::string nvml_library;  // path of libnvidia-ml.so.1 (or libnvml-sim); "" tries the default names
  std::chrono::milliseconds interval{1000};  // raised to kMinInterval when smaller
  // Wall time a GPU's read may take before the GPU is reported stale. 0 = the default: 80% of the interval,
  // but never under 50 ms (a long process list on a busy GPU is slow but healthy), even if that exceeds a
  // very short interval.
  std::chrono::milliseconds deadline{0};
  std::string proc_root = "/proc";  // for process names (<pid>/comm); "" = not read, the names stay empty
  std::string hostname;             // "" = the simulated node's name on libnvml-sim, else gethostname()
  // The host's sources (kernel log, sysfs, /proc): read on a worker of their own after the GPUs, against the
  // same deadline; all empty (not read) unless the agent names them.
  HostSourceOptions host;
  // The last host reading of the collector this one replaces (a reload), for the host sources to carry on
  // from; null at start.
  std::shared_ptr<const HostSnapshot> resume_host;
  // The services' /metrics, scraped on workers of their own; empty when none is configured.
  ScrapeSource scrapes;
  // Whether a thread waits for the GPUs' XID and ECC events. A one-shot read (status) has no next tick to
  // hurry and would only pay for the thread and for its last event wait at exit.
  bool listen_events = true;
  // A one-shot read (status): the GPUs are read one after another on one worker (collector/read_relay.h)
  // rather than each on a worker of its own, whose thread starts cost more than the reads. A read that takes
  // longer than its share of the deadline sends the GPUs after it to workers of their own, so a hung GPU is
  // still the only one reported stale.
  bool read_in_turn = false;

  static constexpr std::chrono::milliseconds kMinInterval{10};
  std::chrono::milliseconds effective_interval() const;
  std::chrono::milliseconds effective_deadline() const;
};

// Costs of collection, cumulative since construction. nvml_time is wall time inside NVML calls (steady_clock
// around each call: cheap); cpu_time is thread CPU time of the collector thread in tick() and of the device
// workers. cpu_time - nvml_time estimates the agent's own work; it is low when calls block or contend.
struct CollectorStats {
  std::uint64_t ticks = 0;
  std::uint64_t device_reads = 0;  // completed reads, all devices
  std::uint64_t nvml_inits = 0;    // nvmlInit_v2 attempts: the first and every retry after a failure
  std::chrono::nanoseconds nvml_time{0};
  std::chrono::nanoseconds cpu_time{0};   // collector thread during tick() plus device workers
  std::chrono::nanoseconds wall_time{0};  // sum of tick() durations
  std::chrono::nanoseconds last_tick_wall{0};
};

class Collector {
 public:
  // clock: null to choose from the library (the simulator's clock on libnvml-sim, else the wall clock).
  explicit Collector(CollectorOptions options, std::unique_ptr<Clock> clock = nullptr);
  // Returns promptly even when a device worker or the event thread is stuck in a driver call.
  ~Collector();
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  // One collection at the clock's current time. Call from one thread at a time (run() does).
  void tick();
  // Ticks every interval on the clock until stop is requested, and at once (at most every tenth of an
  // interval) after an XID or double-bit ECC event, so a fault reaches the rules without waiting a tick.
  void run(std::stop_token stop);

  // The last published snapshot; never null (an empty snapshot before the first tick). Thread-safe.
  SnapshotPtr latest() const { return latest_.load(); }
  // True once a tick has read the devices of a working NVML session.
  bool ready() const { return ready_.load(); }
  CollectorStats stats() const;
  Clock& clock() { return *clock_; }

  // Called on the collector's thread with every snapshot right after it is published. It delays the next
  // tick while it runs, so it must only hand the snapshot on (the agent queues it for each of its sinks);
  // may be set at any time.
  void set_snapshot_callback(SnapshotCallback callback);
  // Called on the event thread for every NVML event (XID, ECC, ...); may be set at any time.
  void set_event_callback(EventCallback callback);

 private:
  struct DeviceSlot;
  struct CallbackHolder;

  bool ensure_session(std::int64_t now_ms, std::string& error);
  void open_session();
  void close_session();
  void note_failure(std::int64_t now_ms);
  void update_listener(std::chrono::steady_clock::time_point deadline);
  // On the simulator in lockstep, true when every thread of this collector that calls NVML and has not
  // returned (device and node workers, the event listener) is blocked until a scenario time still ahead: none
  // of them moves before the clock does.
  bool all_parked() const;
  // Waits for a worker's read (or the relay's read `read`) until the deadline; in lockstep, no longer than
  // until all_parked(): the same answer as at the deadline, at once and whatever the machine's load.
  bool wait_for(AbandonableWorker& worker, std::chrono::steady_clock::time_point deadline) const;
  bool wait_relayed(std::size_t read, std::chrono::steady_clock::time_point deadline) const;
  // The wait both of those make: `ended(until)` waits for the read until then and says whether it ended.
  bool wait_until_ended(const std::function<bool(std::chrono::steady_clock::time_point)>& ended,
                        std::chrono::steady_clock::time_point deadline) const;
  // Whether the GPU's read of an earlier tick is still running (on its worker or the relay), and waiting for
  // it to end until the deadline.
  bool busy(const DeviceSlot& slot) const;
  bool held_by_relay(
      const DeviceSlot& slot) const;  // its read of an earlier start is the relay's current one
  bool wait_idle(DeviceSlot& slot, std::chrono::steady_clock::time_point deadline) const;
  void read_in_turn(std::int64_t now, std::uint64_t tick, std::chrono::steady_clock::time_point deadline);
  // In lockstep, after the clock moved: lets the event listener take every event due by now before the GPUs
  // are read, so their event counts do not depend on thread scheduling.
  void settle_listener(std::chrono::steady_clock::time_point deadline) const;
  void harvest(DeviceSlot& slot, Snapshot& snap, bool& reinit);
  void add_stale(const DeviceSlot& slot, const Snapshot* previous, Snapshot& snap) const;
  struct HostJob;
  void read_host(std::int64_t now_ms, std::chrono::steady_clock::time_point deadline,
                 const Snapshot* previous, Snapshot& snap);

  CollectorOptions options_;
  std::shared_ptr<const NvmlLibrary> lib_;
  std::string lib_error_;
  std::unique_ptr<Clock> clock_;
  std::shared_ptr<NvmlSession> session_;
  struct NodeCheck;  // node-wide calls (device count), on a worker of their own: the driver may hang them
  std::shared_ptr<NodeCheck> node_check_;
  std::unique_ptr<AbandonableWorker> node_worker_;
  std::vector<std::unique_ptr<DeviceSlot>> slots_;
  std::unique_ptr<ReadRelay> relay_;       // with read_in_turn only
  std::shared_ptr<ReadLatch> read_latch_;  // shared with the device workers' jobs
  using ParkedCalls = int (*)(unsigned*, unsigned*);
  ParkedCalls parked_calls_ = nullptr;  // libnvml-sim's gpuwatchSimParkedCalls, in lockstep only
  std::shared_ptr<HostJob> host_job_;   // shared with host_worker_'s thread, like a DeviceSlot's job
  std::unique_ptr<AbandonableWorker> host_worker_;
  std::shared_ptr<EventCounts> event_counts_ = std::make_shared<EventCounts>();
  std::shared_ptr<CallbackHolder> callback_;
  std::unique_ptr<EventListener> listener_;
  std::size_t listened_gpus_ = 0;
  std::map<CollectorErrorKey, std::uint64_t> errors_;
  std::string last_error_;
  std::string last_reason_;  // SourceStatus::reason for last_error_
  std::int64_t next_attempt_ms_ = 0;
  std::int64_t backoff_ms_ = 0;
  int reinit_answer_ = 0;  // the last NVML answer that asked for re-initialisation
  std::uint64_t sequence_ = 0;
  std::atomic<std::shared_ptr<const Snapshot>> latest_;
  std::atomic<bool> ready_{false};
  mutable std::mutex stats_mutex_;
  CollectorStats stats_;
};

}  // namespace gpuwatch
