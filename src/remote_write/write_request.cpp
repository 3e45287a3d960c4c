#include "remote_write/write_request.h"

#include <snappy.h>

#include <algorithm>

namespace gpuwatch::remote_write {

void WriteRequestBuilder::add(const Labels& labels, std::int64_t timestamp_ms, double value) {
  prometheus::TimeSeries* ts = request_.add_timeseries();
  for (const auto& [name, v] : labels) {
    prometheus::Label* l = ts->add_labels();
    l->set_name(name);
    l->set_value(v);
  }
  prometheus::Sample* s = ts->add_samples();
  s->set_value(value);
  s->set_timestamp(timestamp_ms);
  ++samples_;
  newest_ms_ = std::max(newest_ms_, timestamp_ms);
}

std::string WriteRequestBuilder::serialize() const {
  return request_.SerializeAsString();
}

std::string snappy_compress(std::string_view raw) {
  std::string out;
  snappy::Compress(raw.data(), raw.size(), &out);
  return out;
}

std::optional<std::string> snappy_uncompress(std::string_view compressed) {
  std::string out;
  if (!snappy::Uncompress(compressed.data(), compressed.size(), &out)) return std::nullopt;
  return out;
}

}  // namespace gpuwatch::remote_write
