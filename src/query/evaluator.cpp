#include "query/evaluator.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <numbers>
#include <numeric>
#include <optional>
#include <span>

#include "core/step_sampled_source.h"
#include "query/function_calls.h"
#include "query/functions.h"
#include "query/histogram_quantile.h"
#include "query/label_functions.h"
#include "query/labels_util.h"
#include "query/operators.h"
#include "query/query_budget.h"
#include "query/query_error.h"
#include "query/sliding_extreme.h"
#include "query/sliding_resets.h"

namespace gpuwatch::query {
namespace {

// Prometheus marks a series' end with this NaN; it is never a value.
constexpr std::uint64_t kStaleNaN = 0x7ff0000000000002ULL;
bool is_stale(double v) {
  return std::bit_cast<std::uint64_t>(v) == kStaleNaN;
}

// Range windows leave stale markers out (as Prometheus does); a copy is made only when a series has one.
std::span<const store::Point> without_stale(std::span<const store::Point> points,
                                            std::vector<store::Point>& scratch) {
  if (std::none_of(points.begin(), points.end(), [](const store::Point& p) { return is_stale(p.value); })) {
    return points;
  }
  scratch.clear();
  for (const auto& p : points) {
    if (!is_stale(p.value)) scratch.push_back(p);
  }
  return scratch;
}

const Expr& unwrap_parens(const Expr& e) {
  const Expr* x = &e;
  while (x->kind == Expr::Kind::kParen) x = x->args[0].get();
  return *x;
}

const std::string& string_arg(const Expr& e) {
  return unwrap_parens(e).text;
}

// The first multiple of `step` at or after `t` (Prometheus aligns a subquery's steps so), or nullopt past
// the end of time.
std::optional<std::int64_t> aligned_up(std::int64_t t, std::int64_t step) {
  std::int64_t r = t / step * step;
  if (r < t && __builtin_add_overflow(r, step, &r)) return std::nullopt;
  return r;
}

using SeriesFn = std::function<void(const store::Labels&, std::span<const store::Point>)>;

// What every evaluator of one query shares, its subqueries' included.
struct QueryContext {
  const store::SeriesSource& source;
  const EvalOptions& options;
  QueryBudget budget;
  std::int64_t start;  // the query's first and last step: `@ start()`, `@ end()`
  std::int64_t end;
};

class Evaluator {
 public:
  Evaluator(QueryContext& query, const Steps& steps) : q_(query), steps_(steps), n_(steps.count()) {}

  Value eval(const Expr& e) {
    q_.budget.check_time();
    switch (e.kind) {
      case Expr::Kind::kNumber:
        return scalar(std::vector<double>(n_, e.number));
      case Expr::Kind::kString: {
        Value v;
        v.type = ValueType::kString;
        v.string = e.text;
        return v;
      }
      case Expr::Kind::kParen:
        return eval(*e.args[0]);
      case Expr::Kind::kNegate:
        return negate(eval(*e.args[0]));
      case Expr::Kind::kVectorSelector:
        return selector(e, false);
      case Expr::Kind::kMatrixSelector:
      case Expr::Kind::kSubquery:
        return raw_matrix(e);
      case Expr::Kind::kCall:
        return call(e);
      case Expr::Kind::kAggregate: {
        std::vector<double> param;
        if (e.args.size() == 2 && e.aggregation != Aggregation::kCountValues) param = eval(*e.args[0]).scalar;
        return aggregate(e, param, eval(*e.args.back()), n_);
      }
      case Expr::Kind::kBinary: {
        Value lhs = eval(*e.args[0]);
        Value rhs = eval(*e.args[1]);
        return binary_operation(e, std::move(lhs), std::move(rhs), n_);
      }
    }
    throw bad_data("unknown expression");
  }

 private:
  static Value scalar(std::vector<double> values) {
    Value v;
    v.type = ValueType::kScalar;
    v.scalar = std::move(values);
    return v;
  }

  StepSeries empty_series(store::Labels labels) {
    q_.budget.take_samples(n_);
    return {std::move(labels), std::vector<double>(n_), std::vector<std::uint8_t>(n_)};
  }

  std::vector<double> step_seconds() const {
    std::vector<double> t(n_);
    for (std::size_t k = 0; k < n_; ++k) t[k] = static_cast<double>(steps_.at(k)) / 1000;
    return t;
  }

  static Value negate(Value v) {
    for (double& x : v.scalar) x = -x;
    for (auto& s : v.vector) {
      drop_metric_name(s.labels);
      for (double& x : s.values) x = -x;
    }
    require_unique_labels(v.vector);
    return v;
  }

