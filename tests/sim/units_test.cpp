// Scenario quantities and shapes: the parsing and evaluation that every scenario value goes through.
#include <gtest/gtest.h>

#include "sim/shape.h"
#include "sim/units.h"

namespace gpuwatch::sim {
namespace {

TEST(Units, DurationsSizesPowerAndRates) {
  EXPECT_EQ(parse_seconds("90s"), 90.0);
  EXPECT_EQ(parse_seconds("1h30m"), 5400.0);
  EXPECT_EQ(parse_seconds("250ms"), 0.25);
  EXPECT_EQ(parse_seconds("45"), 45.0);
  EXPECT_FALSE(parse_seconds("soon"));
  EXPECT_FALSE(parse_seconds("-5s"));
  EXPECT_EQ(parse_bytes("80GiB"), 80.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(parse_bytes("512MiB"), 512.0 * 1024 * 1024);
  EXPECT_EQ(parse_bytes("2GB"), 2e9);
  EXPECT_EQ(parse_bytes("4096"), 4096.0);
  EXPECT_FALSE(parse_bytes("80 gigs"));
  EXPECT_EQ(parse_watts("700W"), 700.0);
  EXPECT_FALSE(parse_watts("700kW"));
  EXPECT_EQ(parse_rate("50MiB/s", true), 50.0 * 1024 * 1024);
  EXPECT_EQ(parse_rate("6/m", false), 0.1);
  EXPECT_EQ(parse_rate("36/h", false), 0.01);
  EXPECT_FALSE(parse_rate("6/day", false));
  EXPECT_FALSE(parse_rate("6MiB/s", false));
}

TEST(Shapes, SegmentsRampPeriodicNoiseAndClamp) {
  Shape s;
  s.set = true;
  s.max = 100;
  s.segments = {{0, 10, 0}, {60, 90, 20}};
  EXPECT_EQ(eval_shape(s, 30, 1, 1), 10);
  EXPECT_EQ(eval_shape(s, 70, 1, 1), 50) << "halfway through the 20 s ramp";
  EXPECT_EQ(eval_shape(s, 100, 1, 1), 90);
  s.periodic = {{40, 30, 0, Wave::kSquare}};
  EXPECT_EQ(eval_shape(s, 100, 1, 1), 60) << "second half of the square wave: 90 - 30";
  EXPECT_EQ(eval_shape(s, 120, 1, 1), 100) << "first half: 90 + 30, clamped to max";
  Shape noisy;
  noisy.set = true;
  noisy.segments = {{0, 50, 0}};
  noisy.noise = 5;
  const double a = eval_shape(noisy, 12.2, 7, 3), b = eval_shape(noisy, 12.9, 7, 3);
  EXPECT_EQ(a, b) << "noise changes once per second";
  EXPECT_NEAR(a, 50, 5);
  EXPECT_EQ(a, eval_shape(noisy, 12.2, 7, 3)) << "same (time, seed, stream), same value";
  bool differs = false;
  for (int t = 0; t < 10; ++t) differs = differs || eval_shape(noisy, t, 7, 3) != eval_shape(noisy, t, 8, 3);
  EXPECT_TRUE(differs) << "another seed, other noise";
  EXPECT_EQ(eval_shape(Shape{}, 5, 1, 1), 0) << "an unset shape is 0";
}

}  // namespace
}  // namespace gpuwatch::sim
