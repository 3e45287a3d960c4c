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

// The query API's hand-written strings: what nlohmann reads back is the text, made valid UTF-8.
TEST(JsonText, AppendedStringsReadBackAsTheText) {
  const std::string text = std::string("q\"\\\n\r\t\x01 ") + "\xFF";
  std::string out;
  append_json_string(out, text);
  EXPECT_EQ(out, R"("q\"\\\n\r\t\u0001 )"
                 "\xEF\xBF\xBD\"");
  EXPECT_EQ(nlohmann::json::parse(out), to_valid_utf8(text));
}

}  // namespace
}  // namespace gpuwatch
