#include "store/process_cap.h"

#include <algorithm>

namespace gpuwatch::store {
namespace {

std::string key_of(const Labels& labels) {
  std::string key;
  for (const auto& [n, v] : labels) {
    key += n;
    key += '\0';
    key += v;
    key += '\0';
  }
  return key;
}

}  // namespace

bool ProcessSeriesCap::admit(const Labels& labels, std::int64_t now_ms) {
  const std::string& pid = label_value(labels, "pid");
  if (pid.empty() || pid == "other") return true;
  std::string key = key_of(labels);
  if (auto it = admitted_.find(key); it != admitted_.end()) {
    it->second = now_ms;
    return true;
  }
  if (admitted_.size() >= cap_) forget_idle(now_ms);
  if (admitted_.size() < cap_) {
    refused_.erase(key);
    admitted_.emplace(std::move(key), now_ms);
    return true;
  }
  auto [it, fresh] = refused_.try_emplace(std::move(key), now_ms);
  it->second = now_ms;
  if (fresh) ++dropped_;
  return false;
}

void ProcessSeriesCap::forget_idle(std::int64_t now_ms) {
  // A sweep costs a pass over the admitted series: at most once per forget period (or a tenth of it).
  if (now_ms - last_sweep_ms_ < std::max<std::int64_t>(1, forget_after_ms_ / 10)) return;
  last_sweep_ms_ = now_ms;
  std::erase_if(admitted_, [&](const auto& e) { return now_ms - e.second > forget_after_ms_; });
  std::erase_if(refused_, [&](const auto& e) { return now_ms - e.second > forget_after_ms_; });
}

Labels aggregate_labels(const Labels& labels) {
  Labels out;
  out.reserve(labels.size());
  for (const auto& l : labels) {
    if (l.first == "process") continue;
    if (l.first == "pid") {
      out.emplace_back("pid", "other");
    } else {
      out.push_back(l);
    }
  }
  return out;
}

}  // namespace gpuwatch::store
