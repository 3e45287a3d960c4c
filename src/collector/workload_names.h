// Names for the workloads on each GPU, from the host reading into the snapshot: the pod and container the
// kubelet allocated each GPU or MIG instance to (by the device plugin, or by a DRA claim:
// sources/kubelet/dra_device.h), the batch jobs of the scheduler's job mapping (the GPU's
// holders, with or without processes), and for each process its pod, namespace and container (its GPU's
// one holder; a GPU shared by several containers names none, as no process can be told apart) and its
// Slurm job (its cgroup's, else its GPU's one job in the mapping).
#pragma once

#include <string_view>

#include "core/snapshot.h"
#include "sources/host/host_snapshot.h"

namespace gpuwatch {

void add_workload_names(const HostSnapshot& host, Snapshot& snap);

// A device plugin's id for a GPU without its replica suffix: time-slicing lists "GPU-<uuid>::<n>".
std::string_view device_id_uuid(std::string_view device_id);

}  // namespace gpuwatch
