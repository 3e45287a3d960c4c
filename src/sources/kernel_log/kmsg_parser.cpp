#include "sources/kernel_log/kmsg_parser.h"

#include <cctype>
#include <charconv>
#include <vector>

#include <re2/re2.h>

#include "core/label_matcher.h"
#include "core/utf8.h"

namespace gpuwatch::kernel {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

template <typename T>
std::optional<T> number(std::string_view s) {
  T value{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

}  // namespace

KernelRecord split_kernel_record(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  KernelRecord record;
  record.text = line;
  // /dev/kmsg: "6,1234,5678901,-;text" (fields after the third are optional flags)
  const auto semi = line.find(';');
  if (semi != std::string_view::npos && semi > 0 && std::isdigit(static_cast<unsigned char>(line[0]))) {
    std::string_view header = line.substr(0, semi);
    std::string_view fields[4];
    int n = 0;
    while (n < 4) {
      const auto comma = header.find(',');
      fields[n++] = header.substr(0, comma);
      if (comma == std::string_view::npos) break;
      header.remove_prefix(comma + 1);
    }
    if (n >= 3 && number<unsigned>(fields[0])) {
      record.sequence = number<std::uint64_t>(fields[1]).value_or(0);
      record.boot_usec = number<std::int64_t>(fields[2]).value_or(-1);
      record.text = line.substr(semi + 1);
      return record;
    }
  }
  // dmesg: "[  123.456789] text"
  if (line.starts_with('[')) {
    const auto close = line.find(']');
    if (close != std::string_view::npos) {
      std::string_view stamp = line.substr(1, close - 1);
      while (!stamp.empty() && stamp.front() == ' ') stamp.remove_prefix(1);
      const auto dot = stamp.find('.');
      if (dot != std::string_view::npos) {
        auto secs = number<std::int64_t>(stamp.substr(0, dot));
        auto frac = number<std::int64_t>(stamp.substr(dot + 1));
        if (secs && frac && stamp.size() - dot - 1 == 6) record.boot_usec = *secs * 1000000 + *frac;
      }
      line.remove_prefix(close + 1);
      while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
      record.text = line;
    }
  }
  return record;
}

namespace {

bool parse_xid(const std::string& text, KernelEvent& ev) {
  // NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.
  // Older drivers: NVRM: Xid (PCI:0000:3b:00): 13, Graphics SM Warp Exception ...
  // pid may be '<unknown>' and name <unknown> when the driver could not tell.
  static const auto kXid = compile_regex(R"(NVRM: Xid \((?:PCI:)?([0-9A-Fa-f:.]+)\): (\d+),\s*(.*))");
  static const auto kPid = compile_regex(R"(^pid=([^,]*), name=([^,]*),\s*(.*))");
  std::string bus, xid, rest;
  if (!re2::RE2::PartialMatch(text, *kXid, &bus, &xid, &rest)) return false;
  ev.kind = KernelEventKind::kXid;
  ev.pci_bus_id = normalise_pci_bus_id(bus);
  ev.xid = number<unsigned>(xid).value_or(0);
  std::string pid, name;
  if (re2::RE2::PartialMatch(rest, *kPid, &pid, &name)) {
    ev.pid = number<unsigned>(pid);
    if (name != "<unknown>") ev.process = name;
  }
  return true;
}

bool parse_fallen_off(const std::string& text, KernelEvent& ev) {
  if (text.find("fallen off the bus") == std::string::npos) return false;
  // NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.  /  NVRM: GPU at PCI:0000:3b:00: GPU-...
  static const auto kBus =
      compile_regex(R"((?:GPU at PCI:|GPU )([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.\d)?))");
  ev.kind = KernelEventKind::kFallenOffBus;
  std::string bus;
  if (re2::RE2::PartialMatch(text, *kBus, &bus)) ev.pci_bus_id = normalise_pci_bus_id(bus);
  return true;
}

bool parse_aer(const std::string& text, KernelEvent& ev) {
  if (text.find("AER:") == std::string::npos && text.find("PCIe Bus Error") == std::string::npos)
    return false;
  const std::string low = lower(text);
  if (low.find("uncorrected") != std::string::npos || low.find("severity=fatal") != std::string::npos)
    ev.kind = KernelEventKind::kAerUncorrected;
  else if (low.find("corrected") != std::string::npos)
    ev.kind = KernelEventKind::kAerCorrected;
  else
    return false;
  // The device in error: "error received: 0000:3b:00.0" names it; else the message's own device prefix
  // ("nvidia 0000:3b:00.0: PCIe Bus Error ...").
  static const auto kReceived =
      compile_regex(R"(error received: ([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d))");
  static const auto kPrefix = compile_regex(R"(^\S+ ([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d): )");
  std::string bus;
  if (re2::RE2::PartialMatch(text, *kReceived, &bus) || re2::RE2::PartialMatch(text, *kPrefix, &bus))
    ev.pci_bus_id = normalise_pci_bus_id(bus);
  return true;
}

bool parse_driver(const std::string& text, KernelEvent& ev) {
  static const auto kLoad = compile_regex(R"(NVRM: loading NVIDIA UNIX \S+ Kernel Module\s+(\S+))");
  std::string version;
  if (re2::RE2::PartialMatch(text, *kLoad, &version)) {
    ev.kind = KernelEventKind::kDriverLoaded;
    ev.driver_version = version;
    return true;
  }
  if (text.find("nvidia-nvlink: Unregistered Nvlink Core") != std::string::npos ||
      text.find("NVRM: NVIDIA kernel module unloaded") != std::string::npos) {
    ev.kind = KernelEventKind::kDriverUnloaded;
    return true;
  }
  return false;
}

}  // namespace

std::string normalise_pci_bus_id(std::string_view text) {
  // Parts: [domain:]bus:device[.function], hexadecimal.
  std::vector<std::string_view> parts;
  for (std::string_view rest = text;;) {
    const auto colon = rest.find(':');
    parts.push_back(rest.substr(0, colon));
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  if (parts.size() < 2 || parts.size() > 3) return "";
  const bool has_domain = parts.size() == 3;
  std::string_view domain = has_domain ? parts[0] : "0000";
  std::string_view bus = parts[has_domain ? 1 : 0];
  std::string_view devfn = parts[has_domain ? 2 : 1];
  std::string_view function = "0";
  if (const auto dot = devfn.find('.'); dot != std::string_view::npos) {
    function = devfn.substr(dot + 1);
    devfn = devfn.substr(0, dot);
  }
  auto hex = [](std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;
  };
  if (!hex(domain) || !hex(bus) || !hex(devfn) || !hex(function) || bus.size() > 2 || devfn.size() > 2 ||
      domain.size() > 8)
    return "";
  while (domain.size() > 4 && domain.front() == '0') domain.remove_prefix(1);  // NVML pads to 8 digits
  std::string out = lower(domain);
  while (out.size() < 4) out.insert(out.begin(), '0');
  auto pad2 = [&](std::string_view s) { return (s.size() < 2 ? "0" : "") + lower(s); };
  return out + ":" + pad2(bus) + ":" + pad2(devfn) + "." + lower(function);
}

std::optional<KernelEvent> parse_kernel_record(const KernelRecord& record) {
  const std::string_view raw = record.text;
  // Nearly every record is about something else: they are told apart by ASCII words, which read the same
  // before and after the text is made valid, so only the few that may matter are copied.
  if (raw.find("NVRM") == std::string_view::npos && raw.find("AER") == std::string_view::npos &&
      raw.find("PCIe Bus Error") == std::string_view::npos && raw.find("nvidia") == std::string_view::npos)
    return std::nullopt;
  KernelEvent ev;
  ev.sequence = record.sequence;
  ev.boot_usec = record.boot_usec;
  // Kernel-log text quotes process names and device strings byte for byte: made valid once, here, so the
  // message, process and driver version taken from it are too.
  const std::string text = to_valid_utf8(raw);
  ev.message = text;
  if (parse_xid(text, ev) || parse_fallen_off(text, ev) || parse_driver(text, ev) || parse_aer(text, ev))
    return ev;
  return std::nullopt;
}

std::optional<KernelEvent> parse_kernel_record(std::string_view line) {
  // Continuation lines of /dev/kmsg records (" SUBSYSTEM=pci") carry key=value context, no message.
  if (line.empty() || line.front() == ' ') return std::nullopt;
  return parse_kernel_record(split_kernel_record(line));
}

const char* to_string(KernelEventKind kind) {
  switch (kind) {
    case KernelEventKind::kXid:
      return "xid";
    case KernelEventKind::kFallenOffBus:
      return "fallen_off_bus";
    case KernelEventKind::kAerCorrected:
      return "aer_corrected";
    case KernelEventKind::kAerUncorrected:
      return "aer_uncorrected";
    case KernelEventKind::kDriverLoaded:
      return "driver_loaded";
    case KernelEventKind::kDriverUnloaded:
      return "driver_unloaded";
  }
  return "unknown";
}

}  // namespace gpuwatch::kernel
