#include "http/negotiation.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

TEST(Negotiation, PrometheusAcceptHeaderAsksForOpenMetrics) {
  const char* prometheus =
      "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
      "text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
  EXPECT_TRUE(header_accepts(prometheus, "application/openmetrics-text"));
  EXPECT_TRUE(header_accepts(prometheus, "text/plain"));
  EXPECT_FALSE(header_accepts("text/plain;version=0.0.4", "application/openmetrics-text"));
  EXPECT_FALSE(header_accepts("", "application/openmetrics-text"));
}

TEST(Negotiation, EncodingsWithQualityZeroAreRefused) {
  EXPECT_TRUE(header_accepts("gzip, deflate, br", "gzip"));
  EXPECT_TRUE(header_accepts("br;q=1.0, GZIP;q=0.5", "gzip"));
  EXPECT_FALSE(header_accepts("gzip;q=0", "gzip"));
  EXPECT_FALSE(header_accepts("gzip; q=0.000", "gzip"));
  EXPECT_FALSE(header_accepts("x-gzip, identity", "gzip"));
}

}  // namespace
}  // namespace gpuwatch
