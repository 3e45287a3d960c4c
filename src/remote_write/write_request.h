// A remote-write WriteRequest made of samples, as the wire wants it: protobuf, then snappy's block format.
// The disk queue keeps one compressed request per snapshot; protobuf merges concatenated messages (repeated
// fields append), so a batch of queued requests is their uncompressed bytes one after the other, compressed
// again as one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/series.h"
#include "remote.pb.h"

namespace gpuwatch::remote_write {

class WriteRequestBuilder {
 public:
  // labels: sorted, __name__ among them (store::stored_labels makes them so).
  void add(const Labels& labels, std::int64_t timestamp_ms, double value);
  std::size_t samples() const { return samples_; }
  std::int64_t newest_ms() const { return newest_ms_; }
  std::string serialize() const;

 private:
  prometheus::WriteRequest request_;
  std::size_t samples_ = 0;
  std::int64_t newest_ms_ = 0;
};

std::string snappy_compress(std::string_view raw);
// nullopt when `compressed` is not snappy's block format.
std::optional<std::string> snappy_uncompress(std::string_view compressed);

}  // namespace gpuwatch::remote_write
