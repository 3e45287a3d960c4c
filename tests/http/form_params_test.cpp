#include "http/form_params.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

TEST(FormParams, DecodesPairsPercentAndPlus) {
  std::multimap<std::string, std::string> params{{"time", "1"}};
  parse_form("query=up%7Bgpu%3D~%220%7C1%22%7D&match%5B%5D=a&match%5B%5D=b&step=1+m&flag&&bad=%zz%4", params);
  EXPECT_EQ(params.find("query")->second, "up{gpu=~\"0|1\"}");
  EXPECT_EQ(params.count("match[]"), 2u);
  EXPECT_EQ(params.find("step")->second, "1 m");
  EXPECT_EQ(params.find("flag")->second, "");
  EXPECT_EQ(params.find("bad")->second, "%zz%4");
  EXPECT_EQ(params.find("time")->second, "1");  // what was there stays
}

TEST(FormParams, RecognisesTheContentType) {
  EXPECT_TRUE(is_form_content_type("application/x-www-form-urlencoded"));
  EXPECT_TRUE(is_form_content_type("Application/X-WWW-Form-Urlencoded; charset=UTF-8"));
  EXPECT_FALSE(is_form_content_type("application/json"));
  EXPECT_FALSE(is_form_content_type(""));
}

}  // namespace
}  // namespace gpuwatch
