// Binary operators. Vector matching is decided once per pair of series (labels do not change across steps);
// the per-step work is only the arithmetic and the uniqueness checks Prometheus makes.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "query/labels_util.h"
#include "query/operators.h"
#include "query/query_error.h"

namespace gpuwatch::query {
namespace {

using Card = VectorMatching::Card;

struct Result {
  double value;
  bool keep;
};

// Comparisons keep the left value when true (a filter); arithmetic always keeps.
Result apply(BinaryOp op, double l, double r) {
  switch (op) {
    case BinaryOp::kAdd:
      return {l + r, true};
    case BinaryOp::kSub:
      return {l - r, true};
    case BinaryOp::kMul:
      return {l * r, true};
    case BinaryOp::kDiv:
      return {l / r, true};
    case BinaryOp::kMod:
      return {std::fmod(l, r), true};
    case BinaryOp::kPow:
      return {std::pow(l, r), true};
    case BinaryOp::kAtan2:
      return {std::atan2(l, r), true};
    case BinaryOp::kEq:
      return {l, l == r};
    case BinaryOp::kNe:
      return {l, l != r};
    case BinaryOp::kGt:
      return {l, l > r};
    case BinaryOp::kLt:
      return {l, l < r};
    case BinaryOp::kGe:
      return {l, l >= r};
    case BinaryOp::kLe:
      return {l, l <= r};
    default:
      return {0, false};
  }
}

Value scalar_scalar(const Expr& e, Value lhs, const Value& rhs) {
  for (std::size_t k = 0; k < lhs.scalar.size(); ++k) {
    const Result r = apply(e.op, lhs.scalar[k], rhs.scalar[k]);
    lhs.scalar[k] = is_comparison(e.op) ? (r.keep ? 1.0 : 0.0) : r.value;
  }
  return lhs;
}

// `vector op scalar`, or `scalar op vector` when swapped.
Value vector_scalar(const Expr& e, Value vec, const std::vector<double>& scalar, bool swapped) {
  const bool drop_name = drops_metric_name(e.op) || e.return_bool;
  for (auto& s : vec.vector) {
    if (drop_name) drop_metric_name(s.labels);
    for (std::size_t k = 0; k < s.values.size(); ++k) {
      if (!s.present[k]) continue;
      const double v = s.values[k];
      Result r = swapped ? apply(e.op, scalar[k], v) : apply(e.op, v, scalar[k]);
      if (is_comparison(e.op) && swapped) r.value = v;  // the vector's value survives a filter
      if (e.return_bool) r = {r.keep ? 1.0 : 0.0, true};
      if (r.keep) {
        s.values[k] = r.value;
      } else {
        s.present[k] = 0;
      }
    }
  }
  std::erase_if(vec.vector, [](const StepSeries& s) { return !has_any(s); });
  return vec;
}

std::string signature(const Expr& e, const store::Labels& labels) {
  return labels_key(e.matching.on ? keep_labels(labels, e.matching.labels)
                                  : remove_labels(labels, e.matching.labels));
}

Value set_operation(const Expr& e, Value lhs, Value rhs, std::size_t steps) {
  // For each signature, the steps at which the other side has it.
  const auto presence = [&](const std::vector<StepSeries>& side) {
    std::unordered_map<std::string, std::vector<std::uint8_t>> seen;
    for (const auto& s : side) {
      auto& p = seen.try_emplace(signature(e, s.labels), steps, 0).first->second;
      for (std::size_t k = 0; k < steps; ++k) p[k] |= s.present[k];
    }
    return seen;
  };
  Value out;
  out.type = ValueType::kVector;
  if (e.op == BinaryOp::kOr) {
    const auto left = presence(lhs.vector);
    out.vector = std::move(lhs.vector);
    for (auto& s : rhs.vector) {
      const auto it = left.find(signature(e, s.labels));
      if (it != left.end()) {
        for (std::size_t k = 0; k < steps; ++k) s.present[k] &= !it->second[k];
      }
      if (has_any(s)) out.vector.push_back(std::move(s));
    }
    return out;
  }
  const auto right = presence(rhs.vector);
  for (auto& s : lhs.vector) {
    const auto it = right.find(signature(e, s.labels));
    for (std::size_t k = 0; k < steps; ++k) {
      const bool there = it != right.end() && it->second[k];
      if (e.op == BinaryOp::kAnd ? !there : there) s.present[k] = 0;
    }
    if (has_any(s)) out.vector.push_back(std::move(s));
  }
  return out;
}

store::Labels result_labels(const Expr& e, const store::Labels& many, const store::Labels& one) {
  store::Labels labels = many;
  if (drops_metric_name(e.op) || e.return_bool) drop_metric_name(labels);
  if (e.matching.card == Card::kOneToOne) {
    labels = e.matching.on ? keep_labels(labels, e.matching.labels) : [&] {
      store::Labels kept;
      for (const auto& l : labels) {
        if (std::find(e.matching.labels.begin(), e.matching.labels.end(), l.first) ==
            e.matching.labels.end()) {
          kept.push_back(l);
        }
      }
      return kept;
    }();
  }
  for (const auto& name : e.matching.include) {
    std::string value;
    for (const auto& l : one) {
      if (l.first == name) value = l.second;
    }
    set_label(labels, name, value);
  }
  return labels;
}

Value vector_vector(const Expr& e, Value lhs, Value rhs, std::size_t steps) {
  const bool swap = e.matching.card == Card::kOneToMany;
  const std::vector<StepSeries>& many = swap ? rhs.vector : lhs.vector;
  const std::vector<StepSeries>& one = swap ? lhs.vector : rhs.vector;
  std::unordered_map<std::string, std::vector<std::size_t>> ones;
  for (std::size_t i = 0; i < one.size(); ++i) ones[signature(e, one[i].labels)].push_back(i);
  // The "one" side must be unique per signature at every step.
  for (const auto& [sig, members] : ones) {
    if (members.size() < 2) continue;
    for (std::size_t k = 0; k < steps; ++k) {
      int n = 0;
      for (const std::size_t i : members) n += one[i].present[k];
      if (n > 1) {
        throw execution_error(
            std::string("found duplicate series for the match group on the ") + (swap ? "left" : "right") +
            " hand-side of the operation; many-to-many matching not allowed: matching labels "
            "must be unique on one side");
      }
    }
  }
  Value out;
  out.type = ValueType::kVector;
  std::unordered_map<std::string, std::size_t> index;
  for (const auto& m : many) {
    const auto it = ones.find(signature(e, m.labels));
    if (it == ones.end()) continue;
    for (const std::size_t oi : it->second) {
      const StepSeries& o = one[oi];
      store::Labels labels = result_labels(e, m.labels, o.labels);
      const auto [slot, inserted] = index.try_emplace(labels_key(labels), out.vector.size());
      if (inserted)
        out.vector.push_back(
            {std::move(labels), std::vector<double>(steps), std::vector<std::uint8_t>(steps)});
      StepSeries& r = out.vector[slot->second];
      for (std::size_t k = 0; k < steps; ++k) {
        if (!m.present[k] || !o.present[k]) continue;
        const double vl = swap ? o.values[k] : m.values[k];
        const double vr = swap ? m.values[k] : o.values[k];
        Result res = apply(e.op, vl, vr);
        if (e.return_bool) res = {res.keep ? 1.0 : 0.0, true};
        if (!res.keep) continue;
        if (r.present[k]) {
          throw execution_error(
              e.matching.card == Card::kOneToOne
                  ? "multiple matches for labels: many-to-one matching must be explicit "
                    "(group_left/group_right)"
                  : "multiple matches for labels: grouping labels must ensure unique matches");
        }
        r.values[k] = res.value;
        r.present[k] = 1;
      }
    }
  }
  std::erase_if(out.vector, [](const StepSeries& s) { return !has_any(s); });
  return out;
}

}  // namespace

Value binary_operation(const Expr& e, Value lhs, Value rhs, std::size_t steps) {
  const bool ls = lhs.type == ValueType::kScalar;
  const bool rs = rhs.type == ValueType::kScalar;
  if (ls && rs) return scalar_scalar(e, std::move(lhs), rhs);
  if (rs) return vector_scalar(e, std::move(lhs), rhs.scalar, false);
  if (ls) return vector_scalar(e, std::move(rhs), lhs.scalar, true);
  if (is_set_operator(e.op)) return set_operation(e, std::move(lhs), std::move(rhs), steps);
  return vector_vector(e, std::move(lhs), std::move(rhs), steps);
}

}  // namespace gpuwatch::query
