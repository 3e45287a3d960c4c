// Watches the directory of a socket with inotify (the directory, not the socket: a restarted kubelet
// removes its socket and creates a new one, which a watch on the old file would never see). changed() says,
// without blocking, whether the socket was created, removed or replaced since the last call.
#pragma once

#include <string>

#include "core/unique_fd.h"

namespace gpuwatch::kubelet {

class SocketWatch {
 public:
  explicit SocketWatch(const std::string& socket_path);
  // True when the socket's name came or went since the last call (and on the first call). Where the
  // directory cannot be watched (it does not exist yet), it is tried again on each call and true is returned
  // every time, so the caller reconnects rather than trusting a stale channel.
  bool changed();

 private:
  void arm();
  std::string directory_;
  std::string name_;
  UniqueFd fd_;
  bool watching_ = false;
  bool first_ = true;
};

}  // namespace gpuwatch::kubelet
