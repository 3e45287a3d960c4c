#include "core/file_io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("gpuwatch-file-io-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

TEST(FileIo, ReadsAWholeFileAndSaysWhyNot) {
  TempDir dir;
  const std::string path = (dir.path / "a.txt").string();
  std::ofstream(path) << std::string(200'000, 'x');
  EXPECT_EQ(read_file(path)->size(), 200'000U);

  std::string error;
  EXPECT_EQ(read_file((dir.path / "missing").string(), &error), std::nullopt);
  EXPECT_NE(error.find("missing: cannot read: No such file or directory"), std::string::npos) << error;
  EXPECT_EQ(read_file(path, &error, 1000), std::nullopt);
  EXPECT_NE(error.find("larger than 1000 bytes"), std::string::npos) << error;
}

TEST(FileIo, ADurableWriteReplacesTheFileAndLeavesNoTemporary) {
  TempDir dir;
  const std::string path = (dir.path / "silences.json").string();
  EXPECT_EQ(write_file_durably(path, "old"), "");
  EXPECT_EQ(write_file_durably(path, "new"), "");
  EXPECT_EQ(read_file(path), "new");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator{}), 1);
}

TEST(FileIo, AFailedWriteNamesTheFileAndKeepsTheOldContent) {
  TempDir dir;
  const std::string path = (dir.path / "kept.json").string();
  ASSERT_EQ(write_file_durably(path, "old"), "");
  // A directory where the temporary file would go makes the write fail before anything is replaced.
  fs::create_directory(path + ".tmp");
  const std::string problem = write_file_durably(path, "new");
  EXPECT_NE(problem.find("kept.json.tmp"), std::string::npos) << problem;
  EXPECT_EQ(read_file(path), "old");
}

}  // namespace
}  // namespace gpuwatch
