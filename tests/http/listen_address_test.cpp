#include "http/listen_address.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gpuwatch {
namespace {

TEST(ListenAddress, Forms) {
  EXPECT_EQ(parse_listen_address("0.0.0.0:19400").host, "0.0.0.0");
  EXPECT_EQ(parse_listen_address("0.0.0.0:19400").port, 19400);
  EXPECT_EQ(parse_listen_address("[::1]:0").host, "::1");
  EXPECT_EQ(parse_listen_address("localhost:80").host, "localhost");
  EXPECT_EQ(parse_listen_address(":9400").host, "0.0.0.0");
}

TEST(ListenAddress, IsWrittenAsTheSettingWritesIt) {
  EXPECT_EQ(format_listen_address({"127.0.0.1", 19400}), "127.0.0.1:19400");
  EXPECT_EQ(format_listen_address({"::1", 19400}), "[::1]:19400");
  EXPECT_EQ(format_listen_address(parse_listen_address(":9400")), "0.0.0.0:9400");
}

// Port 0 asks the system for a free port: the bound listener says which one it got.
TEST(ListenAddress, ABoundListenerHasTheBoundPort) {
  const BoundListener bound = bind_listener("127.0.0.1:0", 16);
  EXPECT_TRUE(bound.socket);
  EXPECT_EQ(bound.address.host, "127.0.0.1");
  EXPECT_GT(bound.address.port, 0);
  try {
    bind_listener("127.0.0.1:" + std::to_string(bound.address.port), 16);
    ADD_FAILURE() << "a taken port must not bind";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot listen on 127.0.0.1:" + std::to_string(bound.address.port)),
              std::string::npos)
        << e.what();
  }
}

TEST(ListenAddress, ErrorsSayWhatIsWrong) {
  const auto message = [](const char* text) {
    try {
      parse_listen_address(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("19400").find("expected ADDR:PORT"), std::string::npos);
  EXPECT_NE(message("host:99999").find("from 0 to 65535"), std::string::npos);
  EXPECT_NE(message("host:http").find("from 0 to 65535"), std::string::npos);
  EXPECT_NE(message("::1:80").find("brackets"), std::string::npos);
  EXPECT_NE(message("[::1:80").find("']'"), std::string::npos);
  EXPECT_NE(message("host:").find("listen address \"host:\""), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch
