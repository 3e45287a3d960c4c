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

// A record's header fields and its text (a view into the line, without the line's end).
struct KernelRecord {
  std::uint64_t sequence = 0;   // /dev/kmsg's sequence number; 0 for the other formats
  std::int64_t boot_usec = -1;  // -1 when the line says no time
  std::string_view text;
};
KernelRecord split_kernel_record(std::string_view line);

// The event a record tells of, from its text, with the record's sequence number and time.
std::optional<KernelEvent> parse_kernel_record(const KernelRecord& record);
// The same for a whole line; continuation lines (" KEY=value") give nullopt.
std::optional<KernelEvent> parse_kernel_record(std::string_view line);

// "0000:3b:00" / "00000000:3B:00.0" / "3b:00.0" -> "0000:3b:00.0"; "" when it is not a PCI address.
std::string normalise_pci_bus_id(std::string_view text);

}  // namespace gpuwatch::kernel
