// gzip (deflate in the gzip wrapper, RFC 1952) for /metrics responses, with zlib.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpuwatch {

// Compresses `data` into a gzip member. Throws std::runtime_error if zlib fails (out of memory).
std::string gzip_compress(std::string_view data);

// Inflates a gzip member; throws std::runtime_error on corrupt input, or as soon as the output would pass
// max_bytes (0 = unbounded): a small body must not inflate into gigabytes. Used by tests and clients (the
// scraper, with the target's body size limit).
class GzipTooLarge : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
std::string gzip_decompress(std::string_view data, std::size_t max_bytes = 0);

// Inflates a gzip member as its bytes arrive (a body read from a socket), so that a stream that inflates
// without end is stopped at max_bytes while it arrives, not once it ended.
class GzipInflater {
 public:
  explicit GzipInflater(std::size_t max_bytes);
  ~GzipInflater();
  GzipInflater(const GzipInflater&) = delete;
  GzipInflater& operator=(const GzipInflater&) = delete;
  // Appends what `data` inflates to onto out; throws GzipTooLarge past max_bytes, std::runtime_error on
  // corrupt input.
  void feed(std::string_view data, std::string& out);
  bool finished() const { return finished_; }  // the member's end was read

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::size_t max_bytes_;
  bool finished_ = false;
};

}  // namespace gpuwatch
