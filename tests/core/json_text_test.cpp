#include "core/json_text.h"

#include <gtest/gtest.h>

#include "core/utf8.h"

namespace gpuwatch {
namespace {

// nlohmann::json's own dump throws type_error 316 on such a string: on the collector thread that aborted
// the agent.
TEST(JsonText, InvalidBytesAreReplacedNotThrown) {
  const nlohmann::json alert = {{"labels", {{"process", "py\xFF\xFEthon"}}}};
  EXPECT_THROW((void)alert.dump(), nlohmann::json::type_error);
  std::string text;
  ASSERT_NO_THROW(text = to_json_text(alert));
  EXPECT_TRUE(is_valid_utf8(text));
  EXPECT_EQ(nlohmann::json::parse(text)["labels"]["process"], "py\xEF\xBF\xBD\xEF\xBF\xBDthon");
}

TEST(JsonText, IndentsWhenAsked) {
  EXPECT_EQ(to_json_text({{"a", 1}}), R"({"a":1})");
  EXPECT_EQ(to_json_text({{"a", 1}}, 1), "{\n \"a\": 1\n}");
}

}  // namespace
}  // namespace gpuwatch
