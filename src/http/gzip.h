// gzip (deflate in the gzip wrapper, RFC 1952) for /metrics responses, with zlib.
#pragma once

#include <cstddef>
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

}  // namespace gpuwatch
