// Parsing kernel-log records into KernelEvents. Accepts the /dev/kmsg record format
// ("<prio>,<seq>,<usec>,<flags>;<text>"), dmesg's "[ 123.456789] <text>" and bare text, so recorded logs of
// either kind can be replayed. Records that say nothing about GPUs or PCIe errors give nullopt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sources/kernel_log/kernel_event.h"

namespace gpuwatch::kernel {

std::optional<KernelEvent> parse_kernel_record(std::string_view line);
// A /dev/kmsg record's sequence number, GPU-related or not; 0 for the other formats.
std::uint64_t record_sequence(std::string_view line);

// "0000:3b:00" / "00000000:3B:00.0" / "3b:00.0" -> "0000:3b:00.0"; "" when it is not a PCI address.
std::string normalise_pci_bus_id(std::string_view text);

}  // namespace gpuwatch::kernel
