// The default external URL reaches the listener it describes: alert links from an agent on loopback must
// not name a host name nothing answers on, nor port 0 when the system picked the port.
#include "agent/external_url.h"

#include <gtest/gtest.h>

#include "http/http_server.h"

namespace gpuwatch {
namespace {

// The URL for a listen setting whose port is the one bound (any but 0).
std::string url_for(const std::string& listen, const std::string& hostname) {
  return default_external_url(parse_listen_address(listen), hostname);
}

TEST(DefaultExternalUrl, ALoopbackListenerIsReachedOnLoopback) {
  EXPECT_EQ(url_for("127.0.0.1:19400", "node7"), "http://127.0.0.1:19400");
  EXPECT_EQ(url_for("[::1]:19400", "node7"), "http://[::1]:19400");
}

TEST(DefaultExternalUrl, ASpecificAddressOrNameIsThatOne) {
  EXPECT_EQ(url_for("10.0.0.5:9000", "node7"), "http://10.0.0.5:9000");
  EXPECT_EQ(url_for("[fd00::5]:9000", "node7"), "http://[fd00::5]:9000");
  EXPECT_EQ(url_for("localhost:19400", "node7"), "http://localhost:19400");
}

TEST(DefaultExternalUrl, AWildcardListenerIsReachedByTheHostName) {
  EXPECT_EQ(url_for("0.0.0.0:19400", "node7"), "http://node7:19400");
  EXPECT_EQ(url_for("[::]:19400", "node7"), "http://node7:19400");
  EXPECT_EQ(url_for(":19400", "node7"), "http://node7:19400");
  const std::string machine = url_for("0.0.0.0:19400", "");
  EXPECT_TRUE(machine.starts_with("http://") && machine.ends_with(":19400")) << machine;
  EXPECT_NE(machine, "http://:19400") << "without --hostname, the machine's host name";
}

TEST(DefaultExternalUrl, PortZeroNamesThePortTheSystemPicked) {
  const BoundListener bound = HttpServer::bind("127.0.0.1:0");
  ASSERT_GT(bound.address.port, 0);
  EXPECT_EQ(default_external_url(bound.address, "node7"),
            "http://127.0.0.1:" + std::to_string(bound.address.port));
}

}  // namespace
}  // namespace gpuwatch
