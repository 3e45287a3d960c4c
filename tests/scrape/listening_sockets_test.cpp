// Discovery's view of a process's sockets, from a fake proc tree: only LISTEN rows whose inode is one of the
// process's own fd links count; wildcard binds are scraped on loopback; IPv6 rows are read too.
#include "scrape/listening_sockets.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim_support.h"

namespace gpuwatch::scrape {
namespace {

// A fake proc tree in a scratch directory.
class ProcTree {
 public:
  const std::string& root() const { return dir_.path(); }
  void file(const std::string& rel, const std::string& text) const {
    const auto p = std::filesystem::path(root()) / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  void fd(unsigned pid, int n, const std::string& target) const {
    const auto dir = std::filesystem::path(root()) / std::to_string(pid) / "fd";
    std::filesystem::create_directories(dir);
    std::filesystem::create_symlink(target, dir / std::to_string(n));
  }

 private:
  test::TempDir dir_;
};

constexpr const char* kHeader =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";

std::string row(const std::string& local, const std::string& state, unsigned long long inode) {
  return "   0: " + local + " 00000000:0000 " + state +
         " 00000000:00000000 00:00000000 00000000  1000        0 " + std::to_string(inode) +
         " 1 0000000000000000 100 0 0 10 0\n";
}

TEST(ListeningSockets, OnlyTheProcessesOwnListeningSocketsCount) {
  ProcTree tree;
  tree.fd(42, 3, "socket:[1001]");
  tree.fd(42, 4, "socket:[1002]");
  tree.fd(42, 5, "socket:[1003]");
  tree.fd(42, 6, "/dev/nvidia0");
  tree.file("42/net/tcp", std::string(kHeader) +
                              row("0100007F:1F40", "0A", 1001) +  // 127.0.0.1:8000, listening, its own
                              row("00000000:1F42", "0A", 1002) +  // 0.0.0.0:8002: scraped on loopback
                              row("0100007F:D431", "01", 1003) +  // an established connection
                              row("0100007F:0BB8", "0A", 9999));  // another process's listener
  tree.file("42/net/tcp6", std::string(kHeader) + row("00000000000000000000000001000000:0BB9", "0A", 1003) +
                               row("0000000000000000FFFF00000A00000A:0BBA", "0A", 1002));
  const auto found = listening_sockets(tree.root(), 42);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0], (ListeningSocket{"[::1]", 3001}));
  EXPECT_EQ(found[1], (ListeningSocket{"10.0.0.10", 3002}));
  EXPECT_EQ(found[2], (ListeningSocket{"127.0.0.1", 8000}));
  EXPECT_EQ(found[3], (ListeningSocket{"127.0.0.1", 8002}));
}

TEST(ListeningSockets, AGoneOrUnreadableProcessHasNone) {
  ProcTree tree;
  EXPECT_TRUE(listening_sockets(tree.root(), 7).empty());
  tree.fd(8, 3, "socket:[5]");
  tree.file("8/net/tcp", "garbage\nnot a row\n");
  EXPECT_TRUE(listening_sockets(tree.root(), 8).empty());
}

}  // namespace
}  // namespace gpuwatch::scrape
