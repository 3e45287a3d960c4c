// A file mapped read-only into memory for one sequential pass (import of files larger than memory: the
// kernel reads ahead and drops pages behind). Empty files map to an empty view.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpuwatch::ingest {

class MappedFile {
 public:
  // Throws std::runtime_error("PATH: why") when the file cannot be opened or mapped.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view text() const { return {data_, size_}; }
  // Tells the kernel the bytes before `offset` are no longer needed (keeps the page cache footprint flat).
  void release_before(std::size_t offset);

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t released_ = 0;
};

}  // namespace gpuwatch::ingest
