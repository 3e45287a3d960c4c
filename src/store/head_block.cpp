#include "store/head_block.h"

#include <algorithm>

namespace gpuwatch::store {
namespace {

void append_range(std::span<const std::int64_t> t, std::span<const double> v, std::int64_t min_t,
                  std::int64_t max_t, std::vector<Point>& out) {
  for (auto it = std::lower_bound(t.begin(), t.end(), min_t); it != t.end() && *it <= max_t; ++it)
    out.push_back(Point{*it, v[static_cast<std::size_t>(it - t.begin())]});
}

}  // namespace

void HeadBlock::add(std::int64_t t, double v, BlockEncoder& encoder, BlockDecoder& decoder) {
  if (count_ == 0) first_t_ = t;
  last_t_ = t;
  ++count_;
  if (tail_t_.capacity() < kTailSamples) {  // exactly a tail's worth: growth by doubling would overshoot
    tail_t_.reserve(kTailSamples);
    tail_v_.reserve(kTailSamples);
  }
  tail_t_.push_back(t);
  tail_v_.push_back(v);
  if (tail_t_.size() < kTailSamples) return;
  if (small_.size() + 1 < kChunkSamples / kTailSamples) {
    if (small_.capacity() == 0) small_.reserve(kChunkSamples / kTailSamples - 1);
    small_.push_back(Chunk{tail_t_.front(), tail_t_.back(), encoder.encode(tail_t_, tail_v_)});
    small_.back().bytes.shrink_to_fit();
  } else {
    // The small chunks and the tail become one chunk: one header, and the delta coding runs across the
    // seams, so it is smaller than its parts.
    std::vector<std::int64_t> ct, all_t;
    std::vector<double> cv, all_v;
    all_t.reserve(kChunkSamples);
    all_v.reserve(kChunkSamples);
    for (const Chunk& c : small_) {
      decoder.decode_into(c.bytes, ct, cv);  // our own bytes, in memory: a failure is a bug, and throws
      all_t.insert(all_t.end(), ct.begin(), ct.end());
      all_v.insert(all_v.end(), cv.begin(), cv.end());
    }
    all_t.insert(all_t.end(), tail_t_.begin(), tail_t_.end());
    all_v.insert(all_v.end(), tail_v_.begin(), tail_v_.end());
    chunks_.push_back(Chunk{all_t.front(), all_t.back(), encoder.encode(all_t, all_v)});
    chunks_.back().bytes.shrink_to_fit();
    chunks_.shrink_to_fit();  // an hour-long block of 1 s samples adds a chunk 28 times: exact is cheap
    small_.clear();
  }
  tail_t_.clear();
  tail_v_.clear();
}

void HeadBlock::decode(BlockDecoder& decoder, std::vector<std::int64_t>& t, std::vector<double>& v) const {
  t.clear();
  v.clear();
  t.reserve(count_);
  v.reserve(count_);
  std::vector<std::int64_t> ct;
  std::vector<double> cv;
  for (const auto& c : chunks_) {
    decoder.decode_into(c.bytes, ct, cv);  // our own bytes, in memory: a failure is a bug, and throws
    t.insert(t.end(), ct.begin(), ct.end());
    v.insert(v.end(), cv.begin(), cv.end());
  }
  for (const auto& c : small_) {
    decoder.decode_into(c.bytes, ct, cv);
    t.insert(t.end(), ct.begin(), ct.end());
    v.insert(v.end(), cv.begin(), cv.end());
  }
  t.insert(t.end(), tail_t_.begin(), tail_t_.end());
  v.insert(v.end(), tail_v_.begin(), tail_v_.end());
}

void HeadBlock::append_points(std::int64_t min_t, std::int64_t max_t, BlockDecoder& decoder,
                              std::vector<Point>& out) const {
  std::vector<std::int64_t> ct;
  std::vector<double> cv;
  for (const auto* chunks : {&chunks_, &small_}) {
    for (const auto& c : *chunks) {
      if (c.last_t < min_t || c.first_t > max_t) continue;
      decoder.decode_into(c.bytes, ct, cv);
      append_range(ct, cv, min_t, max_t, out);
    }
  }
  append_range(tail_t_, tail_v_, min_t, max_t, out);
}

std::size_t HeadBlock::memory_bytes() const {
  std::size_t n =
      sizeof(HeadBlock) + tail_t_.capacity() * 16 + (chunks_.capacity() + small_.capacity()) * sizeof(Chunk);
  for (const auto& c : chunks_) n += c.bytes.capacity();
  for (const auto& c : small_) n += c.bytes.capacity();
  return n;
}

}  // namespace gpuwatch::store
