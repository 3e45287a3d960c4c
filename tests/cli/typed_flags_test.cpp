#include "cli/typed_flags.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

TEST(TypedFlags, NamesTheFlagsTypedWithOrWithoutAValue) {
  const char* argv[] = {"gpuwatch", "status", "--interval=5s", "--nvml-lib", "/x.so", "-c", "f.yaml"};
  const TypedFlags typed(7, argv);
  EXPECT_FALSE(typed.help());
  EXPECT_TRUE(typed.any_of("--interval"));
  EXPECT_TRUE(typed.any_of("--nvml-library,--nvml-lib")) << "any spelling counts";
  EXPECT_TRUE(typed.any_of("-c,--config"));
  EXPECT_FALSE(typed.any_of("--deadline"));
  EXPECT_FALSE(typed.any_of("--interval-x")) << "names are whole";
  EXPECT_FALSE(typed.any_of("/x.so")) << "values are not flags";
}

TEST(TypedFlags, HelpBuildsEveryFlag) {
  for (const char* help : {"-h", "--help", "--help-all"}) {
    const char* argv[] = {"gpuwatch", "status", help};
    const TypedFlags typed(3, argv);
    EXPECT_TRUE(typed.help()) << help;
    EXPECT_TRUE(typed.any_of("--deadline")) << help;
  }
}

TEST(TypedFlags, NothingAfterTheEndOfOptionsIsAFlag) {
  const char* argv[] = {"gpuwatch", "query", "--", "--deadline", "--help"};
  const TypedFlags typed(5, argv);
  EXPECT_FALSE(typed.help());
  EXPECT_FALSE(typed.any_of("--deadline"));
}

}  // namespace
}  // namespace gpuwatch
