#include "sim/gpu_models.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace gpuwatch::sim {
namespace {

// Totals as nvidia-smi prints them on the real cards (FB Memory Usage, Total), which NVML reports as whole
// MiB: 143771 MiB for an H200 (not 141 GiB), 81559 MiB for an H100 80GB HBM3, 81920 MiB for an
// A100-SXM4-80GB.
constexpr unsigned long long kMiB = 1024ULL * 1024;

// Instance sizes as nvidia-smi mig -lgip lists them for each card.
constexpr std::array<MigProfile, 6> kA100_80Profiles = {{
    {"1g.10gb", 1, 9728},
    {"1g.20gb", 1, 19968},
    {"2g.20gb", 2, 19968},
    {"3g.40gb", 3, 40192},
    {"4g.40gb", 4, 40192},
    {"7g.80gb", 7, 80896},
}};
constexpr std::array<MigProfile, 6> kH100_80Profiles = {{
    {"1g.10gb", 1, 9984},
    {"1g.20gb", 1, 20096},
    {"2g.20gb", 2, 20096},
    {"3g.40gb", 3, 40320},
    {"4g.40gb", 4, 40320},
    {"7g.80gb", 7, 80640},
}};
constexpr std::array<MigProfile, 6> kH200Profiles = {{
    {"1g.18gb", 1, 16384},
    {"1g.35gb", 1, 32768},
    {"2g.35gb", 2, 32768},
    {"3g.71gb", 3, 69632},
    {"4g.71gb", 4, 69632},
    {"7g.141gb", 7, 143360},
}};

const std::array<GpuModel, 3> kModels = {{
    {"H200",
     "NVIDIA H200",
     0x2335,
     143771 * kMiB,
     700,
     90,
     5,
     16,
     true,
     false,
     true,
     18,
     26562,
     1980,
     345,
     3201,
     1755,
     92,
     89,
     95,
     87,
     32,
     40,
     "96.00.AF.00.01",
     kH200Profiles,
     262144,
     {9, 0}},
    {"H100-SXM",
     "NVIDIA H100 80GB HBM3",
     0x2330,
     81559 * kMiB,
     700,
     70,
     5,
     16,
     true,
     false,
     true,
     18,
     26562,
     1980,
     345,
     2619,
     1755,
     92,
     89,
     95,
     87,
     31,
     42,
     "96.00.5E.00.01",
     kH100_80Profiles,
     131072,
     {9, 0}},
    {"A100-SXM4-80GB",
     "NVIDIA A100-SXM4-80GB",
     0x20B2,
     81920 * kMiB,
     400,
     55,
     4,
     16,
     false,
     false,
     true,
     12,
     25781,
     1410,
     210,
     1593,
     1290,
     92,
     89,
     95,
     87,
     30,
     38,
     "92.00.45.00.01",
     kA100_80Profiles,
     131072,
     {8, 0}},
}};

struct Alias {
  std::string_view alias;
  std::string_view key;
};
constexpr std::array<Alias, 3> kAliases = {
    {{"H100", "H100-SXM"}, {"A100", "A100-SXM4-80GB"}, {"A100-80GB", "A100-SXM4-80GB"}}};

bool same_text(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace

const GpuModel* find_gpu_model(std::string_view key_or_name) {
  for (const auto& a : kAliases)
    if (same_text(a.alias, key_or_name)) key_or_name = a.key;
  for (const auto& m : kModels)
    if (same_text(m.key, key_or_name) || same_text(m.name, key_or_name)) return &m;
  return nullptr;
}

std::vector<std::string_view> gpu_model_keys() {
  std::vector<std::string_view> keys;
  for (const auto& m : kModels) keys.push_back(m.key);
  for (const auto& a : kAliases) keys.push_back(a.alias);
  return keys;
}

const MigProfile* find_mig_profile(const GpuModel& model, std::string_view name) {
  for (const auto& p : model.mig_profiles)
    if (same_text(p.name, name)) return &p;
  return nullptr;
}

}  // namespace gpuwatch::sim
