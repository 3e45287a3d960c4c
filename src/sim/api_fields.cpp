// nvmlDeviceGetFieldValues: each requested field gets its own return code, value type and timestamp.
#include <cmath>

#include "sim/api_support.h"

using namespace gpuwatch::sim;

namespace {

void set_ull(nvmlFieldValue_t& f, double v) {
  f.valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
  f.value.ullVal = static_cast<unsigned long long>(std::max(0.0, v));
}
void set_uint(nvmlFieldValue_t& f, double v) {
  f.valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
  f.value.uiVal = static_cast<unsigned>(std::lround(std::max(0.0, v)));
}

// Per-link NVLink fields: a link id, or NVML_FIELD_SCOPE_ALL for the sum over links.
bool nvlink_scope(nvmlFieldValue_t& f, unsigned links, double per_link) {
  if (links == 0) {
    f.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    return false;
  }
  if (f.scopeId != NVML_FIELD_SCOPE_ALL && f.scopeId >= links) {
    f.nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
    return false;
  }
  set_ull(f, f.scopeId == NVML_FIELD_SCOPE_ALL ? per_link * links : per_link);
  return true;
}

void fill(const Call& c, const GpuReading& r, nvmlFieldValue_t& f) {
  const GpuModel& m = *c.device().model;
  const FaultEffects& faults = c.node->faults;
  f.timestamp = c.micros();
  f.latencyUsec = 0;
  f.nvmlReturn = NVML_SUCCESS;
  f.value.ullVal = 0;
  switch (f.fieldId) {
    case NVML_FI_DEV_ECC_CURRENT:
      set_uint(f, 1);
      break;
    case NVML_FI_DEV_ECC_SBE_VOL_TOTAL:
    case NVML_FI_DEV_ECC_SBE_AGG_TOTAL:
      set_ull(f, static_cast<double>(faults.ecc_corrected(c.gpu, c.t)));
      break;
    case NVML_FI_DEV_ECC_DBE_VOL_TOTAL:
    case NVML_FI_DEV_ECC_DBE_AGG_TOTAL:
      set_ull(f, static_cast<double>(faults.ecc_uncorrected(c.gpu, c.t)));
      break;
    case NVML_FI_DEV_RETIRED_SBE:
    case NVML_FI_DEV_RETIRED_DBE:
    case NVML_FI_DEV_RETIRED_PENDING:
      if (m.row_remapping)
        f.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
      else if (f.fieldId == NVML_FI_DEV_RETIRED_SBE)
        set_ull(f, static_cast<double>(faults.ecc_corrected(c.gpu, c.t) / 2));
      else if (f.fieldId == NVML_FI_DEV_RETIRED_DBE)
        set_ull(f, static_cast<double>(faults.ecc_uncorrected(c.gpu, c.t)));
      else
        set_uint(f, faults.ecc_uncorrected(c.gpu, c.t) > 0 ? 1 : 0);
      break;
    case NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL:
    case NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL:
    case NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL:
    case NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL:
      if (m.nvlinks == 0)
        f.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
      else
        set_ull(f, 0);
      break;
    case NVML_FI_DEV_NVLINK_BANDWIDTH_C0_TOTAL:
    case NVML_FI_DEV_NVLINK_BANDWIDTH_C1_TOTAL:
    case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX:
      nvlink_scope(f, m.nvlinks, r.counters.nvlink_tx_kib);
      break;
    case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX:
      nvlink_scope(f, m.nvlinks, r.counters.nvlink_rx_kib);
      break;
    case NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX:
      nvlink_scope(f, m.nvlinks, r.counters.nvlink_tx_kib * 1.08);
      break;
    case NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX:
      nvlink_scope(f, m.nvlinks, r.counters.nvlink_rx_kib * 1.08);
      break;
    case NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON:
      if (m.nvlinks == 0)
        f.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
      else
        set_uint(f, m.nvlink_speed_mbps);
      break;
    case NVML_FI_DEV_NVLINK_LINK_COUNT:
      set_uint(f, m.nvlinks);
      break;
    case NVML_FI_DEV_MEMORY_TEMP:
      set_uint(f, r.counters.temp_c + 4);
      break;
    case NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION:
    case NVML_FI_DEV_ENERGY:
      set_ull(f, r.counters.energy_mj);
      break;
    case NVML_FI_DEV_PCIE_REPLAY_COUNTER:
    case NVML_FI_DEV_PCIE_COUNT_CORRECTABLE_ERRORS:
      set_ull(f, static_cast<double>(faults.pcie_replays(c.gpu, c.t)));
      break;
    case NVML_FI_DEV_REMAPPED_COR:
    case NVML_FI_DEV_REMAPPED_UNC:
    case NVML_FI_DEV_REMAPPED_PENDING:
    case NVML_FI_DEV_REMAPPED_FAILURE: {
      if (!m.row_remapping) {
        f.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        break;
      }
      const RemapState s = faults.remap(c.gpu, c.t);
      const unsigned values[] = {s.correctable, s.uncorrectable, s.pending ? 1U : 0U, s.failure ? 1U : 0U};
      set_uint(f, values[f.fieldId - NVML_FI_DEV_REMAPPED_COR]);
      break;
    }
    case NVML_FI_DEV_POWER_AVERAGE:
    case NVML_FI_DEV_POWER_INSTANT:
      set_uint(f, r.power_w * 1000);
      break;
    case NVML_FI_DEV_POWER_CURRENT_LIMIT:
      set_uint(f, r.power_limit_w * 1000);
      break;
    default:
      f.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
      break;
  }
}

}  // namespace

extern "C" nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int count, nvmlFieldValue_t* values) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (count <= 0 || !values) return NVML_ERROR_INVALID_ARGUMENT;
    const GpuReading r = c.reading();
    for (int i = 0; i < count; ++i) fill(c, r, values[i]);
    return NVML_SUCCESS;
  });
}
