#include "sources/kubelet/dra_device.h"

#include <charconv>

namespace gpuwatch::kubelet {
namespace {

constexpr std::string_view kNvidiaGpuKind = "nvidia.com/gpu";
constexpr std::string_view kNvidiaDraDriver = "gpu.nvidia.com";

std::optional<unsigned> number(std::string_view text) {
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool is_uuid(std::string_view name) {
  return name.size() > 4 && (name.substr(0, 4) == "GPU-" || name.substr(0, 4) == "MIG-");
}

}  // namespace

std::optional<GpuReference> gpu_of_cdi_device(std::string_view cdi_name) {
  const auto eq = cdi_name.find('=');
  const std::string_view kind = eq == std::string_view::npos ? std::string_view{} : cdi_name.substr(0, eq);
  const std::string_view name = eq == std::string_view::npos ? cdi_name : cdi_name.substr(eq + 1);
  if (is_uuid(name)) return GpuReference{std::string(name), std::nullopt, std::nullopt};
  if (kind != kNvidiaGpuKind) return std::nullopt;
  const auto colon = name.find(':');
  if (colon == std::string_view::npos) {
    if (const auto index = number(name)) return GpuReference{"", index, std::nullopt};
    return std::nullopt;  // "all", or a name of the admin's own
  }
  const auto gpu = number(name.substr(0, colon));
  const auto mig = number(name.substr(colon + 1));
  if (!gpu || !mig) return std::nullopt;
  return GpuReference{"", gpu, mig};
}

std::optional<GpuReference> gpu_of_claim(const ClaimAllocation& claim) {
  for (const auto& cdi : claim.cdi_devices) {
    if (auto gpu = gpu_of_cdi_device(cdi)) return gpu;
  }
  const std::string_view device = claim.device;
  if (is_uuid(device)) return GpuReference{claim.device, std::nullopt, std::nullopt};
  if (claim.driver == kNvidiaDraDriver && device.substr(0, 4) == "gpu-") {
    if (const auto index = number(device.substr(4))) return GpuReference{"", index, std::nullopt};
  }
  return std::nullopt;
}

}  // namespace gpuwatch::kubelet
