#include "gpu_samples.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace gpuwatch::test {
namespace {

// splitmix64: a seeded, portable generator so every run writes the same values.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) / 9007199254740992.0; }  // [0, 1)
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }

 private:
  std::uint64_t state_;
};

// A value as the exposition writes it, read back the way a parser reads it: both sides see the same bits.
double decimal(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return std::strtod(buf, nullptr);
}

store::Labels gpu_labels(const std::string& name, int gpu) {
  return {{"__name__", name}, {"gpu", std::to_string(gpu)}, {"uuid", "GPU-" + std::to_string(1000 + gpu)}};
}

}  // namespace

std::vector<Family> make_gpu_samples(std::int64_t start_ms, std::int64_t duration_ms) {
  Random rnd(42);
  constexpr int kGpus = 4;
  const std::int64_t end_ms = start_ms + duration_ms;
  std::vector<std::int64_t> times;
  for (std::int64_t t = start_ms; t < end_ms; t += 15'000) times.push_back(t + rnd.below(900));

  Family energy{"gpu_energy_joules_total", {}}, temperature{"gpu_temperature_celsius", {}},
      power{"gpu_power_watts", {}}, util{"gpu_utilization_ratio", {}}, memory{"gpu_memory_used_bytes", {}},
      info{"gpu_info", {}}, xid{"gpu_xid_errors_total", {}};
  const std::vector<std::string> les = {"0.001", "0.01", "0.1", "1", "+Inf"};
  Family bucket{"gpu_kernel_duration_seconds_bucket", {}}, count{"gpu_kernel_duration_seconds_count", {}};
  for (int g = 0; g < kGpus; ++g) {
    store::SeriesPoints e{gpu_labels(energy.name, g), {}}, tc{gpu_labels(temperature.name, g), {}},
        pw{gpu_labels(power.name, g), {}}, ut{gpu_labels(util.name, g), {}},
        mem{gpu_labels(memory.name, g), {}}, in{gpu_labels(info.name, g), {}},
        cnt{gpu_labels(count.name, g), {}};
    in.labels.emplace_back("model", g < 2 ? "H200" : "H100");
    std::vector<store::SeriesPoints> buckets;
    for (const auto& le : les) {
      auto labels = gpu_labels(bucket.name, g);
      labels.insert(labels.begin() + 2, {"le", le});
      buckets.push_back({labels, {}});
    }
    double joules = 1000 * (g + 1) + rnd.uniform() * 100;
    double temp = 40 + g;
    double used = (20000 + 1000 * g) * 1048576.0;
    std::vector<double> observed(les.size(), 0);
    for (std::size_t i = 0; i < times.size(); ++i) {
      const std::int64_t t = times[i];
      const double minutes = static_cast<double>(t - start_ms) / 60'000;
      const double watts = decimal(300 + 200 * std::sin(minutes / 17 + g) + rnd.uniform() * 50, 3);
      // Counter resets (a driver reload) on GPU 1 once and on GPU 2 twice.
      if ((g == 1 && i == times.size() / 3) || (g == 2 && (i == times.size() / 4 || i == times.size() / 2))) {
        joules = rnd.uniform() * 10;
      }
      joules = decimal(joules + watts * 15, 3);
      e.points.push_back({t, joules});
      temp = std::max(30.0, std::min(90.0, temp + rnd.below(3) - 1));
      tc.points.push_back({t, temp});
      pw.points.push_back({t, watts});
      // GPU 3 is silent for 20 minutes (longer than the lookback); GPU 2's utilization ends 30 minutes early.
      const bool gap = g == 3 && minutes > 70 && minutes < 90;
      const bool ended = g == 2 && t > end_ms - 30 * 60'000;
      if (!gap && !ended) ut.points.push_back({t, decimal(rnd.uniform(), 2)});
      if (rnd.below(20) == 0) used += (rnd.below(5) - 2) * 1048576.0 * 256;
      mem.points.push_back({t, used});
      in.points.push_back({t, 1});
      const int kernels = 50 + rnd.below(100);
      for (int k = 0; k < kernels; ++k) {
        const double d = std::pow(10.0, -4 + 4 * rnd.uniform());
        for (std::size_t b = 0; b < les.size(); ++b) {
          if (b + 1 == les.size() || d <= std::strtod(les[b].c_str(), nullptr)) observed[b] += 1;
        }
      }
      for (std::size_t b = 0; b < les.size(); ++b) buckets[b].points.push_back({t, observed[b]});
      cnt.points.push_back({t, observed.back()});
    }
    energy.series.push_back(std::move(e));
    temperature.series.push_back(std::move(tc));
    power.series.push_back(std::move(pw));
    util.series.push_back(std::move(ut));
    memory.series.push_back(std::move(mem));
    info.series.push_back(std::move(in));
    count.series.push_back(std::move(cnt));
    for (auto& b : buckets) bucket.series.push_back(std::move(b));
  }
  // A sparse XID counter on GPU 1 that steps twice.
  store::SeriesPoints x{gpu_labels(xid.name, 1), {}};
  x.labels.emplace_back("xid", "79");
  for (std::size_t i = 0; i < times.size(); ++i) {
    x.points.push_back({times[i], static_cast<double>(i > times.size() / 2) +
                                      static_cast<double>(i > times.size() * 3 / 4)});
  }
  xid.series.push_back(std::move(x));
  return {energy, temperature, power, util, memory, info, xid, bucket, count};
}

std::string to_openmetrics(const std::vector<Family>& families) {
  std::string out;
  char buf[128];
  for (const auto& f : families) {
    out += "# TYPE " + f.name + " gauge\n";
    for (const auto& s : f.series) {
      std::string labels;
      for (const auto& [k, v] : s.labels) {
        if (k == "__name__") continue;
        labels += (labels.empty() ? "" : ",") + k + "=\"" + v + "\"";
      }
      for (const auto& p : s.points) {
        std::snprintf(buf, sizeof buf, " %.17g %lld.%03lld\n", p.value, static_cast<long long>(p.t_ms / 1000),
                      static_cast<long long>(p.t_ms % 1000));
        out += f.name + "{" + labels + "}" + buf;
      }
    }
  }
  return out + "# EOF\n";
}

void load(query::MemorySeriesSource& source, const std::vector<Family>& families) {
  for (const auto& f : families) {
    for (const auto& s : f.series) {
      source.add_series(s.labels, s.points);
    }
  }
}

}  // namespace gpuwatch::test
