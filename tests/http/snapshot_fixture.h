// Hand-built snapshots for the renderer tests: the renderers' input is a Snapshot, so tests build one
// directly.
#pragma once

#include "core/snapshot.h"

namespace gpuwatch::testing {

// A node of H200-like GPUs with every catalogue metric filled: GPU 0 and 1 healthy and busy (GPU 1 has seen
// XID 79 and 31), GPU 2 stale (a hung call; its last values are kept), GPU 3 lost (fell off the bus).
// Process names include a quote, a backslash and a line feed, to exercise escaping. GPU 0's processes run as
// alice (uid 1000, with its command line) and as uid 1001, which the host's passwd does not name.
Snapshot h200_node(std::uint64_t sequence = 7);

// One complete, healthy H200 with every catalogue device metric (the dcgm coverage test needs them all).
DeviceSnapshot full_h200(unsigned index);

}  // namespace gpuwatch::testing
