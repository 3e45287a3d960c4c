// Frames from a running agent (`top --url`): a thread of its own asks the agent's /api/v1/gpus and
// /api/v1/alerts every interval, so a slow or gone agent never holds the screen: the last frame stays, with
// a problem saying what the agent answered.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "cli/top/frame.h"
#include "cli/top/wakeup.h"
#include "collector/abandonable_worker.h"
#include "net/url.h"

namespace gpuwatch::top {

class AgentSource : public FrameSource {
 public:
  // `agent`: the agent's URL, its path a prefix of the API's ("/" or "/x"); its credentials, if any, go
  // with every request. `wakeup` is notified with each frame, from the polling thread.
  AgentSource(net::Url agent, std::chrono::milliseconds interval, std::shared_ptr<const Wakeup> wakeup);
  FramePtr latest() override;

  struct Shared;  // what the polling thread and the source share (agent_source.cpp)

 private:
  std::shared_ptr<Shared> shared_;  // with the polling thread, which may outlive this source
  std::unique_ptr<AbandonableWorker> worker_;
};

}  // namespace gpuwatch::top
