#include "store_samples.h"

#include <limits>
#include <stdexcept>

namespace gpuwatch::test {
namespace {

store::StoreOptions options_for(const std::string& data_dir) {
  store::StoreOptions o;
  o.data_dir = data_dir;
  o.background_flusher = false;  // the test decides what is sealed and what stays in the head
  return o;
}

// Appends the points of every series with from_ms <= t < to_ms, in time order per series.
std::uint64_t append_between(store::Store& store, const std::vector<Family>& families, std::int64_t from_ms,
                             std::int64_t to_ms) {
  std::uint64_t appended = 0;
  for (const auto& f : families) {
    for (const auto& s : f.series) {
      for (const auto& p : s.points) {
        if (p.t_ms < from_ms || p.t_ms >= to_ms) continue;
        const std::string refused = store.append(s.labels, p.t_ms, p.value);
        if (!refused.empty())
          throw std::runtime_error("store refused " + store::labels_to_string(s.labels) + " at " +
                                   std::to_string(p.t_ms) + ": " + refused);
        ++appended;
      }
    }
  }
  return appended;
}

}  // namespace

std::shared_ptr<store::Store> load_into_store(const std::string& data_dir,
                                              const std::vector<Family>& families,
                                              std::int64_t seal_before_ms) {
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  std::uint64_t in_head = 0;
  {
    auto store = store::Store::open(options_for(data_dir));
    if (append_between(*store, families, kMin, seal_before_ms) == 0)
      throw std::runtime_error("no sample lies before the seal point");
    store->seal_all();
    in_head = append_between(*store, families, seal_before_ms, kMax);
    if (in_head == 0) throw std::runtime_error("no sample lies after the seal point");
    store->commit();
  }
  auto store = store::Store::open(options_for(data_dir));
  const store::StoreHealth health = store->health();
  if (health.samples_in_memory != in_head)
    throw std::runtime_error("the WAL replay put " + std::to_string(health.samples_in_memory) +
                             " samples in the head, expected " + std::to_string(in_head));
  return store;
}

}  // namespace gpuwatch::test
