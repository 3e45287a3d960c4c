// The encoder refuses input it cannot store faithfully, saying which sample and why.
#include "series_fixtures.h"

namespace gpuwatch::store {
namespace {

std::string refusal(const std::vector<std::int64_t>& t, const std::vector<double>& v) {
  try {
    encode_block(t, v);
  } catch (const CodecError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(ChunkCodecInput, NonIncreasingTimestampsAreRefused) {
  EXPECT_EQ(refusal({1000, 2000, 2000}, {1, 2, 3}),
            "timestamps must be strictly increasing: sample 2 has 2000 ms after 2000 ms");
  EXPECT_EQ(refusal({1000, 999}, {1, 2}),
            "timestamps must be strictly increasing: sample 1 has 999 ms after 1000 ms");
}

TEST(ChunkCodecInput, EmptyAndMismatchedInputAreRefused) {
  EXPECT_EQ(refusal({}, {}), "a block needs at least one sample");
  EXPECT_EQ(refusal({1, 2}, {1.0}), "block input has 2 timestamps but 1 values");
}

TEST(ChunkCodecInput, OversizedBlockIsRefused) {
  const std::vector<std::int64_t> t = testing::every_second(kMaxBlockSamples + 1);
  const std::vector<double> v(t.size(), 0.0);
  EXPECT_THROW(encode_block(t, v), CodecError);
}

}  // namespace
}  // namespace gpuwatch::store