  // The time a selector or subquery is evaluated at for step k, before its offset: its @ time, else the
  // step's.
  std::int64_t time_at(const Expr& e, std::size_t k) const {
    switch (e.at) {
      case AtModifier::kNone:
        return steps_.at(k);
      case AtModifier::kTime:
        return e.at_ms;
      case AtModifier::kStart:
        return q_.start;
      case AtModifier::kEnd:
        return q_.end;
    }
    return steps_.at(k);
  }

  // Visits every series of a selector over the whole range (first time - offset - before .. last time -
  // offset), checking the query's time and counting its points against the sample limit series by series.
  void for_each_series(const Expr& selector, std::int64_t offset, std::int64_t before, const SeriesFn& fn) {
    q_.source.for_each_series_checked(
        selector.matchers, minus_ms(minus_ms(time_at(selector, 0), offset), before),
        minus_ms(time_at(selector, n_ - 1), offset),
        [&](const store::Labels& labels, std::span<const store::Point> points) {
          q_.budget.check_time();
          q_.budget.take_samples(points.size());
          fn(labels, points);
        },
        [this] { q_.budget.check_time(); });
  }

  // for_each_series for an instant selector: at each step it uses only the newest point at or before the
  // step, and a source that can (the store) hands out only those.
  void for_each_picked(const Expr& selector, std::int64_t offset, std::int64_t lookback, const SeriesFn& fn) {
    if (selector.at != AtModifier::kNone) return for_each_series(selector, offset, lookback, fn);
    const EvalTimes times{minus_ms(steps_.start, offset), steps_.step, n_};
    gpuwatch::for_each_series_at(
        q_.source, selector.matchers, minus_ms(times.first_ms, lookback),
        minus_ms(time_at(selector, n_ - 1), offset), times,
        [&](const store::Labels& labels, std::span<const store::Point> points) {
          q_.budget.check_time();
          q_.budget.take_samples(points.size());
          fn(labels, points);
        },
        [this] { q_.budget.check_time(); });
  }

  // A subquery's series: its expression evaluated at the multiples of its step inside [first time - offset
  // - range, last time - offset], as points.
  void for_each_subquery_series(const Expr& e, const SeriesFn& fn) {
    const std::int64_t step = e.step_ms > 0 ? e.step_ms : q_.options.subquery_step_ms;
    const auto first = aligned_up(minus_ms(minus_ms(time_at(e, 0), e.offset_ms), e.range_ms), step);
    const std::int64_t last = minus_ms(time_at(e, n_ - 1), e.offset_ms);
    if (!first || *first > last) return;
    const Steps inner_steps{*first, last, step};
    // A value per step at the least: a step far finer than the range fails here, before anything is made.
    q_.budget.take_samples(inner_steps.count());
    Value inner = Evaluator(q_, inner_steps).eval(*e.args[0]);
    std::vector<store::Point> points;
    for (const auto& s : inner.vector) {
      points.clear();
      for (std::size_t k = 0; k < s.present.size(); ++k) {
        if (s.present[k]) points.push_back({inner_steps.at(k), s.values[k]});
      }
      fn(s.labels, points);
    }
  }

  // The series a range vector (a range selector or a subquery) reads, with all their points.
  void for_each_range_series(const Expr& matrix, const SeriesFn& fn) {
    if (matrix.kind == Expr::Kind::kSubquery) {
      for_each_subquery_series(matrix, fn);
    } else {
      const Expr& selector = *matrix.args[0];
      for_each_series(selector, selector.offset_ms, matrix.range_ms, fn);
    }
  }

  // An instant selector: at each step, the newest point no older than the lookback, unless that point is
  // a stale marker (the series ended). `timestamps` gives the point's time instead of its value.
  Value selector(const Expr& e, bool timestamps) {
    Value out;
    out.type = ValueType::kVector;
    const std::int64_t offset = e.offset_ms;
    const std::int64_t lookback = q_.options.lookback_ms;
    for_each_picked(e, offset, lookback, [&](const store::Labels& labels, std::span<const store::Point> pts) {
      StepSeries ss = empty_series({});
      std::size_t i = 0;
      bool any = false;
      for (std::size_t k = 0; k < n_; ++k) {
        const std::int64_t t = minus_ms(time_at(e, k), offset);
        while (i < pts.size() && pts[i].t_ms <= t) ++i;
        if (i == 0 || pts[i - 1].t_ms < minus_ms(t, lookback) || is_stale(pts[i - 1].value)) continue;
        ss.values[k] = timestamps ? static_cast<double>(pts[i - 1].t_ms) / 1000 : pts[i - 1].value;
        ss.present[k] = 1;
        any = true;
      }
      if (!any) return;
      ss.labels = labels;
      out.vector.push_back(std::move(ss));
    });
    std::sort(out.vector.begin(), out.vector.end(),
              [](const auto& a, const auto& b) { return a.labels < b.labels; });
    return out;
  }

