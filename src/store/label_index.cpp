#include "store/label_index.h"

#include <algorithm>
#include <stdexcept>

#include "store/byte_io.h"

namespace gpuwatch::store {

std::size_t LabelIndex::Hash::operator()(const Labels& labels) const {
  std::size_t h = labels.size();
  const std::hash<std::string> hash;
  for (const auto& [name, value] : labels) {
    h = h * 1'000'003 ^ hash(name);
    h = h * 1'000'003 ^ hash(value);
  }
  return h;
}

SeriesId LabelIndex::find(const Labels& labels) const {
  return find_held(labels).first;
}

std::pair<SeriesId, const Labels*> LabelIndex::find_held(const Labels& labels) const {
  const auto it = by_labels_.find(labels);
  if (it == by_labels_.end()) return {0, nullptr};
  return {it->second, it->first};
}

void LabelIndex::add(SeriesId id, std::shared_ptr<const Labels> labels) {
  for (const auto& pair : *labels) {
    auto& ids = postings_[pair];
    ids.insert(std::upper_bound(ids.begin(), ids.end(), id), id);
  }
  const auto& held = by_id_.emplace(id, std::move(labels)).first->second;
  by_labels_.emplace(held.get(), id);
}

void LabelIndex::remove(std::span<const SeriesId> ids) {
  std::vector<SeriesId> gone(ids.begin(), ids.end());
  std::sort(gone.begin(), gone.end());
  using Posting = decltype(postings_)::iterator;
  std::vector<Posting> touched;
  for (const SeriesId id : gone) {
    const auto it = by_id_.find(id);
    if (it == by_id_.end()) continue;
    for (const auto& pair : *it->second) {
      const auto p = postings_.find(pair);
      if (p != postings_.end()) touched.push_back(p);
    }
    by_labels_.erase(it->second.get());
    by_id_.erase(it);
  }
  const auto by_address = [](const Posting& a, const Posting& b) {
    return std::less<const void*>()(&*a, &*b);
  };
  std::sort(touched.begin(), touched.end(), by_address);
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  for (const Posting& p : touched) {
    std::erase_if(p->second,
                  [&gone](SeriesId id) { return std::binary_search(gone.begin(), gone.end(), id); });
    if (p->second.empty()) postings_.erase(p);
  }
}

std::vector<LabelIndex::Candidate> LabelIndex::candidates(std::span<const LabelMatcher> matchers) const {
  std::vector<SeriesId> ids;
  bool narrowed = false;
  for (const auto& m : matchers) {
    if (m.op() != LabelMatcher::Op::kEqual || m.value().empty()) continue;
    const auto p = postings_.find({m.name(), m.value()});
    if (p == postings_.end()) return {};
    if (!narrowed) {
      ids = p->second;
      narrowed = true;
    } else {
      std::vector<SeriesId> both;
      std::set_intersection(ids.begin(), ids.end(), p->second.begin(), p->second.end(),
                            std::back_inserter(both));
      ids.swap(both);
    }
  }
  if (!narrowed) {
    ids.reserve(by_id_.size());
    for (const auto& [id, labels] : by_id_) ids.push_back(id);
    std::sort(ids.begin(), ids.end());
  }
  std::vector<Candidate> out;
  out.reserve(ids.size());
  for (const SeriesId id : ids) out.push_back({id, by_id_.at(id)});
  return out;
}

void encode_labels(const Labels& labels, std::vector<std::uint8_t>& out) {
  ByteWriter w(out);
  w.varint(labels.size());
  for (const auto& [name, value] : labels) {
    w.varint(name.size());
    w.bytes({reinterpret_cast<const std::uint8_t*>(name.data()), name.size()});
    w.varint(value.size());
    w.bytes({reinterpret_cast<const std::uint8_t*>(value.data()), value.size()});
  }
}

Labels decode_labels(std::span<const std::uint8_t> bytes) {
  ByteReader r(bytes, "labels");
  const auto count = r.varint("label count");
  if (count > bytes.size()) r.fail("label count exceeds the record");
  Labels labels;
  labels.reserve(count);
  auto text = [&r](const char* field) {
    const auto n = r.varint(field);
    if (n > r.remaining()) r.fail(std::string("truncated ") + field);
    const auto b = r.bytes(n, field);
    return std::string(reinterpret_cast<const char*>(b.data()), b.size());
  };
  for (std::uint64_t i = 0; i < count; ++i) {
    auto name = text("label name");
    auto value = text("label value");
    labels.emplace_back(std::move(name), std::move(value));
  }
  return labels;
}

}  // namespace gpuwatch::store
