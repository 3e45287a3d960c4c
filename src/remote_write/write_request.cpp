#include "remote_write/write_request.h"

#include <algorithm>

namespace gpuwatch::remote_write {

void WriteRequestBuilder::add(const Labels& labels, std::int64_t timestamp_ms, double value) {
  request_->add(labels, timestamp_ms, value);
  ++samples_;
  newest_ms_ = std::max(newest_ms_, timestamp_ms);
}

}  // namespace gpuwatch::remote_write
