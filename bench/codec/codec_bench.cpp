// Encodes the shared GPU telemetry corpus with the history chunk codec and reports bytes/sample
// (overall, per class of series, per metric family) and encode/decode samples/s (Google Benchmark).
//
//   codec_bench --corpus corpus.prom [--block-seconds 7200] [--zstd-level 3] [--no-entropy] [--no-reference]
//               [benchmark flags]
// Energy counters are coded against the power of the same GPU (store/reference_pairs.h) unless
// --no-reference.
#include <benchmark/benchmark.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "corpus.h"
#include "store/chunk_codec.h"
#include "store/reference_pairs.h"

namespace gpuwatch::bench {
namespace {

using store::BlockDecoder;
using store::BlockEncoder;

struct BlockInput {
  std::size_t series = 0;
  std::span<const std::int64_t> t;
  std::span<const double> v;
  store::SeriesReference reference;  // the paired series' samples over the same window, if any
};

struct Run {
  std::vector<CorpusSeries> corpus;
  std::vector<BlockInput> blocks;
  std::vector<std::vector<std::uint8_t>> encoded;
  std::size_t samples = 0;
  store::EncodeOptions options;
  bool references = true;
};

std::string family_of(const std::string& name);

// The index of each series' reference series (reference_pairs.h), or -1.
std::vector<long> reference_index(const std::vector<CorpusSeries>& corpus) {
  std::map<std::string, long> by_name;
  for (std::size_t s = 0; s < corpus.size(); ++s) by_name[corpus[s].name] = static_cast<long>(s);
  std::vector<long> out(corpus.size(), -1);
  for (std::size_t s = 0; s < corpus.size(); ++s) {
    const std::string family = family_of(corpus[s].name);
    const std::string_view ref = store::reference_metric_for(family);
    if (ref.empty()) continue;
    const auto it = by_name.find(std::string(ref) + corpus[s].name.substr(family.size()));
    if (it != by_name.end() && corpus[it->second].timestamps_ms == corpus[s].timestamps_ms)
      out[s] = it->second;
  }
  return out;
}

// Blocks are aligned windows of `block_ms` since the epoch, as the store will cut them.
std::vector<BlockInput> cut_blocks(const std::vector<CorpusSeries>& corpus, std::int64_t block_ms,
                                   bool references) {
  std::vector<BlockInput> blocks;
  const std::vector<long> refs = reference_index(corpus);
  for (std::size_t s = 0; s < corpus.size(); ++s) {
    const auto& t = corpus[s].timestamps_ms;
    std::size_t begin = 0;
    for (std::size_t i = 1; i <= t.size(); ++i) {
      if (i == t.size() || t[i] / block_ms != t[begin] / block_ms) {
        store::SeriesReference ref;
        if (references && refs[s] >= 0) {
          const auto& r = corpus[static_cast<std::size_t>(refs[s])];
          ref = {std::span(r.timestamps_ms).subspan(begin, i - begin),
                 std::span(r.values).subspan(begin, i - begin)};
        }
        blocks.push_back({s, std::span(t).subspan(begin, i - begin),
                          std::span(corpus[s].values).subspan(begin, i - begin), ref});
        begin = i;
      }
    }
  }
  return blocks;
}

std::string family_of(const std::string& name) {
  return name.substr(0, name.find('{'));
}

const char* class_of(const CorpusSeries& s, bool any_xor_block) {
  const auto first = std::bit_cast<std::uint64_t>(s.values[0]);
  bool constant = true;
  bool integer = true;
  for (const double v : s.values) {
    constant = constant && std::bit_cast<std::uint64_t>(v) == first;
    integer = integer && std::isfinite(v) && v == std::trunc(v);
  }
  if (constant) return "constant";
  if (integer) return "integer-valued";
  return any_xor_block ? "noisy float" : "decimal";
}

struct Tally {
  std::size_t series = 0;
  std::size_t samples = 0;
  std::size_t bytes = 0;
};

void print_table(const char* title, const std::map<std::string, Tally>& rows, std::size_t total_samples) {
  std::printf(
      "\n| %s | series | samples | share of samples | bytes | bytes/sample |\n| --- | ---: | ---: | ---: | "
      "---: | ---: |\n",
      title);
  for (const auto& [key, t] : rows) {
    std::printf("| %s | %zu | %zu | %.1f%% | %zu | %.3f |\n", key.c_str(), t.series, t.samples,
                100.0 * static_cast<double>(t.samples) / static_cast<double>(total_samples), t.bytes,
                static_cast<double>(t.bytes) / static_cast<double>(t.samples));
  }
}

int report(Run& run) {
  BlockEncoder encoder(run.options);
  const auto e0 = std::chrono::steady_clock::now();
  run.encoded.clear();
  for (const auto& b : run.blocks) run.encoded.push_back(encoder.encode(b.t, b.v, b.reference));
  const auto e1 = std::chrono::steady_clock::now();

  BlockDecoder decoder;
  std::vector<std::int64_t> t;
  std::vector<double> v;
  std::size_t mismatched = 0;
  std::vector<Tally> per_series(run.corpus.size());
  std::vector<bool> any_xor(run.corpus.size(), false);
  std::map<std::string, Tally> by_encoding;
  const auto d0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < run.blocks.size(); ++i) {
    const auto& in = run.blocks[i];
    decoder.decode_into(run.encoded[i], t, v, in.reference);
    if (!std::equal(t.begin(), t.end(), in.t.begin(), in.t.end()) ||
        std::memcmp(v.data(), in.v.data(), v.size() * sizeof(double)) != 0) {
      ++mismatched;
    }
  }
  const auto d1 = std::chrono::steady_clock::now();
  std::size_t total_bytes = 0;
  for (std::size_t i = 0; i < run.blocks.size(); ++i) {
    const auto info = store::inspect_block(run.encoded[i]);
    const auto s = run.blocks[i].series;
    per_series[s].bytes += run.encoded[i].size();
    per_series[s].samples += info.samples;
    any_xor[s] = any_xor[s] || info.values == store::ValueEncoding::kXor;
    auto& e = by_encoding[std::string(store::to_string(info.values)) + (info.zstd ? " + zstd" : "") +
                          (info.needs_reference ? " + reference" : "")];
    ++e.series;  // counts blocks in this table
    e.samples += info.samples;
    e.bytes += run.encoded[i].size();
    total_bytes += run.encoded[i].size();
  }
  std::map<std::string, Tally> by_class;
  std::map<std::string, Tally> by_family;
  for (std::size_t s = 0; s < run.corpus.size(); ++s) {
    for (auto* table :
         {&by_class[class_of(run.corpus[s], any_xor[s])], &by_family[family_of(run.corpus[s].name)]}) {
      ++table->series;
      table->samples += per_series[s].samples;
      table->bytes += per_series[s].bytes;
    }
  }
  const double enc_s = std::chrono::duration<double>(e1 - e0).count();
  const double dec_s = std::chrono::duration<double>(d1 - d0).count();
  std::printf("corpus: %zu series, %zu samples, %zu blocks, zstd level %d\n", run.corpus.size(), run.samples,
              run.blocks.size(), run.options.zstd_level);
  std::printf("overall: %zu bytes, %.4f bytes/sample\n", total_bytes,
              static_cast<double>(total_bytes) / static_cast<double>(run.samples));
  std::printf("single pass: encode %.1f M samples/s, decode %.1f M samples/s (one core)\n",
              static_cast<double>(run.samples) / enc_s / 1e6, static_cast<double>(run.samples) / dec_s / 1e6);
  std::printf("round trip: %zu of %zu blocks differ\n", mismatched, run.blocks.size());
  print_table("class of series", by_class, run.samples);
  print_table("metric family", by_family, run.samples);
  print_table("block encoding (series column counts blocks)", by_encoding, run.samples);
  std::printf("\n");
  std::fflush(stdout);
  return mismatched == 0 ? 0 : 1;
}

void register_benchmarks(Run& run) {
  benchmark::RegisterBenchmark(
      "encode_corpus",
      [&run](benchmark::State& state) {
        BlockEncoder encoder(run.options);
        for (auto _ : state) {
          for (const auto& b : run.blocks) benchmark::DoNotOptimize(encoder.encode(b.t, b.v, b.reference));
        }
        state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(run.samples));
      })
      ->Unit(benchmark::kMillisecond)
      ->Iterations(3);
  benchmark::RegisterBenchmark(
      "decode_corpus",
      [&run](benchmark::State& state) {
        BlockDecoder decoder;
        std::vector<std::int64_t> t;
        std::vector<double> v;
        for (auto _ : state) {
          for (std::size_t i = 0; i < run.encoded.size(); ++i) {
            decoder.decode_into(run.encoded[i], t, v, run.blocks[i].reference);
            benchmark::DoNotOptimize(v.data());
          }
        }
        state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(run.samples));
      })
      ->Unit(benchmark::kMillisecond)
      ->Iterations(3);
}

}  // namespace
}  // namespace gpuwatch::bench

