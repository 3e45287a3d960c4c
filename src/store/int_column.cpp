#include "store/int_column.h"

#include <string>
#include <vector>

#include "store/entropy_column.h"
#include "store/static_entropy_column.h"

namespace gpuwatch::store {
namespace {

enum class IntForm : std::uint8_t { kPlain = 0, kRuns = 1, kEntropy = 2, kStaticEntropy = 3 };

struct FormSizes {
  std::size_t plain = 1;
  std::size_t runs = 1;
};

FormSizes measure(std::span<const std::int64_t> values) {
  FormSizes s;
  std::size_t i = 0;
  while (i < values.size()) {
    const std::size_t vsize = varint_size(zigzag(values[i]));
    std::size_t j = i + 1;
    while (j < values.size() && values[j] == values[i]) ++j;
    s.plain += vsize * (j - i);
    s.runs += vsize + varint_size(j - i);
    i = j;
  }
  return s;
}

// The static model is kept when at most 1/kFastDecodeAllowance larger than the adaptive coder's column.
constexpr std::size_t kFastDecodeAllowance = 4;

}  // namespace

std::size_t int_column_size(std::span<const std::int64_t> values) {
  const FormSizes s = measure(values);
  return std::min(s.plain, s.runs);
}

void encode_int_column(std::span<const std::int64_t> values, ByteWriter& out, IntPacking packing) {
  const FormSizes s = measure(values);
  // Runs win outright when the column is almost all repeats (under a bit a number).
  if (packing == IntPacking::kEntropy && s.runs * 8 >= values.size()) {
    std::vector<std::uint8_t> adaptive;
    ByteWriter adaptive_out(adaptive);
    encode_entropy_column(values, adaptive_out);
    std::vector<std::uint8_t> fixed_model;
    ByteWriter fixed_out(fixed_model);
    encode_static_entropy_column(values, fixed_out);
    // The static model decodes several times faster (cold queries decode every block they read): it is
    // kept unless the adaptive coder saves a clear share of the column.
    const bool fast =
        fixed_model.size() * kFastDecodeAllowance <= adaptive.size() * (kFastDecodeAllowance + 1);
    out.u8(static_cast<std::uint8_t>(fast ? IntForm::kStaticEntropy : IntForm::kEntropy));
    out.bytes(fast ? fixed_model : adaptive);
    return;
  }
  if (s.plain <= s.runs) {
    out.u8(static_cast<std::uint8_t>(IntForm::kPlain));
    for (const std::int64_t v : values) out.svarint(v);
    return;
  }
  out.u8(static_cast<std::uint8_t>(IntForm::kRuns));
  std::size_t i = 0;
  while (i < values.size()) {
    std::size_t j = i + 1;
    while (j < values.size() && values[j] == values[i]) ++j;
    out.svarint(values[i]);
    out.varint(j - i);
    i = j;
  }
}

void decode_int_column(ByteReader& in, std::span<std::int64_t> out) {
  const std::uint8_t form = in.u8("integer column form");
  if (form == static_cast<std::uint8_t>(IntForm::kPlain)) {
    for (std::int64_t& v : out) v = in.svarint("integer column value");
    return;
  }
  if (form == static_cast<std::uint8_t>(IntForm::kEntropy)) {
    decode_entropy_column(in, out);
    return;
  }
  if (form == static_cast<std::uint8_t>(IntForm::kStaticEntropy)) {
    decode_static_entropy_column(in, out);
    return;
  }
  if (form != static_cast<std::uint8_t>(IntForm::kRuns)) {
    in.fail("unknown integer column form " + std::to_string(form));
  }
  std::size_t i = 0;
  while (i < out.size()) {
    const std::int64_t v = in.svarint("integer run value");
    const std::uint64_t run = in.varint("integer run length");
    if (run == 0 || run > out.size() - i) {
      in.fail("integer run of " + std::to_string(run) + " overflows the column (" +
              std::to_string(out.size() - i) + " left)");
    }
    for (std::uint64_t k = 0; k < run; ++k) out[i++] = v;
  }
}

}  // namespace gpuwatch::store
