#include "http/gzip.h"

#include <zlib.h>

#include <array>
#include <stdexcept>

namespace gpuwatch {
namespace {

constexpr int kGzipWindowBits = 15 + 16;  // +16 selects the gzip wrapper instead of zlib's

// Owns a z_stream for its lifetime: deflateEnd/inflateEnd run whatever happens.
class Stream {
 public:
  explicit Stream(bool deflating) : deflating_(deflating) {
    const int rc = deflating ? deflateInit2(&z_, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindowBits, 8,
                                            Z_DEFAULT_STRATEGY)
                             : inflateInit2(&z_, kGzipWindowBits);
    if (rc != Z_OK) throw std::runtime_error("gzip: zlib initialisation failed");
  }
  ~Stream() { deflating_ ? deflateEnd(&z_) : inflateEnd(&z_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  z_stream* get() { return &z_; }

 private:
  z_stream z_{};
  bool deflating_;
};

}  // namespace

struct GzipInflater::State {
  Stream stream{false};
};

GzipInflater::GzipInflater(std::size_t max_bytes)
    : state_(std::make_unique<State>()), max_bytes_(max_bytes) {}
GzipInflater::~GzipInflater() = default;

void GzipInflater::feed(std::string_view data, std::string& out) {
  z_stream* z = state_->stream.get();
  z->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z->avail_in = static_cast<uInt>(data.size());
  std::array<char, 16384> buf{};
  while (z->avail_in > 0 && !finished_) {
    z->next_out = reinterpret_cast<Bytef*>(buf.data());
    z->avail_out = static_cast<uInt>(buf.size());
    const int rc = inflate(z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
      throw std::runtime_error("gzip: corrupt input");
    out.append(buf.data(), buf.size() - z->avail_out);
    if (max_bytes_ != 0 && out.size() > max_bytes_) {
      throw GzipTooLarge("gzip: the body inflates past " + std::to_string(max_bytes_) + " bytes");
    }
    finished_ = rc == Z_STREAM_END;
    if (rc == Z_BUF_ERROR) break;
  }
}

std::string gzip_compress(std::string_view data) {
  Stream stream(true);
  z_stream* z = stream.get();
  std::string out;
  out.resize(deflateBound(z, static_cast<uLong>(data.size())) + 32);
  z->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z->avail_in = static_cast<uInt>(data.size());
  z->next_out = reinterpret_cast<Bytef*>(out.data());
  z->avail_out = static_cast<uInt>(out.size());
  if (deflate(z, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("gzip: deflate did not finish");
  out.resize(z->total_out);
  return out;
}

std::string gzip_decompress(std::string_view data, std::size_t max_bytes) {
  Stream stream(false);
  z_stream* z = stream.get();
  z->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z->avail_in = static_cast<uInt>(data.size());
  std::string out;
  std::array<char, 16384> buf{};
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z->next_out = reinterpret_cast<Bytef*>(buf.data());
    z->avail_out = static_cast<uInt>(buf.size());
    rc = inflate(z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) throw std::runtime_error("gzip: corrupt or truncated input");
    out.append(buf.data(), buf.size() - z->avail_out);
    if (max_bytes != 0 && out.size() > max_bytes) {
      throw GzipTooLarge("gzip: the body inflates past " + std::to_string(max_bytes) + " bytes");
    }
    if (rc == Z_OK && z->avail_in == 0 && z->avail_out != 0)
      throw std::runtime_error("gzip: truncated input");
  }
  return out;
}

}  // namespace gpuwatch
