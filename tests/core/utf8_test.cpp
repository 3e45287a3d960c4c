#include "core/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuwatch {
namespace {

TEST(Utf8, AcceptsWellFormedText) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("python3"));
  EXPECT_TRUE(is_valid_utf8("gr\xC3\xBC\xC3\x9F"));    // two-byte characters
  EXPECT_TRUE(is_valid_utf8("\xE2\x82\xAC"));          // euro sign
  EXPECT_TRUE(is_valid_utf8("\xF0\x9F\x94\xA5"));      // four bytes
  EXPECT_TRUE(is_valid_utf8(std::string("a\0b", 3)));  // NUL is a character
}

TEST(Utf8, RejectsIllFormedText) {
  EXPECT_FALSE(is_valid_utf8("py\xFF\xFEthon"));
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xE0\x80\xAF"));      // overlong three-byte form
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // a UTF-16 surrogate
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xE2\x82"));          // cut short
  EXPECT_FALSE(is_valid_utf8("\x80"));              // a lone continuation byte
}

TEST(Utf8, ReplacesEachIllFormedByte) {
  EXPECT_EQ(to_valid_utf8("py\xFF\xFEthon"), "py\xEF\xBF\xBD\xEF\xBF\xBDthon");
  EXPECT_EQ(to_valid_utf8("ok"), "ok");
  EXPECT_TRUE(is_valid_utf8(to_valid_utf8("\xE2\x82")));
}

TEST(Utf8, BoundsLengthAtACharacterBoundary) {
  const std::string long_name(1 << 20, 'h');
  const std::string cut = to_valid_utf8(long_name, 64);
  EXPECT_EQ(cut.size(), 64U);
  EXPECT_EQ(cut.substr(61), "...");
  // Euro signs are three bytes: the cut never splits one.
  std::string euros;
  for (int i = 0; i < 100; ++i) euros += "\xE2\x82\xAC";
  const std::string e = to_valid_utf8(euros, 20);
  EXPECT_TRUE(is_valid_utf8(e));
  EXPECT_LE(e.size(), 20U);
  EXPECT_EQ(e, "\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC...");
  // Text exactly at the bound is kept whole.
  EXPECT_EQ(to_valid_utf8(std::string(64, 'x'), 64), std::string(64, 'x'));
  // Replacement can push text over the bound: it is then cut too.
  const std::string grown = to_valid_utf8(std::string(30, '\xFF'), 64);
  EXPECT_LE(grown.size(), 64U);
  EXPECT_TRUE(is_valid_utf8(grown));
}

}  // namespace
}  // namespace gpuwatch
