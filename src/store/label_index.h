// Which series exist and their labels: an inverted index from label pairs to series ids (postings, as in
// Prometheus' TSDB) so that a selector touches only the series that can match. Not thread-safe: the store
// guards it with its own lock. Label sets are shared and immutable, so a reader can keep them after the lock.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/series.h"

namespace gpuwatch::store {

using SeriesId = std::uint32_t;

class LabelIndex {
 public:
  // The id of a series with exactly these labels, or 0 (ids start at 1).
  SeriesId find(const Labels& labels) const;
  // The id and the label set held, or {0, nullptr}.
  std::pair<SeriesId, const Labels*> find_held(const Labels& labels) const;
  const std::shared_ptr<const Labels>& shared_labels(SeriesId id) const { return by_id_.at(id); }
  const Labels& labels(SeriesId id) const { return *by_id_.at(id); }
  const Labels* labels_or_null(SeriesId id) const {
    const auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : it->second.get();
  }
  void add(SeriesId id, Labels labels) { add(id, std::make_shared<const Labels>(std::move(labels))); }
  // Holds this label set itself, not a copy: whoever passed it may keep it too.
  void add(SeriesId id, std::shared_ptr<const Labels> labels);
  // Forgets these series. One call for many: each posting list they share is rewritten once, so retention
  // dropping thousands of series at a time costs what the lists hold, not that times the series dropped.
  void remove(std::span<const SeriesId> ids);
  std::size_t size() const { return by_id_.size(); }
  struct Candidate {
    SeriesId id;
    std::shared_ptr<const Labels> labels;  // shared: a candidate outlives the series' removal
  };
  // The series that can satisfy the matchers, ascending by id: those holding every equality matcher's
  // non-empty pair (through the postings), or all. Cheap (no regex runs), so the store calls it under its
  // lock and matches the candidates (matches_all) after releasing it.
  std::vector<Candidate> candidates(std::span<const LabelMatcher> matchers) const;

 private:
  // by_labels_ is keyed by the label set by_id_ holds, not a copy of it: one copy of each series' labels.
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(const Labels& labels) const;
    std::size_t operator()(const Labels* labels) const { return (*this)(*labels); }
  };
  struct Equal {
    using is_transparent = void;
    static const Labels& of(const Labels& labels) { return labels; }
    static const Labels& of(const Labels* labels) { return *labels; }
    bool operator()(const auto& a, const auto& b) const { return of(a) == of(b); }
  };
  std::unordered_map<SeriesId, std::shared_ptr<const Labels>> by_id_;
  std::unordered_map<const Labels*, SeriesId, Hash, Equal> by_labels_;
  std::map<std::pair<std::string, std::string>, std::vector<SeriesId>> postings_;  // sorted ids
};

// Labels as bytes (the WAL and the series table): varint count, then varint-length-prefixed name and value.
void encode_labels(const Labels& labels, std::vector<std::uint8_t>& out);
// Throws CodecError on malformed input.
Labels decode_labels(std::span<const std::uint8_t> bytes);

}  // namespace gpuwatch::store
