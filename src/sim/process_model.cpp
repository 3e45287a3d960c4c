#include "sim/process_model.h"

#include <algorithm>
#include <cmath>

#include "core/pcie_link.h"
#include "sim/shape.h"

namespace gpuwatch::sim {
namespace {

constexpr double kDefaultProcessBytes = 1024.0 * 1024 * 1024;
constexpr double kOomSearchSeconds = 7 * 24 * 3600.0;

}  // namespace

ProcessModel::ProcessModel(const Scenario& scenario)
    : scenario_(scenario), switch_of_(scenario.devices.size(), -1), by_gpu_(scenario.devices.size()) {
  for (std::size_t s = 0; s < scenario.pcie_switches.size(); ++s)
    for (unsigned gpu : scenario.pcie_switches[s].gpus) switch_of_[gpu] = static_cast<int>(s);
  for (std::size_t i = 0; i < scenario.processes.size(); ++i) {
    by_gpu_[scenario.processes[i].gpu].push_back(i);
    end_.push_back(scenario.processes[i].stop);
  }
  // A process under process_oom ends at the first second its climbing memory fills the card (or its MIG
  // instance). Found by a fixed one-second scan from the fault's start, so it depends on the scenario only.
  for (const auto& f : scenario.faults) {
    if (f.kind != FaultKind::kProcessOom) continue;
    for (std::size_t i = 0; i < size(); ++i) {
      if (spec(i).pid != f.pid) continue;
      const unsigned gpu = spec(i).gpu;
      const int inst = spec(i).mig;
      const double total =
          inst < 0 ? static_cast<double>(scenario.devices[gpu].memory_bytes) : instance_capacity(gpu, inst);
      for (double t = f.at; t < f.at + kOomSearchSeconds && t < end_[i]; t += 1) {
        if ((inst < 0 ? raw_gpu_memory(gpu, t) : raw_instance_memory(gpu, inst, t)) >= total) {
          end_[i] = t;
          break;
        }
      }
    }
  }
}

bool ProcessModel::alive(std::size_t i, double t) const {
  return t >= spec(i).start && t < end_[i];
}

double ProcessModel::raw_memory(std::size_t i, double t) const {
  const ProcessSpec& p = spec(i);
  double bytes =
      p.memory.set ? eval_shape(p.memory, t, scenario_.node.seed, 0x100000 + p.pid) : kDefaultProcessBytes;
  for (const auto& f : scenario_.faults) {
    if (f.pid != p.pid || t < f.at) continue;
    if (f.kind == FaultKind::kMemoryLeak) bytes += f.rate * (std::min(t, f.end()) - f.at);
    if (f.kind == FaultKind::kProcessOom) bytes += f.rate * (t - f.at);
  }
  return bytes;
}

double ProcessModel::memory(std::size_t i, double t) const {
  return alive(i, t) ? raw_memory(i, t) : 0;
}

double ProcessModel::raw_gpu_memory(unsigned gpu, double t) const {
  const DeviceSpec& dev = scenario_.devices[gpu];
  double used = kDriverReservedBytes + static_cast<double>(dev.mig.size()) * kInstanceReservedBytes;
  used += eval_shape(dev.memory, t, scenario_.node.seed, 0x200000 + gpu);
  for (std::size_t i : by_gpu_[gpu]) used += memory(i, t);
  return used;
}

double ProcessModel::gpu_memory_used(unsigned gpu, double t) const {
  return std::min(raw_gpu_memory(gpu, t), static_cast<double>(scenario_.devices[gpu].memory_bytes));
}

double ProcessModel::instance_capacity(unsigned gpu, int inst) const {
  return scenario_.devices[gpu].mig[static_cast<std::size_t>(inst)].profile->memory_mib * 1024.0 * 1024.0;
}

double ProcessModel::raw_instance_memory(unsigned gpu, int inst, double t) const {
  double used = kInstanceReservedBytes;
  for (std::size_t i : by_gpu_[gpu])
    if (spec(i).mig == inst) used += memory(i, t);
  return used;
}

double ProcessModel::instance_memory_used(unsigned gpu, int inst, double t) const {
  return std::min(raw_instance_memory(gpu, inst, t), instance_capacity(gpu, inst));
}

double ProcessModel::gpu_utilization(unsigned gpu, double t) const {
  const DeviceSpec& dev = scenario_.devices[gpu];
  if (dev.utilization.set) return eval_shape(dev.utilization, t, scenario_.node.seed, 0x300000 + gpu);
  double sum = 0;
  for (std::size_t i : by_gpu_[gpu])
    if (spec(i).sm_util.set && alive(i, t)) sum += raw_sm_util(i, t) * input_share(i, t);
  return std::min(100.0, sum);
}

double ProcessModel::raw_sm_util(std::size_t i, double t) const {
  return eval_shape(spec(i).sm_util, t, scenario_.node.seed, 0x400000 + spec(i).pid);
}

double ProcessModel::pcie_demand(unsigned gpu, PcieDirection dir, double t) const {
  double sum = 0;
  for (std::size_t i : by_gpu_[gpu]) {
    const ProcessSpec& p = spec(i);
    const Shape& shape = dir == PcieDirection::kToDevice ? p.pcie_rx : p.pcie_tx;
    const std::uint64_t salt = (dir == PcieDirection::kToDevice ? 0x900000 : 0xa00000) + p.pid;
    if (shape.set && alive(i, t)) sum += eval_shape(shape, t, scenario_.node.seed, salt);
  }
  return sum;
}

double ProcessModel::pcie_share(unsigned gpu, PcieDirection dir, double t) const {
  if (switch_of_[gpu] < 0) return 1;
  const PcieSwitch& sw = scenario_.pcie_switches[static_cast<std::size_t>(switch_of_[gpu])];
  const double base =
      dir == PcieDirection::kToDevice ? kPcieBaseToDeviceAtFullLoad : kPcieBaseFromDeviceAtFullLoad;
  const double carried = kPciePayloadEfficiency *
                         pcie_link_bytes_per_second(pcie_gen_transfer_rate(sw.uplink_gen), sw.uplink_width);
  const double available = std::max(0.0, carried - base * static_cast<double>(sw.gpus.size()));
  double asked = 0;
  for (unsigned g : sw.gpus) asked += pcie_demand(g, dir, t);
  return asked > available ? available / asked : 1;
}

double ProcessModel::input_share(std::size_t i, double t) const {
  const ProcessSpec& p = spec(i);
  double share = 1;
  if (p.pcie_rx.set) share = std::min(share, pcie_share(p.gpu, PcieDirection::kToDevice, t));
  if (p.pcie_tx.set) share = std::min(share, pcie_share(p.gpu, PcieDirection::kFromDevice, t));
  return share;
}

double ProcessModel::sm_util(std::size_t i, double t) const {
  if (!alive(i, t)) return 0;
  const ProcessSpec& p = spec(i);
  if (p.sm_util.set) return raw_sm_util(i, t) * input_share(i, t);
  // Without its own shape a process gets an equal share of its GPU's utilization.
  unsigned running = 0;
  for (std::size_t j : by_gpu_[p.gpu]) running += alive(j, t) ? 1 : 0;
  return gpu_utilization(p.gpu, t) / std::max(1U, running);
}

}  // namespace gpuwatch::sim
