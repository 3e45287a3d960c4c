// An alert's identity: a 64-bit hash of its sorted label set, computed exactly as Prometheus's
// model.LabelSet.Fingerprint (FNV-1a over name, 0xff, value, 0xff for each label in name order), so the
// fingerprint gpuwatch shows is the one Alertmanager shows for the same alert.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace gpuwatch::alerting {

using LabelSet = std::map<std::string, std::string>;

std::uint64_t fingerprint(const LabelSet& labels);
// 16 lowercase hex digits, zero-padded, as Alertmanager prints it.
std::string fingerprint_hex(std::uint64_t fp);

}  // namespace gpuwatch::alerting
