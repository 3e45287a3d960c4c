#include "sim/simulator.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <new>

#include "sim/handles.h"
#include "sim/kernel_log.h"
#include "sim/scenario_loader.h"

namespace gpuwatch::sim {

// The simulator outlives every thread that may still be blocked in a hung call at process exit, so it is
// built in place at library load and never destroyed (destroying a condition variable with waiters is
// undefined behaviour).
template <typename T>
class NoDestructor {
 public:
  NoDestructor() { new (storage_) T(); }
  T& get() { return *std::launder(reinterpret_cast<T*>(storage_)); }

 private:
  alignas(T) unsigned char storage_[sizeof(T)];
};

namespace {

NoDestructor<Simulator> g_simulator;

std::optional<double> env_number(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(v, &end);
  if (*end != '\0') throw ScenarioError(std::string(name) + ": expected a number, got '" + v + "'");
  return d;
}

std::chrono::system_clock::time_point wall_point(double unix_seconds) {
  using namespace std::chrono;
  const double capped = std::min(unix_seconds, 4.0e9);
  return system_clock::time_point(duration_cast<system_clock::duration>(duration<double>(capped)));
}

}  // namespace

double wall_unix_now() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

Node::Node(Scenario s) : scenario(std::move(s)), processes(scenario), faults(scenario) {
  for (unsigned i = 0; i < scenario.devices.size(); ++i)
    gpus.push_back(std::make_unique<GpuPhysics>(scenario, processes, faults, i));
  if (scenario.services) {
    for (std::size_t i = 0; i < scenario.services->size(); ++i)
      services.push_back(std::make_unique<ServiceModel>(*this, (*scenario.services)[i], i));
  }
}

Simulator::Simulator() : load_unix_(wall_unix_now()) {}

Simulator& Simulator::instance() {
  return g_simulator.get();
}

nvmlReturn_t Simulator::init() {
  std::lock_guard lock(mutex_);
  if (init_count_ > 0) {
    if (const nvmlReturn_t r = driver_answer_locked(); r != NVML_SUCCESS) {
      last_error_ = "the scenario's driver is reloading or unloaded at this time";
      return r;
    }
    ++init_count_;
    last_error_.clear();
    return NVML_SUCCESS;
  }
  try {
    const char* path = std::getenv("GPUWATCH_SIM_SCENARIO");
    Scenario scenario = path && *path ? load_scenario_file(path) : builtin_scenario();
    lockstep_ = scenario.node.lockstep;
    if (const char* mode = std::getenv("GPUWATCH_SIM_MODE"); mode && *mode) {
      const std::string m = mode;
      if (m != "scaled" && m != "lockstep")
        throw ScenarioError("GPUWATCH_SIM_MODE: expected 'scaled' or 'lockstep', got '" + m + "'");
      lockstep_ = m == "lockstep";
    }
    time_scale_ = env_number("GPUWATCH_SIM_TIME_SCALE").value_or(scenario.node.time_scale);
    if (!(time_scale_ > 0)) throw ScenarioError("GPUWATCH_SIM_TIME_SCALE: expected a number > 0");
    origin_unix_ = env_number("GPUWATCH_SIM_EPOCH").value_or(load_unix_);
    start_unix_ = scenario.node.start_unix.value_or(origin_unix_);
    // now-DURATION: on a whole millisecond, as the agent's clock counts, so its ticks land on the scenario's
    // seconds (a step at 120h is read at the tick at 120h, not a millisecond's fraction before it).
    if (scenario.node.start_ago && !scenario.node.start_unix)
      start_unix_ = std::round((origin_unix_ - *scenario.node.start_ago) * 1000) / 1000;
    lockstep_elapsed_ = 0;
    node_ = std::make_shared<const Node>(std::move(scenario));
  } catch (const std::exception& e) {
    last_error_ = e.what();
    std::fprintf(stderr, "libnvml-sim: %s\n", last_error_.c_str());
    return NVML_ERROR_UNKNOWN;
  }
  if (const nvmlReturn_t r = driver_answer_locked(); r != NVML_SUCCESS) {
    node_.reset();
    last_error_ = "the scenario's driver is reloading or unloaded at this time";
    return r;
  }
  last_error_.clear();
  generation_ = (generation_ + 1) & 0xFFFF;
  init_count_ = 1;
  return NVML_SUCCESS;
}

nvmlReturn_t Simulator::shutdown() {
  std::lock_guard lock(mutex_);
  if (init_count_ == 0) return NVML_ERROR_UNINITIALIZED;
  if (--init_count_ == 0) {
    node_.reset();
    event_sets_.clear();
    samples_.clear();
    changed_.notify_all();
  }
  return NVML_SUCCESS;
}

std::string Simulator::last_error() {
  std::lock_guard lock(mutex_);
  return last_error_;
}

std::shared_ptr<const Node> Simulator::node() {
  std::lock_guard lock(mutex_);
  return node_;
}

std::shared_ptr<const Node> Simulator::node_at(double& elapsed, double& wall_per_second) {
  std::lock_guard lock(mutex_);
  elapsed = elapsed_locked();
  wall_per_second = wall_per_second_locked();
  return init_count_ > 0 ? node_ : nullptr;
}

std::shared_ptr<const Node> Simulator::node_at(double& elapsed) {
  std::lock_guard lock(mutex_);
  elapsed = elapsed_locked();
  return init_count_ > 0 ? node_ : nullptr;
}

nvmlReturn_t Simulator::write_kernel_log(const std::string& path) {
  std::lock_guard lock(kernel_log_mutex_);
  double t = 0;
  double wall_per_second = 1;
  std::shared_ptr<const Node> node;
  {
    std::lock_guard state(mutex_);
    t = elapsed_locked();
    wall_per_second = wall_per_second_locked();
    if (init_count_ > 0) node = node_;
  }
  if (!node) return NVML_ERROR_UNINITIALIZED;
  return sim::write_kernel_log(path, *node, t, wall_per_second) ? NVML_SUCCESS : NVML_ERROR_OPERATING_SYSTEM;
}

double Simulator::unix_now_locked() const {
  if (lockstep_) return start_unix_ + lockstep_elapsed_;
  return start_unix_ + (wall_unix_now() - origin_unix_);
}

void Simulator::stamp_locked(Call& call) const {
  call.t = elapsed_locked();
  call.wall_per_second = wall_per_second_locked();
  call.unix = unix_now_locked();
}

GpuReading Call::reading() const {
  GpuReading r = node->gpus[gpu]->read(t);
  r.counters = per_wall_seconds(r.counters, wall_per_second);
  return r;
}

double Simulator::elapsed_locked() const {
  if (lockstep_) return lockstep_elapsed_;
  return std::max(0.0, (wall_unix_now() - origin_unix_) * time_scale_);
}

bool Simulator::wait_until_locked(std::unique_lock<std::mutex>& lock, double until, std::uint32_t generation,
                                  ParkedKind kind) {
  auto& parked_until = kind == ParkedKind::kHang ? hung_until_ : event_wait_until_;
  const auto parked = parked_until.insert(until);
  while (init_count_ > 0 && generation_ == generation && elapsed_locked() < until) {
    if (lockstep_ || std::isinf(until)) {
      changed_.wait(lock);
    } else {
      changed_.wait_until(lock, wall_point(origin_unix_ + until / time_scale_));
    }
  }
  parked_until.erase(parked);
  return init_count_ > 0 && generation_ == generation;
}

nvmlReturn_t Simulator::parked_calls(unsigned& hung, unsigned& event_waits) {
  std::lock_guard lock(mutex_);
  if (init_count_ == 0) return NVML_ERROR_UNINITIALIZED;
  const double now = elapsed_locked();
  const auto ahead = [now](const std::multiset<double>& until) {
    return static_cast<unsigned>(std::distance(until.upper_bound(now), until.end()));
  };
  hung = ahead(hung_until_);
  event_waits = ahead(event_wait_until_);
  return NVML_SUCCESS;
}

nvmlReturn_t Simulator::enter_system(Call& call) {
  std::unique_lock lock(mutex_);
  if (init_count_ == 0) return NVML_ERROR_UNINITIALIZED;
  call.node = node_;
  call.generation = generation_;
  for (auto end = node_->faults.hang_end(-1, elapsed_locked()); end;
       end = node_->faults.hang_end(-1, elapsed_locked()))
    if (!wait_until_locked(lock, *end, call.generation, ParkedKind::kHang)) return NVML_ERROR_UNINITIALIZED;
  stamp_locked(call);
  call.handle_generation = handle_generation_locked(call.t);
  return driver_answer_locked();
}

nvmlReturn_t Simulator::enter(nvmlDevice_t device, Call& call) {
  std::unique_lock lock(mutex_);
  if (init_count_ == 0) return NVML_ERROR_UNINITIALIZED;
  const auto h = from_handle(device);
  if (!h || (h->generation >> 4) != generation_ ||
      (h->kind != HandleKind::kGpu && h->kind != HandleKind::kMig))
    return NVML_ERROR_INVALID_ARGUMENT;
  const auto& devices = node_->scenario.devices;
  if (h->a >= devices.size()) return NVML_ERROR_INVALID_ARGUMENT;
  if (h->kind == HandleKind::kGpu && h->b != 0) return NVML_ERROR_INVALID_ARGUMENT;
  call.node = node_;
  call.generation = generation_;
  call.gpu = h->a;
  const int gpu = static_cast<int>(call.gpu);
  for (auto end = node_->faults.hang_end(gpu, elapsed_locked()); end;
       end = node_->faults.hang_end(gpu, elapsed_locked()))
    if (!wait_until_locked(lock, *end, call.generation, ParkedKind::kHang)) return NVML_ERROR_UNINITIALIZED;
  stamp_locked(call);
  if (const nvmlReturn_t r = driver_answer_locked(); r != NVML_SUCCESS) return r;
  // A handle from before a driver reload names a device of the old driver: stale, like one from an earlier
  // init. A MIG handle also names one layout of the GPU's instances (kMigSlots slots per layout).
  call.handle_generation = handle_generation_locked(call.t);
  if (h->generation != call.handle_generation) return NVML_ERROR_INVALID_ARGUMENT;
  call.mig_epoch = node_->faults.mig_epoch(call.gpu, call.t);
  if (h->kind == HandleKind::kMig) {
    const unsigned inst = h->b % kMigSlots;
    if (h->b / kMigSlots != call.mig_epoch % (0x1000 / kMigSlots) || !devices[h->a].mig_enabled ||
        inst >= call.instances().size())
      return NVML_ERROR_INVALID_ARGUMENT;
    call.mig = static_cast<int>(inst);
  }
  if (node_->faults.lost(call.gpu, call.t)) return NVML_ERROR_GPU_IS_LOST;
  return NVML_SUCCESS;
}

nvmlDevice_t Simulator::gpu_handle(const Call& call, unsigned gpu) {
  return to_handle<nvmlDevice_t>({HandleKind::kGpu, call.handle_generation, gpu, 0});
}

nvmlDevice_t Simulator::mig_handle(const Call& call, unsigned inst) {
  const unsigned layout = call.mig_epoch % (0x1000 / kMigSlots);
  return to_handle<nvmlDevice_t>(
      {HandleKind::kMig, call.handle_generation, call.gpu, layout * kMigSlots + inst});
}

std::uint32_t Simulator::handle_generation_locked(double t) const {
  return ((generation_ << 4) | (node_->faults.driver_epoch(t) & 0xF)) & 0xFFFFF;
}

nvmlReturn_t Simulator::driver_answer_locked() const {
  if (!node_) return NVML_ERROR_UNINITIALIZED;
  return node_->faults.driver_down(elapsed_locked()).value_or(NVML_SUCCESS);
}

nvmlReturn_t Simulator::get_time(double& unix_seconds) {
  std::lock_guard lock(mutex_);
  if (init_count_ == 0) return NVML_ERROR_UNINITIALIZED;
  unix_seconds = unix_now_locked();
  return NVML_SUCCESS;
}

nvmlReturn_t Simulator::set_time(double unix_seconds) {
  std::lock_guard lock(mutex_);
  if (init_count_ == 0) return NVML_ERROR_UNINITIALIZED;
  if (!lockstep_) return NVML_ERROR_NOT_SUPPORTED;
  // To the microsecond: a client's time in whole milliseconds less a start of ~1.7e9 s leaves rounding
  // noise of a fraction of a microsecond, which would read a step at 432000 s a hair before it.
  const double elapsed = std::round((unix_seconds - start_unix_) * 1e6) / 1e6;
  if (!(elapsed >= lockstep_elapsed_)) return NVML_ERROR_INVALID_ARGUMENT;
  lockstep_elapsed_ = elapsed;
  changed_.notify_all();
  return NVML_SUCCESS;
}

nvmlReturn_t Simulator::is_lockstep(int& lockstep) {
  std::lock_guard lock(mutex_);
  if (init_count_ == 0) return NVML_ERROR_UNINITIALIZED;
  lockstep = lockstep_ ? 1 : 0;
  return NVML_SUCCESS;
}

std::uint32_t Simulator::id_locked() {
  const std::uint32_t id = next_id_;
  next_id_ = next_id_ % 0xFFFFFE + 1;
  return id;
}

}  // namespace gpuwatch::sim