  // A range vector as an instant query's result: the raw points of [t - offset - range, t - offset].
  Value raw_matrix(const Expr& e) {
    Value out;
    out.type = ValueType::kMatrix;
    std::vector<store::Point> scratch;
    for_each_range_series(e, [&](const store::Labels& labels, std::span<const store::Point> pts) {
      const auto kept = without_stale(pts, scratch);
      if (!kept.empty()) out.matrix.push_back({labels, {kept.begin(), kept.end()}});
    });
    return out;
  }

  // Calls `fn(series number, labels, step, points in the window, window start, window end)` for every
  // series of a range vector and every step, sliding two indexes over the series' points.
  template <typename Fn>
  void over_windows(const Expr& matrix, Fn&& fn) {
    const Expr& timing = matrix.kind == Expr::Kind::kSubquery ? matrix : *matrix.args[0];  // offset and @
    std::vector<store::Point> scratch;
    std::size_t series = 0;
    for_each_range_series(matrix, [&](const store::Labels& labels, std::span<const store::Point> all) {
      ++series;
      // Stale markers are noticed while walking (one pass over the points); a series with one is walked
      // again from its first step without them. The steps before the marker entered a window see the
      // same points both times, so what `fn` did for them stands.
      if (!walk_windows(timing, matrix.range_ms, series, labels, all, true, fn)) {
        walk_windows(timing, matrix.range_ms, series, labels, without_stale(all, scratch), false, fn);
      }
    });
  }

  // False when `check_stale` and a stale marker would enter a window: `fn` has then been called for the
  // steps before it only.
  template <typename Fn>
  bool walk_windows(const Expr& timing, std::int64_t range, std::size_t series, const store::Labels& labels,
                    std::span<const store::Point> pts, bool check_stale, Fn& fn) {
    std::size_t lo = 0;
    std::size_t hi = 0;
    for (std::size_t k = 0; k < n_; ++k) {
      const std::int64_t end = minus_ms(time_at(timing, k), timing.offset_ms);
      const std::int64_t start = minus_ms(end, range);
      for (; hi < pts.size() && pts[hi].t_ms <= end; ++hi) {
        if (check_stale && is_stale(pts[hi].value)) return false;
      }
      while (lo < hi && pts[lo].t_ms < start) ++lo;
      fn(series, labels, k, pts.subspan(lo, hi - lo), start, end);
    }
    return true;
  }

  Value window_call(const Expr& e, const FunctionDef& f) {
    const Expr& matrix = unwrap_parens(*e.args[f.matrix_arg]);
    std::vector<std::vector<double>> params;
    for (std::size_t i = 0; i < e.args.size(); ++i) {
      if (static_cast<int>(i) != f.matrix_arg) params.push_back(eval(*e.args[i]).scalar);
    }
    params.resize(2, std::vector<double>(n_, 0.0));
    const double range_s = static_cast<double>(matrix.range_ms) / 1000;
    Value v;
    v.type = ValueType::kVector;
    std::vector<store::Labels> input_labels;  // of each output series, for Prometheus's order
    std::size_t current = 0;
    bool any = false;
    SlidingExtreme sliding(f.extreme > 0);
    SlidingResets resets;
    const auto finish = [&] {
      if (current != 0 && !any) {
        v.vector.pop_back();
        input_labels.pop_back();
      }
    };
    over_windows(matrix, [&](std::size_t series, const store::Labels& labels, std::size_t k,
                             std::span<const store::Point> pts, std::int64_t start, std::int64_t end) {
      if (k == 0) {  // a new series, or the same one walked again without stale markers
        sliding.reset();
        resets.reset();
      }
      if (series != current) {
        finish();
        v.vector.push_back(empty_series(labels));
        input_labels.push_back(labels);
        if (!f.keeps_name) drop_metric_name(v.vector.back().labels);
        current = series;
        any = false;
      }
      if (pts.empty()) return;
      const Window w{start, end, steps_.at(k), range_s, params[0][k], params[1][k]};
      const WindowFn fn = f.without_resets != nullptr && !resets.any(pts) ? f.without_resets : f.window;
      if (const auto r = f.extreme != 0 ? sliding.next(pts) : fn(pts, w)) {
        v.vector.back().values[k] = *r;
        v.vector.back().present[k] = 1;
        any = true;
      }
    });
    finish();
    // In the order of the series read (by their own labels), as Prometheus answers an instant query.
    std::vector<std::size_t> order(v.vector.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return input_labels[a] < input_labels[b]; });
    std::vector<StepSeries> sorted;
    sorted.reserve(order.size());
    for (const std::size_t i : order) sorted.push_back(std::move(v.vector[i]));
    v.vector = std::move(sorted);
    require_unique_labels(v.vector);
    return v;
  }

