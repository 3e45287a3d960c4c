// A scenario as the simulator uses it, after loading and validation: the node, its GPUs, the processes
// on them and the timed faults. All times are seconds of scenario time since the scenario's start.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/gpu_models.h"

namespace gpuwatch::sim {

struct ServiceSpec;

constexpr double kForever = std::numeric_limits<double>::infinity();

// A value over time: piecewise segments (each holds from `at`, reached linearly over `ramp`), plus
// periodic waves, plus deterministic noise, clamped to [min, max].
struct Segment {
  double at = 0;
  double value = 0;
  double ramp = 0;
};
enum class Wave { kSine, kSquare, kSawtooth };
struct Periodic {
  double period = 60;
  double amplitude = 0;
  double phase = 0;  // seconds
  Wave wave = Wave::kSine;
};
struct Shape {
  std::vector<Segment> segments;
  std::vector<Periodic> periodic;
  double noise = 0;
  double min = 0;
  double max = std::numeric_limits<double>::infinity();
  bool set = false;  // false when the scenario did not give this shape
};

struct MigInstance {
  const MigProfile* profile = nullptr;
  unsigned gpu_instance_id = 0;
};

struct DeviceSpec {
  const GpuModel* model = nullptr;
  unsigned long long memory_bytes = 0;
  double power_limit_w = 0;
  unsigned pcie_gen = 0;
  unsigned pcie_width = 0;
  bool mig_enabled = false;
  std::vector<MigInstance> mig;
  Shape utilization;  // percent
  Shape memory;       // bytes used besides the listed processes
};

enum class ProcessType { kCompute, kGraphics };
enum class ProcessExit { kNormal, kOom, kKilled };

struct ProcessSpec {
  unsigned pid = 0;
  unsigned ppid = 1;
  unsigned gpu = 0;
  int mig = -1;  // instance index on that GPU, -1 for the whole GPU
  std::string name;
  std::vector<std::string> cmdline;
  double start = 0;
  double stop = kForever;
  Shape memory;   // bytes
  Shape sm_util;  // percent
  // Bytes per second the process asks to move over PCIe, host to device and device to host. While the
  // GPU's switch uplink cannot carry all its GPUs ask for, each gets its share, and the process's
  // utilization falls with it (its kernels wait for the data).
  Shape pcie_rx, pcie_tx;
  ProcessType type = ProcessType::kCompute;
  // Who runs it: the uid goes into the fake /proc/<pid>/status, a named user into the tree's passwd file. A
  // user named without a uid gets the first free one from 1001 up; a process with neither runs as uid 1000.
  std::string user;
  unsigned uid = 1000;
  std::string cgroup;
  // Workloads (pods_loader.cpp): the pod and container it runs in, or its Slurm job; either gives it the
  // cgroup path the runtime or slurmd would (unless `cgroup` is given).
  std::string pod;
  std::string container;
  std::string slurm_job;
  std::vector<std::string> libraries;
  ProcessExit exit = ProcessExit::kNormal;
};

enum class FaultKind {
  kThermalThrottle,
  kPowerCap,
  kMemoryLeak,
  kProcessOom,
  kXid,
  kFallOffBus,
  kEccSbe,
  kEccDbe,
  kRowRemap,
  kPcieReplays,
  kLinkDowntrain,
  kHungCall,
  kDriverHang,
  kDriverReload,
  kDriverUnload,
  kMigReconfigure,
};

struct Fault {
  FaultKind kind = FaultKind::kXid;
  int gpu = -1;  // -1 only for the node-wide faults (driver_hang, driver_reload, driver_unload)
  double at = 0;
  double duration = kForever;
  double rate = 0;     // per second: bytes (leak, oom) or counts (ecc_sbe, pcie_replays)
  unsigned code = 0;   // xid
  unsigned pid = 0;    // memory_leak, process_oom, optional for xid
  double limit_w = 0;  // power_cap
  bool brake = false;  // power_cap: hardware power brake
  unsigned width = 0;  // link_downtrain
  unsigned gen = 0;    // link_downtrain
  unsigned correctable = 0, uncorrectable = 0;  // row_remap
  bool pending = false, failure = false;        // row_remap
  unsigned count = 1;                           // ecc_dbe
  std::string new_driver_version;               // driver_reload, driver_unload: "" keeps the version
  std::vector<MigInstance> instances;           // mig_reconfigure: the GPU's MIG instances from `at` on
  double end() const { return at + duration; }
  bool active(double t) const { return t >= at && t < end(); }
};

// A PCIe switch: the GPUs below it share its one uplink to the CPU's root port.
struct PcieSwitch {
  std::vector<unsigned> gpus;  // GPU indices
  unsigned uplink_gen = 0;     // the uplink's generation and width
  unsigned uplink_width = 0;
};

struct NodeSpec {
  std::string hostname = "sim-node";
  std::string driver_version = "550.54.15";
  int cuda_driver_version = 12040;
  std::string nvml_version = "12.550.54.15";
  std::uint64_t seed = 1;
  double time_scale = 1;
  bool lockstep = false;
  std::optional<double> start_unix;
  // "start: now-7d": the scenario began this many seconds before the simulator loaded it, so that a lockstep
  // run catches up to the wall clock and its history ends at now.
  std::optional<double> start_ago;
};

// A pod the scenario's kubelet lists (gpuwatchSimPodResources, for a fake kubelet): each container with the
// GPUs or MIG instances the device plugin allocated to it, whether or not a process runs there.
struct PodDevice {
  unsigned gpu = 0;
  int mig = -1;  // instance index on that GPU, -1 for the whole GPU
};
struct PodContainerSpec {
  std::string name;
  std::vector<PodDevice> devices;
};
struct PodSpec {
  std::string name;
  std::string namespace_name = "default";
  std::string uid;  // the pod's UID; made from the seed, namespace, name and start when not given
  std::vector<PodContainerSpec> containers;
  // Scenario seconds while the kubelet lists it. A pod moved to other GPUs is the same name listed again
  // with a later start (a recreated pod: a new UID).
  double start = 0;
  double stop = kForever;
  bool active(double t) const { return t >= start && t < stop; }
};

struct Scenario {
  std::string source;  // file name, or "built-in"
  NodeSpec node;
  std::vector<DeviceSpec> devices;
  std::vector<PcieSwitch> pcie_switches;  // GPUs in none sit directly below a root port
  std::vector<ProcessSpec> processes;
  std::vector<Fault> faults;
  // Model servers (sim/service_spec.h: its own file, as it needs the shapes above); null when none.
  std::shared_ptr<const std::vector<ServiceSpec>> services;
  std::vector<PodSpec> pods;
};

}  // namespace gpuwatch::sim
