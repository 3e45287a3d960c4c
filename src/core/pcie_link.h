// What a PCIe link can carry: its transfer rate per lane (GT/s) times its lanes, less the line encoding
// (8b/10b up to Gen2, 128b/130b for Gen3 to Gen5, FLIT mode with 242/256 from Gen6 on). Per direction; a
// link carries this much each way at once. Packet headers take a further 10-20% in practice, which callers
// allow for in their thresholds rather than here.
#pragma once

namespace gpuwatch {

// Transfer rate per lane in GT/s of a PCIe generation (1-6); 0 for an unknown one.
constexpr double pcie_gen_transfer_rate(unsigned gen) {
  constexpr double kRates[] = {0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  return gen < sizeof kRates / sizeof kRates[0] ? kRates[gen] : 0;
}

// The generation whose per-lane rate `gt_per_s` is; 0 for none.
constexpr unsigned pcie_generation(double gt_per_s) {
  for (unsigned gen = 1; gen <= 6; ++gen)
    if (gt_per_s > 0.9 * pcie_gen_transfer_rate(gen) && gt_per_s < 1.1 * pcie_gen_transfer_rate(gen))
      return gen;
  return 0;
}

// Bytes per second one direction of a link carries at `gt_per_s` per lane over `width` lanes.
constexpr double pcie_link_bytes_per_second(double gt_per_s, unsigned width) {
  const double encoding = gt_per_s <= 5.0 ? 8.0 / 10 : gt_per_s < 64.0 ? 128.0 / 130 : 242.0 / 256;
  return gt_per_s * 1e9 * encoding * width / 8;
}

}  // namespace gpuwatch