  Value element_call(const Expr& e, const FunctionDef& f) {
    Value v;
    if (e.args.empty()) {  // hour() and the like: of the evaluation time
      v.type = ValueType::kVector;
      StepSeries s = empty_series({});
      s.values = step_seconds();
      std::fill(s.present.begin(), s.present.end(), 1);
      v.vector.push_back(std::move(s));
    } else {
      v = eval(*e.args[0]);
    }
    std::vector<double> a(n_, f.default_param);
    std::vector<double> b(n_, 0.0);
    if (e.args.size() > 1) a = eval(*e.args[1]).scalar;
    if (e.args.size() > 2) b = eval(*e.args[2]).scalar;
    return apply_element(f, std::move(v), a, b);
  }

  Value timestamp_call(const Expr& e) {
    const Expr& arg = unwrap_parens(*e.args[0]);
    Value v;
    if (arg.kind == Expr::Kind::kVectorSelector) {
      v = selector(arg, true);  // the sample's own time, not the step's
    } else {
      v = eval(arg);
      const std::vector<double> t = step_seconds();
      for (auto& s : v.vector) s.values = t;
    }
    for (auto& s : v.vector) drop_metric_name(s.labels);
    merge_equal_labels(v.vector);
    return v;
  }

  Value call(const Expr& e) {
    const FunctionDef& f = *e.function;
    switch (f.kind) {
      case FunctionKind::kWindow:
        return window_call(e, f);
      case FunctionKind::kElement:
        return element_call(e, f);
      case FunctionKind::kTime:
        return scalar(step_seconds());
      case FunctionKind::kPi:
        return scalar(std::vector<double>(n_, std::numbers::pi));
      case FunctionKind::kVector: {
        Value v;
        v.type = ValueType::kVector;
        StepSeries s = empty_series({});
        s.values = eval(*e.args[0]).scalar;
        std::fill(s.present.begin(), s.present.end(), 1);
        v.vector.push_back(std::move(s));
        return v;
      }
      case FunctionKind::kScalar:
        return scalar_of(eval(*e.args[0]), n_);
      case FunctionKind::kAbsent: {
        const Value in = eval(*e.args[0]);
        std::vector<std::uint8_t> seen(n_, 0);
        for (const auto& s : in.vector) {
          for (std::size_t k = 0; k < n_; ++k) seen[k] |= s.present[k];
        }
        return absent_where(seen, *e.args[0]);
      }
      case FunctionKind::kAbsentOverTime: {
        std::vector<std::uint8_t> seen(n_, 0);
        over_windows(unwrap_parens(*e.args[0]),
                     [&](std::size_t, const store::Labels&, std::size_t k, std::span<const store::Point> pts,
                         std::int64_t, std::int64_t) {
                       if (!pts.empty()) seen[k] = 1;
                     });
        return absent_where(seen, *e.args[0]);
      }
      case FunctionKind::kHistogramQuantile: {
        const std::vector<double> q = eval(*e.args[0]).scalar;
        return histogram_quantile(q, eval(*e.args[1]), n_);
      }
      case FunctionKind::kTimestamp:
        return timestamp_call(e);
      case FunctionKind::kSort: {
        Value v = eval(*e.args[0]);
        sort_by_value(v.vector, f.descending);
        return v;
      }
      case FunctionKind::kLabelReplace:
        return label_replace(eval(*e.args[0]), string_arg(*e.args[1]), string_arg(*e.args[2]),
                             string_arg(*e.args[3]), string_arg(*e.args[4]));
      case FunctionKind::kLabelJoin: {
        std::vector<std::string> sources;
        for (std::size_t i = 3; i < e.args.size(); ++i) sources.push_back(string_arg(*e.args[i]));
        return label_join(eval(*e.args[0]), string_arg(*e.args[1]), string_arg(*e.args[2]), sources);
      }
    }
    throw bad_data("unknown function " + e.text);
  }

  QueryContext& q_;
  Steps steps_;
  std::size_t n_;
};

}  // namespace

Value evaluate(const Expr& expr, const store::SeriesSource& source, const Steps& steps,
               const EvalOptions& options) {
  QueryContext query{source, options, QueryBudget(options.timeout, options.max_samples), steps.start,
                     steps.end};
  return Evaluator(query, steps).eval(expr);
}

}  // namespace gpuwatch::query
