// The default external URL reaches the listener it describes: alert links from an agent on loopback must
// not name a host name nothing answers on.
#include "agent/external_url.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

TEST(DefaultExternalUrl, ALoopbackListenerIsReachedOnLoopback) {
  EXPECT_EQ(default_external_url("127.0.0.1:19400", "node7"), "http://127.0.0.1:19400");
  EXPECT_EQ(default_external_url("[::1]:19400", "node7"), "http://[::1]:19400");
}

TEST(DefaultExternalUrl, ASpecificAddressOrNameIsThatOne) {
  EXPECT_EQ(default_external_url("10.0.0.5:9000", "node7"), "http://10.0.0.5:9000");
  EXPECT_EQ(default_external_url("[fd00::5]:9000", "node7"), "http://[fd00::5]:9000");
  EXPECT_EQ(default_external_url("localhost:19400", "node7"), "http://localhost:19400");
}

TEST(DefaultExternalUrl, AWildcardListenerIsReachedByTheHostName) {
  EXPECT_EQ(default_external_url("0.0.0.0:19400", "node7"), "http://node7:19400");
  EXPECT_EQ(default_external_url("[::]:19400", "node7"), "http://node7:19400");
  EXPECT_EQ(default_external_url(":19400", "node7"), "http://node7:19400");
  const std::string machine = default_external_url("0.0.0.0:19400", "");
  EXPECT_TRUE(machine.starts_with("http://") && machine.ends_with(":19400")) << machine;
  EXPECT_NE(machine, "http://:19400") << "without --hostname, the machine's host name";
}

}  // namespace
}  // namespace gpuwatch
