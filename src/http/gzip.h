// gzip (deflate in the gzip wrapper, RFC 1952) for /metrics responses, with zlib.
#pragma once

#include <string>
#include <string_view>

namespace gpuwatch {

// Compresses `data` into a gzip member. Throws std::runtime_error if zlib fails (out of memory).
std::string gzip_compress(std::string_view data);

// Inflates a gzip member; throws std::runtime_error on corrupt input. Used by tests and clients.
std::string gzip_decompress(std::string_view data);

}  // namespace gpuwatch