int main(int argc, char** argv) {
  using namespace gpuwatch::bench;
  std::vector<std::string> corpus_paths;
  std::int64_t block_seconds = 7200;
  Run run;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--corpus" || a == "--block-seconds" || a == "--zstd-level") && i + 1 < argc) {
      const std::string value = argv[++i];
      if (a == "--corpus")
        corpus_paths.push_back(value);
      else if (a == "--block-seconds")
        block_seconds = std::stoll(value);
      else
        run.options.zstd_level = std::stoi(value);
    } else if (a == "--no-entropy") {
      run.options.entropy_coding = false;
    } else if (a == "--no-reference") {
      run.references = false;
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (corpus_paths.empty() || block_seconds <= 0) {
    std::fprintf(stderr,
                 "usage: codec_bench --corpus FILE.prom [--corpus FILE.prom...] [--block-seconds 7200] "
                 "[--zstd-level 3] "
                 "[--no-entropy] [--no-reference] [benchmark flags]\n");
    return 2;
  }
  try {
    // Several files (a split export, in time order) make one corpus: series are joined by name.
    std::map<std::string, std::size_t> index;
    for (const auto& path : corpus_paths) {
      for (auto& s : load_prometheus_text(path)) {
        const auto [it, added] = index.try_emplace(s.name, run.corpus.size());
        if (added) {
          run.corpus.push_back(std::move(s));
          continue;
        }
        auto& into = run.corpus[it->second];
        into.timestamps_ms.insert(into.timestamps_ms.end(), s.timestamps_ms.begin(), s.timestamps_ms.end());
        into.values.insert(into.values.end(), s.values.begin(), s.values.end());
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "codec_bench: %s\n", e.what());
    return 1;
  }
  for (const auto& s : run.corpus) run.samples += s.values.size();
  run.blocks = cut_blocks(run.corpus, block_seconds * 1000, run.references);
  std::printf("blocks: aligned %lld s windows\n", static_cast<long long>(block_seconds));
  const int rc = report(run);
  int bargc = static_cast<int>(rest.size());
  benchmark::Initialize(&bargc, rest.data());
  register_benchmarks(run);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return rc;
}
