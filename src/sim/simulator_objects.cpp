// The objects NVML clients allocate through the simulator: event sets and GPM samples.
#include <algorithm>
#include <cmath>

#include "sim/handles.h"
#include "sim/simulator.h"

namespace gpuwatch::sim {
namespace {

HandleFields object_fields(HandleKind kind, std::uint32_t generation, std::uint32_t id) {
  return {kind, generation, id >> 12, id & 0xFFF};
}

template <typename Handle>
std::optional<std::uint32_t> object_id(Handle h, HandleKind kind, std::uint32_t generation) {
  const auto f = from_handle(h);
  if (!f || f->kind != kind || f->generation != generation) return std::nullopt;
  return (f->a << 12) | f->b;
}

}  // namespace

nvmlReturn_t Simulator::event_set_create(nvmlEventSet_t& out) {
  std::lock_guard lock(mutex_);
  if (init_count_ == 0) return NVML_ERROR_UNINITIALIZED;
  if (const nvmlReturn_t r = driver_answer_locked(); r != NVML_SUCCESS) return r;
  const std::uint32_t id = id_locked();
  event_sets_[id] = EventSetState{};
  out = to_handle<nvmlEventSet_t>(object_fields(HandleKind::kEventSet, generation_, id));
  return NVML_SUCCESS;
}

nvmlReturn_t Simulator::event_register(nvmlEventSet_t set, unsigned gpu, unsigned long long mask,
                                       double since) {
  std::lock_guard lock(mutex_);
  if (init_count_ == 0) return NVML_ERROR_UNINITIALIZED;
  if (const nvmlReturn_t r = driver_answer_locked(); r != NVML_SUCCESS) return r;
  const auto id = object_id(set, HandleKind::kEventSet, generation_);
  if (!id || !event_sets_.contains(*id)) return NVML_ERROR_INVALID_ARGUMENT;
  auto& reg = event_sets_[*id].gpus[gpu];
  reg.since = reg.mask == 0 ? since : std::min(reg.since, since);
  reg.mask |= mask;
  return NVML_SUCCESS;
}

nvmlReturn_t Simulator::event_wait(nvmlEventSet_t set, nvmlEventData_t& data, unsigned timeout_ms) {
  std::unique_lock lock(mutex_);
  if (init_count_ == 0) return NVML_ERROR_UNINITIALIZED;
  if (const nvmlReturn_t r = driver_answer_locked(); r != NVML_SUCCESS) return r;
  const std::uint32_t generation = generation_;
  const auto id = object_id(set, HandleKind::kEventSet, generation);
  if (!id || !event_sets_.contains(*id)) return NVML_ERROR_INVALID_ARGUMENT;
  const auto node = node_;
  const auto& events = node->faults.events();
  // The timeout is scenario time: timeout/time_scale of wall time when scaled, SetTime steps in lockstep.
  const double deadline = elapsed_locked() + timeout_ms / 1000.0;
  for (;;) {
    auto it = event_sets_.find(*id);
    if (it == event_sets_.end()) return NVML_ERROR_INVALID_ARGUMENT;
    EventSetState& st = it->second;
    const double now = elapsed_locked();
    const auto wanted = [&](const SimEvent& ev) {
      auto reg = st.gpus.find(ev.gpu);
      return reg != st.gpus.end() && (reg->second.mask & ev.type) && ev.t >= reg->second.since;
    };
    double next_due = std::numeric_limits<double>::infinity();
    for (std::size_t i = st.next; i < events.size(); ++i) {
      const SimEvent& ev = events[i];
      if (ev.t > now) {
        if (wanted(ev)) {
          next_due = ev.t;
          break;
        }
        continue;
      }
      st.next = i + 1;
      if (!wanted(ev)) continue;
      Call at_event;
      at_event.handle_generation = handle_generation_locked(now);
      data = nvmlEventData_t{gpu_handle(at_event, ev.gpu), ev.type, ev.data, NVML_INVALID_INSTANCE_ID,
                             NVML_INVALID_INSTANCE_ID};
      return NVML_SUCCESS;
    }
    if (const nvmlReturn_t r = driver_answer_locked(); r != NVML_SUCCESS) return r;
    if (now >= deadline) return NVML_ERROR_TIMEOUT;
    if (!wait_until_locked(lock, std::min(deadline, next_due), generation, ParkedKind::kEventWait))
      return NVML_ERROR_UNINITIALIZED;
  }
}

nvmlReturn_t Simulator::event_set_free(nvmlEventSet_t set) {
  std::lock_guard lock(mutex_);
  if (init_count_ == 0) return NVML_ERROR_UNINITIALIZED;
  if (const nvmlReturn_t r = driver_answer_locked(); r != NVML_SUCCESS) return r;
  const auto id = object_id(set, HandleKind::kEventSet, generation_);
  if (!id || event_sets_.erase(*id) == 0) return NVML_ERROR_INVALID_ARGUMENT;
  changed_.notify_all();
  return NVML_SUCCESS;
}

nvmlReturn_t Simulator::gpm_alloc(nvmlGpmSample_t& out) {
  std::lock_guard lock(mutex_);
  if (init_count_ == 0) return NVML_ERROR_UNINITIALIZED;
  if (const nvmlReturn_t r = driver_answer_locked(); r != NVML_SUCCESS) return r;
  const std::uint32_t id = id_locked();
  samples_[id] = GpmSampleState{};
  out = to_handle<nvmlGpmSample_t>(object_fields(HandleKind::kGpmSample, generation_, id));
  return NVML_SUCCESS;
}

nvmlReturn_t Simulator::gpm_free(nvmlGpmSample_t sample) {
  std::lock_guard lock(mutex_);
  if (init_count_ == 0) return NVML_ERROR_UNINITIALIZED;
  if (const nvmlReturn_t r = driver_answer_locked(); r != NVML_SUCCESS) return r;
  const auto id = object_id(sample, HandleKind::kGpmSample, generation_);
  if (!id || samples_.erase(*id) == 0) return NVML_ERROR_INVALID_ARGUMENT;
  return NVML_SUCCESS;
}

nvmlReturn_t Simulator::gpm_store(nvmlGpmSample_t sample, const GpmSampleState& state) {
  std::lock_guard lock(mutex_);
  if (init_count_ == 0) return NVML_ERROR_UNINITIALIZED;
  if (const nvmlReturn_t r = driver_answer_locked(); r != NVML_SUCCESS) return r;
  const auto id = object_id(sample, HandleKind::kGpmSample, generation_);
  if (!id || !samples_.contains(*id)) return NVML_ERROR_INVALID_ARGUMENT;
  samples_[*id] = state;
  return NVML_SUCCESS;
}

nvmlReturn_t Simulator::gpm_load(nvmlGpmSample_t sample, GpmSampleState& state) {
  std::lock_guard lock(mutex_);
  if (init_count_ == 0) return NVML_ERROR_UNINITIALIZED;
  if (const nvmlReturn_t r = driver_answer_locked(); r != NVML_SUCCESS) return r;
  const auto id = object_id(sample, HandleKind::kGpmSample, generation_);
  if (!id || !samples_.contains(*id)) return NVML_ERROR_INVALID_ARGUMENT;
  state = samples_[*id];
  return NVML_SUCCESS;
}

}  // namespace gpuwatch::sim
