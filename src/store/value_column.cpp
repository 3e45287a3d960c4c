#include "store/value_column.h"

#include <bit>
#include <string>

#include "store/decimal_values.h"
#include "store/xor_values.h"

namespace gpuwatch::store {

const char* to_string(ValueEncoding e) {
  switch (e) {
    case ValueEncoding::kConstant:
      return "constant";
    case ValueEncoding::kDecimal:
      return "decimal";
    case ValueEncoding::kXor:
      return "xor";
  }
  return "unknown";
}

ValueEncoding encode_values(std::span<const double> values, ByteWriter& out, IntPacking packing,
                            ValueContext& context) {
  const auto first = std::bit_cast<std::uint64_t>(values[0]);
  bool constant = true;
  for (const double v : values) {
    if (std::bit_cast<std::uint64_t>(v) != first) {
      constant = false;
      break;
    }
  }
  if (constant) {
    out.fixed(first, 8);
    return ValueEncoding::kConstant;
  }
  if (encode_decimal_values(values, out, packing, context)) return ValueEncoding::kDecimal;
  encode_xor_values(values, out);
  return ValueEncoding::kXor;
}

void decode_values(ValueEncoding encoding, ByteReader& in, std::span<double> out,
                   const ValueContext& context) {
  switch (encoding) {
    case ValueEncoding::kConstant: {
      const double v = std::bit_cast<double>(in.fixed(8, "constant value"));
      for (double& o : out) o = v;
      return;
    }
    case ValueEncoding::kDecimal:
      decode_decimal_values(in, out, context);
      return;
    case ValueEncoding::kXor:
      decode_xor_values(in, out);
      return;
  }
  in.fail("unknown value encoding " + std::to_string(static_cast<int>(encoding)));
}

}  // namespace gpuwatch::store
