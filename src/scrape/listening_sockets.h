// The TCP ports a process listens on, from the proc tree: its socket inodes (the `socket:[N]` links under
// <proc-root>/<pid>/fd) matched to the LISTEN rows of <proc-root>/<pid>/net/tcp and net/tcp6. Only the
// process's own sockets count, so a port another process of the same network namespace holds is not its.
#pragma once

#include <string>
#include <vector>

namespace gpuwatch::scrape {

struct ListeningSocket {
  std::string address;  // as a URL host: "127.0.0.1", "[::1]", "10.0.0.5"; a wildcard bind becomes loopback
  unsigned port = 0;
  bool operator==(const ListeningSocket&) const = default;
  bool operator<(const ListeningSocket& o) const {
    return port != o.port ? port < o.port : address < o.address;
  }
};

// Sorted by port, one per port (IPv4 before IPv6); empty when the process is gone or not visible.
std::vector<ListeningSocket> listening_sockets(const std::string& proc_root, unsigned pid);

}  // namespace gpuwatch::scrape
