#include "scrape/listening_sockets.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "core/file_io.h"

namespace gpuwatch::scrape {
namespace {

constexpr std::string_view kListen = "0A";  // TCP_LISTEN in the st column

std::set<unsigned long long> socket_inodes(const std::string& proc_root, unsigned pid) {
  std::set<unsigned long long> out;
  std::error_code ec;
  const std::filesystem::path fd_dir = std::filesystem::path(proc_root) / std::to_string(pid) / "fd";
  for (const auto& entry : std::filesystem::directory_iterator(fd_dir, ec)) {
    std::error_code link_ec;
    const std::string target = std::filesystem::read_symlink(entry.path(), link_ec).string();
    unsigned long long inode = 0;
    if (!link_ec && std::sscanf(target.c_str(), "socket:[%llu]", &inode) == 1) out.insert(inode);
  }
  return out;
}

// "0100007F" (IPv4, the kernel's byte order) or 32 hex digits (IPv6, four such words) as a URL host.
std::string host_of(const std::string& hex) {
  if (hex.size() == 8) {
    const unsigned long v = std::stoul(hex, nullptr, 16);
    if (v == 0) return "127.0.0.1";  // 0.0.0.0: every address, loopback among them
    return std::to_string(v & 0xff) + "." + std::to_string((v >> 8) & 0xff) + "." +
           std::to_string((v >> 16) & 0xff) + "." + std::to_string((v >> 24) & 0xff);
  }
  if (hex.find_first_not_of('0') == std::string::npos) return "127.0.0.1";  // ::, dual stack
  if (hex == "00000000000000000000000001000000") return "[::1]";
  if (hex.substr(0, 24) == "0000000000000000FFFF0000") return host_of(hex.substr(24));  // ::ffff:a.b.c.d
  std::string out = "[";
  for (int word = 0; word < 4; ++word) {
    const unsigned long v = std::stoul(hex.substr(static_cast<std::size_t>(word) * 8, 8), nullptr, 16);
    // Each 32-bit word is in the kernel's byte order: its bytes in address order are v's lowest first.
    for (int half = 0; half < 2; ++half) {
      const unsigned hi = (v >> (half * 16)) & 0xff, lo = (v >> (half * 16 + 8)) & 0xff;
      char group[8];
      std::snprintf(group, sizeof group, "%x", (hi << 8) | lo);
      if (out.size() > 1) out += ':';
      out += group;
    }
  }
  return out + "]";
}

void read_table(const std::string& path, const std::set<unsigned long long>& inodes,
                std::set<ListeningSocket>& out) {
  const auto text = read_file(path);
  if (!text) return;
  std::istringstream in(*text);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string slot, local, remote, state, queues, timer, retrans, uid, timeout;
    unsigned long long inode = 0;
    if (!(row >> slot >> local >> remote >> state >> queues >> timer >> retrans >> uid >> timeout >> inode)) {
      continue;
    }
    if (state != kListen || inodes.count(inode) == 0) continue;
    const std::size_t colon = local.find(':');
    if (colon == std::string::npos) continue;
    try {
      const unsigned port = static_cast<unsigned>(std::stoul(local.substr(colon + 1), nullptr, 16));
      out.insert(ListeningSocket{host_of(local.substr(0, colon)), port});
    } catch (const std::exception&) {
      continue;  // a malformed row: skip it, the others still count
    }
  }
}

}  // namespace

std::vector<ListeningSocket> listening_sockets(const std::string& proc_root, unsigned pid) {
  const auto inodes = socket_inodes(proc_root, pid);
  if (inodes.empty()) return {};
  std::set<ListeningSocket> found;
  const std::string net = proc_root + "/" + std::to_string(pid) + "/net/";
  read_table(net + "tcp", inodes, found);
  read_table(net + "tcp6", inodes, found);
  std::vector<ListeningSocket> out;
  std::set<unsigned> ports;
  for (const auto& s : found) {
    if (ports.insert(s.port).second) out.push_back(s);
  }
  return out;
}

}  // namespace gpuwatch::scrape
