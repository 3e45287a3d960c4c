#include "sources/kubelet/socket_watch.h"

#include <sys/inotify.h>

#include <array>
#include <cstring>
#include <filesystem>

namespace gpuwatch::kubelet {

SocketWatch::SocketWatch(const std::string& socket_path) {
  const std::filesystem::path p(socket_path);
  directory_ = p.parent_path().string();
  name_ = p.filename().string();
  fd_ = UniqueFd(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  arm();
}

void SocketWatch::arm() {
  if (!fd_ || watching_) return;
  watching_ = ::inotify_add_watch(
                  fd_.get(), directory_.c_str(),
                  IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF) >= 0;
}

bool SocketWatch::changed() {
  bool changed = std::exchange(first_, false);
  if (!watching_) {
    arm();
    return true;
  }
  alignas(inotify_event) std::array<char, 4096> buffer{};
  for (;;) {
    const ssize_t n = ::read(fd_.get(), buffer.data(), buffer.size());
    if (n <= 0) break;
    for (ssize_t at = 0; at < n;) {
      inotify_event event{};
      std::memcpy(&event, buffer.data() + at, sizeof event);
      const char* name = buffer.data() + at + sizeof(inotify_event);
      if (event.mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
        watching_ = false;  // the directory itself went: watch it again once it is back
        changed = true;
      } else if (event.len > 0 && name_ == name) {
        changed = true;
      }
      at += static_cast<ssize_t>(sizeof(inotify_event) + event.len);
    }
  }
  if (!watching_) arm();
  return changed;
}

}  // namespace gpuwatch::kubelet
