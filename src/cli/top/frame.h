// What one redraw of `gpuwatch top` shows: the GPUs of one snapshot with each one's health verdict, the
// workload of each process, the alerts that hold, and where it all came from. A frame is immutable once a
// source publishes it; the drawing thread only reads frames, so a source that waits (a hung GPU, a slow
// agent) never stops the screen.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/top/gpu_history.h"
#include "core/snapshot.h"
#include "rules/health.h"

namespace gpuwatch::top {

struct TopAlert {
  std::string state;                 // "firing" or "pending"
  std::string severity;              // "page" or "ticket"
  std::string name;                  // the alertname
  std::string gpu;                   // the gpu label; "" for a node-wide alert
  std::int64_t active_since_ms = 0;  // wall clock; 0 when unknown
  std::string summary;
};

struct TopFrame {
  SnapshotPtr snapshot;          // never null in a published frame
  std::vector<Health> health;    // one per snapshot->devices, in the same order
  std::vector<TopAlert> alerts;  // firing first, then pending
  std::string origin;            // "agent http://..." or "NVML <library>"
  std::string problem;  // why this frame's readings are old (the agent did not answer); "" when fresh
  std::int64_t received_ms = 0;  // wall clock when the source got the snapshot
  // What the source knew from before its first snapshot (an agent's history), by GPU UUID; null when nothing.
  std::shared_ptr<const std::map<std::string, GpuHistory>> earlier;
};

using FramePtr = std::shared_ptr<const TopFrame>;

// Firing before pending, pages before tickets, the longest held first: what to look at first, at the top.
void sort_alerts(std::vector<TopAlert>& alerts);

// Where frames come from: the GPUs read in this process, or a running agent. latest() never blocks on a
// device or the network: it returns the newest frame there is (null before the first).
class FrameSource {
 public:
  virtual ~FrameSource() = default;
  virtual FramePtr latest() = 0;
};

}  // namespace gpuwatch::top
