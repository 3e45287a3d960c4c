// The boundary between the agent and the remote-write module (gpuwatch-remote-write.so): remote write's wire
// format, a WriteRequest in protobuf compressed with snappy's block format, and the one C entry point the
// module exports to make it. Protobuf and snappy live only behind it, so an agent without a receiver (and
// every one-shot command) maps neither library. The entry point's name carries this interface's version.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/series.h"

namespace gpuwatch::remote_write {

// One WriteRequest being built, a sample at a time.
class WireRequest {
 public:
  virtual ~WireRequest() = default;
  // labels: sorted, __name__ among them (store::stored_labels makes them so).
  virtual void add(const Labels& labels, std::int64_t timestamp_ms, double value) = 0;
  // The request's protobuf bytes, uncompressed.
  virtual std::string serialize() const = 0;
};

class WireFormat {
 public:
  virtual ~WireFormat() = default;
  virtual std::unique_ptr<WireRequest> new_request() const = 0;
  virtual std::string compress(std::string_view raw) const = 0;
  // nullopt when `compressed` is not snappy's block format.
  virtual std::optional<std::string> uncompress(std::string_view compressed) const = 0;
};

// The module's entry point: sets *out to the wire format (it has nothing to say in *error).
using OpenWireFormat = void(std::unique_ptr<WireFormat>* out, std::string* error);
inline constexpr const char* kOpenWireFormatSymbol = "gpuwatch_remote_write_open_v1";
inline constexpr const char* kModuleFileName = "gpuwatch-remote-write.so";

}  // namespace gpuwatch::remote_write
