#include "query/evaluator.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <span>
#include <unordered_map>

#include "query/functions.h"
#include "query/histogram_quantile.h"
#include "query/labels_util.h"
#include "query/operators.h"
#include "query/query_budget.h"
#include "query/query_error.h"
#include "query/sliding_extreme.h"

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

void sort_by_labels(std::vector<StepSeries>& series) {
  std::sort(series.begin(), series.end(), [](const auto& a, const auto& b) { return a.labels < b.labels; });
}

const Expr& unwrap_parens(const Expr& e) {
  const Expr* x = &e;
  while (x->kind == Expr::Kind::kParen) x = x->args[0].get();
  return *x;
}

class Evaluator {
 public:
  Evaluator(const store::SeriesSource& source, const Steps& steps, const EvalOptions& options)
      : source_(source),
        steps_(steps),
        n_(steps.count()),
        options_(options),
        budget_(options.timeout, options.max_samples) {}

  Value eval(const Expr& e) {
    budget_.check_time();
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
        return raw_matrix(e);
      case Expr::Kind::kCall:
        return call(e);
      case Expr::Kind::kAggregate: {
        std::vector<double> param;
        if (e.args.size() == 2) param = eval(*e.args[0]).scalar;
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
    budget_.take_samples(n_);
    return {std::move(labels), std::vector<double>(n_), std::vector<std::uint8_t>(n_)};
  }

  static Value negate(Value v) {
    for (double& x : v.scalar) x = -x;
    for (auto& s : v.vector) {
      drop_metric_name(s.labels);
      for (double& x : s.values) x = -x;
    }
    return v;
  }

  // Visits every series of a selector over the whole range (start - offset - before .. end - offset),
  // checking the query's time and counting its points against the sample limit series by series.
  void for_each_series(const Expr& selector, std::int64_t before,
                       const std::function<void(const store::Labels&, std::span<const store::Point>)>& fn) {
    source_.for_each_series_checked(
        selector.matchers, minus_ms(minus_ms(steps_.start, selector.offset_ms), before),
        minus_ms(steps_.end, selector.offset_ms),
        [&](const store::Labels& labels, std::span<const store::Point> points) {
          budget_.check_time();
          budget_.take_samples(points.size());
          fn(labels, points);
        },
        [this] { budget_.check_time(); });
  }

  // An instant selector: at each step, the newest point no older than the lookback, unless that point is
  // a stale marker (the series ended).
  Value selector(const Expr& e, bool timestamps) {
    Value out;
    out.type = ValueType::kVector;
    for_each_series(
        e, options_.lookback_ms, [&](const store::Labels& labels, std::span<const store::Point> pts) {
          StepSeries ss = empty_series({});
          std::size_t i = 0;
          bool any = false;
          for (std::size_t k = 0; k < n_; ++k) {
            const std::int64_t t = minus_ms(steps_.at(k), e.offset_ms);
            while (i < pts.size() && pts[i].t_ms <= t) ++i;
            if (i == 0 || pts[i - 1].t_ms < minus_ms(t, options_.lookback_ms) || is_stale(pts[i - 1].value))
              continue;
            ss.values[k] = timestamps ? static_cast<double>(pts[i - 1].t_ms) / 1000 : pts[i - 1].value;
            ss.present[k] = 1;
            any = true;
          }
          if (!any) return;
          ss.labels = labels;
          out.vector.push_back(std::move(ss));
        });
    sort_by_labels(out.vector);
    return out;
  }

  // A range selector as an instant query's result: the raw points of [t - range, t].
  Value raw_matrix(const Expr& e) {
    Value out;
    out.type = ValueType::kMatrix;
    std::vector<store::Point> scratch;
    for_each_series(*e.args[0], e.range_ms,
                    [&](const store::Labels& labels, std::span<const store::Point> pts) {
                      const auto kept = without_stale(pts, scratch);
                      if (!kept.empty()) out.matrix.push_back({labels, {kept.begin(), kept.end()}});
                    });
    return out;
  }

  // Calls `fn(series number, labels, step, points in the window, window start, window end)` for every
  // series of a range selector and every step, sliding two indexes over the series' points.
  template <typename Fn>
  void over_windows(const Expr& matrix, Fn&& fn) {
    const Expr& vs = *matrix.args[0];
    std::vector<store::Point> scratch;
    std::size_t series = 0;
    for_each_series(vs, matrix.range_ms, [&](const store::Labels& labels, std::span<const store::Point> all) {
      ++series;
      // Stale markers are noticed while walking (one pass over the points); a series with one is walked
      // again from its first step without them. The steps before the marker entered a window see the
      // same points both times, so what `fn` did for them stands.
      if (!walk_windows(matrix, series, labels, all, true, fn)) {
        walk_windows(matrix, series, labels, without_stale(all, scratch), false, fn);
      }
    });
  }

  // False when `check_stale` and a stale marker would enter a window: `fn` has then been called for the
  // steps before it only.
  template <typename Fn>
  bool walk_windows(const Expr& matrix, std::size_t series, const store::Labels& labels,
                    std::span<const store::Point> pts, bool check_stale, Fn& fn) {
    const std::int64_t offset = matrix.args[0]->offset_ms;
    std::size_t lo = 0;
    std::size_t hi = 0;
    for (std::size_t k = 0; k < n_; ++k) {
      const std::int64_t end = minus_ms(steps_.at(k), offset);
      const std::int64_t start = minus_ms(end, matrix.range_ms);
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
    std::vector<double> param(n_, 0.0);
    if (f.min_args == 2) param = eval(*e.args[1 - f.matrix_arg]).scalar;
    const double range_s = static_cast<double>(matrix.range_ms) / 1000;
    Value v;
    v.type = ValueType::kVector;
    std::size_t current = 0;
    bool any = false;
    SlidingExtreme sliding(f.extreme > 0);
    const auto finish = [&] {
      if (current != 0 && !any) v.vector.pop_back();
    };
    over_windows(matrix, [&](std::size_t series, const store::Labels& labels, std::size_t k,
                             std::span<const store::Point> pts, std::int64_t start, std::int64_t end) {
      if (k == 0) sliding.reset();  // a new series, or the same one walked again without stale markers
      if (series != current) {
        finish();
        v.vector.push_back(empty_series(labels));
        if (!f.keeps_name) drop_metric_name(v.vector.back().labels);
        current = series;
        any = false;
      }
      const Window w{start, end, steps_.at(k), range_s, param[k]};
      if (const auto r = f.extreme != 0 ? sliding.next(pts) : f.window(pts, w)) {
        v.vector.back().values[k] = *r;
        v.vector.back().present[k] = 1;
        any = true;
      }
    });
    finish();
    check_unique_labels(v.vector);
    return v;
  }

  static void check_unique_labels(std::vector<StepSeries>& series) {
    std::sort(series.begin(), series.end(), [](const auto& a, const auto& b) { return a.labels < b.labels; });
    for (std::size_t i = 1; i < series.size(); ++i) {
      if (series[i].labels == series[i - 1].labels) {
        throw execution_error("vector cannot contain metrics with the same labelset");
      }
    }
  }

  Value element_call(const Expr& e, const FunctionDef& f) {
    Value v = eval(*e.args[0]);
    std::vector<double> a(n_, f.name == "round" ? 1.0 : 0.0);
    std::vector<double> b(n_, 0.0);
    if (e.args.size() > 1) a = eval(*e.args[1]).scalar;
    if (e.args.size() > 2) b = eval(*e.args[2]).scalar;
    const bool clamp = f.name == "clamp";
    for (auto& s : v.vector) {
      drop_metric_name(s.labels);
      for (std::size_t k = 0; k < n_; ++k) {
        if (clamp && b[k] < a[k]) s.present[k] = 0;  // Prometheus: max below min gives nothing
        s.values[k] = f.element(s.values[k], a[k], b[k]);
      }
    }
    std::erase_if(v.vector, [](const StepSeries& s) {
      return std::find(s.present.begin(), s.present.end(), 1) == s.present.end();
    });
    check_unique_labels(v.vector);
    return v;
  }

  // absent()'s labels: the equality matchers of a selector argument (a label given twice is left out).
  static store::Labels absent_labels(const Expr& arg) {
    const Expr& x = unwrap_parens(arg);
    const Expr* vs = x.kind == Expr::Kind::kMatrixSelector ? x.args[0].get() : &x;
    store::Labels labels;
    if (vs->kind != Expr::Kind::kVectorSelector) return labels;
    std::vector<std::string> twice;
    for (const auto& m : vs->matchers) {
      if (m.op() != store::LabelMatcher::Op::kEqual || m.name() == kMetricName) continue;
      if (!label_value(labels, m.name()).empty()) twice.push_back(m.name());
      set_label(labels, m.name(), m.value());
    }
    for (const auto& name : twice) set_label(labels, name, "");
    return labels;
  }

  static const std::string& label_value(const store::Labels& labels, const std::string& name) {
    static const std::string kEmpty;
    for (const auto& l : labels) {
      if (l.first == name) return l.second;
    }
    return kEmpty;
  }

  Value absent_from(std::vector<std::uint8_t> seen, const Expr& arg) {
    StepSeries s = empty_series(absent_labels(arg));
    bool any = false;
    for (std::size_t k = 0; k < n_; ++k) {
      if (seen[k]) continue;
      s.values[k] = 1;
      s.present[k] = 1;
      any = true;
    }
    Value v;
    v.type = ValueType::kVector;
    if (any) v.vector.push_back(std::move(s));
    return v;
  }

  Value call(const Expr& e) {
    const FunctionDef& f = *e.function;
    switch (f.kind) {
      case FunctionKind::kWindow:
        return window_call(e, f);
      case FunctionKind::kElement:
        return element_call(e, f);
      case FunctionKind::kTime: {
        std::vector<double> t(n_);
        for (std::size_t k = 0; k < n_; ++k) t[k] = static_cast<double>(steps_.at(k)) / 1000;
        return scalar(std::move(t));
      }
      case FunctionKind::kVector: {
        Value v;
        v.type = ValueType::kVector;
        StepSeries s = empty_series({});
        s.values = eval(*e.args[0]).scalar;
        std::fill(s.present.begin(), s.present.end(), 1);
        v.vector.push_back(std::move(s));
        return v;
      }
      case FunctionKind::kScalar: {
        const Value in = eval(*e.args[0]);
        std::vector<double> out(n_, NAN);
        std::vector<int> count(n_, 0);
        for (const auto& s : in.vector) {
          for (std::size_t k = 0; k < n_; ++k) {
            if (s.present[k] && ++count[k] == 1) out[k] = s.values[k];
          }
        }
        for (std::size_t k = 0; k < n_; ++k) {
          if (count[k] != 1) out[k] = NAN;
        }
        return scalar(std::move(out));
      }
      case FunctionKind::kAbsent: {
        const Value in = eval(*e.args[0]);
        std::vector<std::uint8_t> seen(n_, 0);
        for (const auto& s : in.vector) {
          for (std::size_t k = 0; k < n_; ++k) seen[k] |= s.present[k];
        }
        return absent_from(std::move(seen), *e.args[0]);
      }
      case FunctionKind::kAbsentOverTime: {
        std::vector<std::uint8_t> seen(n_, 0);
        over_windows(unwrap_parens(*e.args[0]),
                     [&](std::size_t, const store::Labels&, std::size_t k, std::span<const store::Point> pts,
                         std::int64_t, std::int64_t) {
                       if (!pts.empty()) seen[k] = 1;
                     });
        return absent_from(std::move(seen), *e.args[0]);
      }
      case FunctionKind::kHistogramQuantile: {
        const std::vector<double> q = eval(*e.args[0]).scalar;
        return histogram_quantile(q, eval(*e.args[1]), n_);
      }
      case FunctionKind::kTimestamp: {
        const Expr& arg = unwrap_parens(*e.args[0]);
        Value v;
        if (arg.kind == Expr::Kind::kVectorSelector) {
          v = selector(arg, true);  // the sample's own time, not the step's
        } else {
          v = eval(arg);
          for (auto& s : v.vector) {
            for (std::size_t k = 0; k < n_; ++k) s.values[k] = static_cast<double>(steps_.at(k)) / 1000;
          }
        }
        for (auto& s : v.vector) drop_metric_name(s.labels);
        check_unique_labels(v.vector);
        return v;
      }
    }
    throw bad_data("unknown function " + e.text);
  }

  const store::SeriesSource& source_;
  Steps steps_;
  std::size_t n_;
  EvalOptions options_;
  QueryBudget budget_;
};

}  // namespace

Value evaluate(const Expr& expr, const store::SeriesSource& source, const Steps& steps,
               const EvalOptions& options) {
  return Evaluator(source, steps, options).eval(expr);
}

}  // namespace gpuwatch::query
