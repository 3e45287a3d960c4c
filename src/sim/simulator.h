// The simulator's process-wide state: the NVML C ABI keeps state in the process, so this one object holds
// all of it (init count, loaded scenario, scenario clock, event sets, GPM samples), behind one mutex.
// Blocking (hangs, event waits) happens on the condition variable, which releases that mutex, so a call
// stuck on one GPU never stops calls to the others.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "sim/fault_effects.h"
#include "sim/gpu_physics.h"
#include "sim/process_model.h"
#include "sim/service_model.h"
#include "sources/nvml/nvml_abi.h"

namespace gpuwatch::sim {

// A loaded scenario and everything derived from it; immutable apart from the physics caches.
struct Node {
  explicit Node(Scenario s);
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  Scenario scenario;
  ProcessModel processes;
  FaultEffects faults;
  std::vector<std::unique_ptr<GpuPhysics>> gpus;
  std::vector<std::unique_ptr<ServiceModel>> services;  // the scenario's model servers, in its order
};

// What a device call works with once the gate let it through.
struct Call {
  std::shared_ptr<const Node> node;
  std::uint32_t generation = 0;         // of the init
  std::uint32_t handle_generation = 0;  // what handles made by this call carry (init and driver reloads)
  unsigned gpu = 0;
  int mig = -1;            // MIG instance index for a MIG handle
  unsigned mig_epoch = 0;  // MIG reconfigurations of the GPU so far
  double t = 0;            // scenario seconds since start
  double unix = 0;         // the moment of the call as Unix seconds (see wall_per_second)
  // Wall seconds per scenario second: 1 in lockstep, 1 / time scale in scaled mode. Scaled mode plays the
  // scenario's script faster (or slower) than the clock, but the simulated GPUs live on the wall clock: the
  // times they report are wall times and their counters (energy, throttle time, traffic) grow per wall
  // second.
  double wall_per_second = 1;
  const DeviceSpec& device() const { return node->scenario.devices[gpu]; }
  // The GPU's MIG instances at this call's time (a mig_reconfigure fault changes them).
  const std::vector<MigInstance>& instances() const { return node->faults.mig_instances(gpu, t); }
  // The GPU's reading at this call's time, its counters integrated over wall seconds.
  GpuReading reading() const;
  std::uint64_t seed() const { return node->scenario.node.seed; }
  long long micros() const { return static_cast<long long>(unix * 1e6); }
  // Unix seconds of an earlier scenario time of the same run.
  double unix_at(double scenario_t) const { return unix - (t - scenario_t) * wall_per_second; }
};

struct EventSetState {
  struct Registration {
    unsigned long long mask = 0;
    double since = 0;
  };
  std::map<unsigned, Registration> gpus;
  std::size_t next = 0;  // index into the scenario's sorted events
};

struct GpmSampleState {
  bool taken = false;
  unsigned gpu = 0;
  int gpu_instance = -1;
  double t = 0;     // scenario time of the sample
  double unix = 0;  // and its wall time: GPM averages divide by wall seconds, like the counters
  Counters counters;
};

class Simulator {
 public:
  static Simulator& instance();

  nvmlReturn_t init();
  nvmlReturn_t shutdown();
  std::string last_error();

  // Gate of every device call: initialised, hangs waited out, driver loaded, a live handle of this init, of
  // this driver load and (MIG) of the GPU's current MIG layout, GPU on the bus.
  nvmlReturn_t enter(nvmlDevice_t device, Call& call);
  // Gate of calls that touch no device: initialised, driver hang waited out, driver loaded.
  nvmlReturn_t enter_system(Call& call);
  static nvmlDevice_t gpu_handle(const Call& call, unsigned gpu);
  static nvmlDevice_t mig_handle(const Call& call, unsigned inst);

  nvmlReturn_t get_time(double& unix_seconds);
  nvmlReturn_t set_time(double unix_seconds);
  nvmlReturn_t is_lockstep(int& lockstep);
  // Calls blocked until a scenario time still ahead (a hung_call fault, an event wait): in lockstep none of
  // them returns before the clock is moved.
  // Calls blocked until a scenario time still ahead: in a hang (device and system calls), and in event waits.
  nvmlReturn_t parked_calls(unsigned& hung, unsigned& event_waits);

  nvmlReturn_t event_set_create(nvmlEventSet_t& out);
  nvmlReturn_t event_register(nvmlEventSet_t set, unsigned gpu, unsigned long long mask, double since);
  nvmlReturn_t event_wait(nvmlEventSet_t set, nvmlEventData_t& data, unsigned timeout_ms);
  nvmlReturn_t event_set_free(nvmlEventSet_t set);

  nvmlReturn_t gpm_alloc(nvmlGpmSample_t& out);
  nvmlReturn_t gpm_free(nvmlGpmSample_t sample);
  nvmlReturn_t gpm_store(nvmlGpmSample_t sample, const GpmSampleState& state);
  nvmlReturn_t gpm_load(nvmlGpmSample_t sample, GpmSampleState& state);

  std::shared_ptr<const Node> node();
  // The loaded node and the scenario time (seconds since start), without the call gate; null before init.
  std::shared_ptr<const Node> node_at(double& elapsed);
  // Also the wall seconds per scenario second (1 in lockstep, 1 / time scale when scaled).
  std::shared_ptr<const Node> node_at(double& elapsed, double& wall_per_second);
  // Brings the kernel-log file at `path` up to the current scenario time (sim/kernel_log.h); one writer at a
  // time, so the appends of concurrent callers never interleave.
  nvmlReturn_t write_kernel_log(const std::string& path);

 private:
  Simulator();
  double elapsed_locked() const;
  double wall_per_second_locked() const { return lockstep_ ? 1.0 : 1.0 / time_scale_; }
  // The reported time now: lockstep, start + scenario time; scaled, start + the wall seconds since the epoch
  // (also before an epoch in the future, when scenario time waits at 0: never ahead of the clock).
  double unix_now_locked() const;
  // Fills the call's times from the current scenario time.
  void stamp_locked(Call& call) const;
  // Blocks (releasing the lock) until scenario time reaches `until` or the init generation changes.
  enum class ParkedKind { kHang, kEventWait };
  bool wait_until_locked(std::unique_lock<std::mutex>& lock, double until, std::uint32_t generation,
                         ParkedKind kind);
  std::uint32_t id_locked();
  // Handle generation at scenario time t: the init generation and the driver loads so far.
  std::uint32_t handle_generation_locked(double t) const;
  // The answer of a call while the driver is reloading or unloaded at the current time, else SUCCESS.
  nvmlReturn_t driver_answer_locked() const;

  std::mutex mutex_;
  std::mutex kernel_log_mutex_;
  std::condition_variable changed_;
  int init_count_ = 0;
  std::uint32_t generation_ = 0;
  std::shared_ptr<const Node> node_;
  std::string last_error_;
  double load_unix_;
  bool lockstep_ = false;
  double time_scale_ = 1;
  double origin_unix_ = 0;
  double start_unix_ = 0;
  double lockstep_elapsed_ = 0;
  // The `until` of every call in wait_until_locked, by kind.
  std::multiset<double> hung_until_;
  std::multiset<double> event_wait_until_;
  std::uint32_t next_id_ = 1;
  std::map<std::uint32_t, EventSetState> event_sets_;
  std::map<std::uint32_t, GpmSampleState> samples_;
  template <typename T>
  friend class NoDestructor;
};

double wall_unix_now();

}  // namespace gpuwatch::sim
