// What the kernel log says about GPUs: one parsed record of /dev/kmsg (or of a recorded copy of it).
// NVML's XID events carry no process; the kernel's `NVRM: Xid` lines do, and they stay in the ring buffer, so
// XIDs from before the agent started (or while NVML was lost) are known too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gpuwatch::kernel {

enum class KernelEventKind : std::uint8_t {
  kXid,             // NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, ...
  kFallenOffBus,    // NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.
  kAerCorrected,    // ... AER: Corrected error received / PCIe Bus Error: severity=Corrected
  kAerUncorrected,  // ... AER: Uncorrected (Non-Fatal|Fatal) error received / severity=Uncorrected
  kDriverLoaded,    // NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15 ...
  kDriverUnloaded,  // nvidia-nvlink: Unregistered Nvlink Core ...
};

struct KernelEvent {
  KernelEventKind kind = KernelEventKind::kXid;
  std::uint64_t sequence = 0;   // the record's kmsg sequence number; 0 when the line had none
  std::int64_t boot_usec = -1;  // microseconds since boot from the record; -1 when unknown
  std::string pci_bus_id;       // normalised "0000:3b:00.0"; "" when the message names no device
  unsigned xid = 0;             // kXid
  std::optional<unsigned> pid;  // kXid, when the driver knew it
  std::string process;          // kXid, "" when the driver did not know it
  std::string driver_version;   // kDriverLoaded
  bool before_start = false;    // read from the ring buffer on the first poll: logged before we looked
  std::string message;          // the record's text
};

const char* to_string(KernelEventKind kind);

}  // namespace gpuwatch::kernel
