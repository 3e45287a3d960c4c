// A remote-write WriteRequest made of samples, as the wire wants it: protobuf, then snappy's block format
// (both in the remote-write module, wire_format.h). The disk queue keeps one compressed request per
// snapshot; protobuf merges concatenated messages (repeated fields append), so a batch of queued requests is
// their uncompressed bytes one after the other, compressed again as one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/series.h"
#include "remote_write/wire_format.h"

namespace gpuwatch::remote_write {

class WriteRequestBuilder {
 public:
  explicit WriteRequestBuilder(const WireFormat& format) : request_(format.new_request()) {}
  // labels: sorted, __name__ among them (store::stored_labels makes them so).
  void add(const Labels& labels, std::int64_t timestamp_ms, double value);
  std::size_t samples() const { return samples_; }
  std::int64_t newest_ms() const { return newest_ms_; }
  std::string serialize() const { return request_->serialize(); }

 private:
  std::unique_ptr<WireRequest> request_;
  std::size_t samples_ = 0;
  std::int64_t newest_ms_ = 0;
};

}  // namespace gpuwatch::remote_write
