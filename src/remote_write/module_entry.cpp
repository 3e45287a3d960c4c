// The remote-write module: the wire format over the generated protobuf messages and snappy, and its one
// export, so that protobuf's and snappy's code runs (and is mapped) only in a process that loaded it.
#include <snappy.h>

#include "remote.pb.h"
#include "remote_write/wire_format.h"

namespace gpuwatch::remote_write {
namespace {

class ProtobufRequest final : public WireRequest {
 public:
  void add(const Labels& labels, std::int64_t timestamp_ms, double value) override {
    prometheus::TimeSeries* ts = request_.add_timeseries();
    for (const auto& [name, v] : labels) {
      prometheus::Label* l = ts->add_labels();
      l->set_name(name);
      l->set_value(v);
    }
    prometheus::Sample* s = ts->add_samples();
    s->set_value(value);
    s->set_timestamp(timestamp_ms);
  }
  std::string serialize() const override { return request_.SerializeAsString(); }

 private:
  prometheus::WriteRequest request_;
};

class ProtobufSnappyFormat final : public WireFormat {
 public:
  std::unique_ptr<WireRequest> new_request() const override { return std::make_unique<ProtobufRequest>(); }
  std::string compress(std::string_view raw) const override {
    std::string out;
    snappy::Compress(raw.data(), raw.size(), &out);
    return out;
  }
  std::optional<std::string> uncompress(std::string_view compressed) const override {
    std::string out;
    if (!snappy::Uncompress(compressed.data(), compressed.size(), &out)) return std::nullopt;
    return out;
  }
};

}  // namespace
}  // namespace gpuwatch::remote_write

extern "C" void gpuwatch_remote_write_open_v1(std::unique_ptr<gpuwatch::remote_write::WireFormat>* out,
                                              std::string* /*error*/) {
  *out = std::make_unique<gpuwatch::remote_write::ProtobufSnappyFormat>();
}

// The type the loader casts the symbol to is the one this definition has.
static_assert(
    std::is_same_v<decltype(gpuwatch_remote_write_open_v1), gpuwatch::remote_write::OpenWireFormat>);
