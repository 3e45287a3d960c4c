// The simulator's model servers as other processes see them: gpuwatchSimService* (exports.h). Serving them
// over HTTP is the caller's part (`gpuwatch sim serve`, src/sim_serve): the library stays free of sockets.
#include <cstring>

#include "sim/api_support.h"
#include "sim/exports.h"

using namespace gpuwatch::sim;

namespace {

const ServiceModel* service(const std::shared_ptr<const Node>& node, unsigned index) {
  if (!node || index >= node->services.size()) return nullptr;
  return node->services[index].get();
}

}  // namespace

extern "C" int gpuwatchSimServiceCount(unsigned* count) {
  return guarded([&]() -> nvmlReturn_t {
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    double t = 0;
    const auto node = sim().node_at(t);
    if (!node) return NVML_ERROR_UNINITIALIZED;
    *count = static_cast<unsigned>(node->services.size());
    return NVML_SUCCESS;
  });
}

extern "C" int gpuwatchSimServiceInfo(unsigned index, unsigned* port, unsigned* pid, char* kind,
                                      unsigned kind_len) {
  return guarded([&]() -> nvmlReturn_t {
    double t = 0;
    const auto node = sim().node_at(t);
    if (!node) return NVML_ERROR_UNINITIALIZED;
    const ServiceModel* s = service(node, index);
    if (!s) return NVML_ERROR_INVALID_ARGUMENT;
    if (port) *port = s->spec().port;
    if (pid) *pid = s->spec().pid;
    if (kind) {
      const std::string_view k = to_string(s->spec().kind);
      if (kind_len <= k.size()) return NVML_ERROR_INSUFFICIENT_SIZE;
      std::memcpy(kind, k.data(), k.size());
      kind[k.size()] = '\0';
    }
    return NVML_SUCCESS;
  });
}

extern "C" int gpuwatchSimServiceMetrics(unsigned index, char* buf, unsigned len, unsigned* needed) {
  return guarded([&]() -> nvmlReturn_t {
    if (!needed) return NVML_ERROR_INVALID_ARGUMENT;
    double t = 0, wall_per_second = 1;
    const auto node = sim().node_at(t, wall_per_second);
    if (!node) return NVML_ERROR_UNINITIALIZED;
    const ServiceModel* s = service(node, index);
    if (!s) return NVML_ERROR_INVALID_ARGUMENT;
    if (s->at(t).refused) return NVML_ERROR_GPU_IS_LOST;
    const std::string text = render_service_metrics(*s, t, wall_per_second);
    *needed = static_cast<unsigned>(text.size() + 1);
    if (!buf || len < text.size() + 1) return NVML_ERROR_INSUFFICIENT_SIZE;
    std::memcpy(buf, text.data(), text.size() + 1);
    return NVML_SUCCESS;
  });
}
