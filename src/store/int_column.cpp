#include "store/int_column.h"

#include <string>

#include "store/entropy_column.h"

namespace gpuwatch::store {
namespace {

enum class IntForm : std::uint8_t { kPlain = 0, kRuns = 1, kEntropy = 2 };

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

}  // namespace

std::size_t int_column_size(std::span<const std::int64_t> values) {
  const FormSizes s = measure(values);
  return std::min(s.plain, s.runs);
}

void encode_int_column(std::span<const std::int64_t> values, ByteWriter& out, IntPacking packing) {
  const FormSizes s = measure(values);
  // Runs win outright when the column is almost all repeats (under a bit a number).
  if (packing == IntPacking::kEntropy && s.runs * 8 >= values.size()) {
    out.u8(static_cast<std::uint8_t>(IntForm::kEntropy));
    encode_entropy_column(values, out);
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
