#include "store/static_entropy_column.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace gpuwatch::store {
namespace {

constexpr int kLengths = 65;                   // bit lengths 0..64
constexpr int kSymbols = kLengths * 4;         // a bit length and the (up to) two bits under its leading one
constexpr int kMaxPrecision = 12;              // a table's frequencies sum to 2^precision
constexpr std::uint32_t kStateLow = 1u << 23;  // the rANS state stays in [2^23, 2^31)
constexpr std::uint32_t kStateHigh = 1u << 31;

enum Mode : std::uint8_t { kOneTable = 0, kByPreviousLength = 1 };

// A number as the coder sees it: the symbol (bit length * 4 + the modelled bits) and the raw bits below.
struct Split {
  int symbol = 0;
  int length = 0;
  int raw_bits = 0;
  std::uint64_t raw = 0;
};

int modelled_bits(int length) {
  return length >= 2 ? std::min(2, length - 1) : 0;
}

Split split(std::int64_t v) {
  const std::uint64_t z = zigzag(v);
  const int length = static_cast<int>(std::bit_width(z));
  if (length <= 1) return {length * 4, length, 0, 0};
  const int raw_bits = length - 1 - modelled_bits(length);
  const auto top = static_cast<int>((z >> raw_bits) & ((1u << modelled_bits(length)) - 1));
  return {length * 4 + top, length, raw_bits, z & ((std::uint64_t{1} << raw_bits) - 1)};
}

bool valid_symbol(int symbol) {
  const int length = symbol >> 2;
  const int top = symbol & 3;
  return length < kLengths && top < (1 << modelled_bits(length));
}

struct Table {
  int context = 0;
  int precision = 0;
  std::vector<std::pair<int, std::uint32_t>> freqs;  // (symbol, frequency), symbols ascending
};

// Frequencies summing to 2^precision, every symbol seen at least 1.
void quantize(Table& t, const std::vector<std::pair<int, std::uint32_t>>& counts, std::uint32_t n) {
  if (counts.size() == 1) {
    t.precision = 0;
    t.freqs = {{counts[0].first, 1}};
    return;
  }
  t.precision = std::min(kMaxPrecision, static_cast<int>(std::bit_width(n)));
  const std::uint64_t total = std::uint64_t{1} << t.precision;
  std::uint64_t sum = 0;
  std::size_t largest = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const std::uint64_t f = std::max<std::uint64_t>(1, counts[i].second * total / n);
    t.freqs.emplace_back(counts[i].first, static_cast<std::uint32_t>(f));
    sum += f;
    if (counts[i].second > counts[largest].second) largest = i;
  }
  if (sum <= total) {
    t.freqs[largest].second += static_cast<std::uint32_t>(total - sum);
    return;
  }
  while (sum > total) {  // only when rare symbols were raised to 1; at most kSymbols of them
    auto most = std::max_element(t.freqs.begin(), t.freqs.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    const std::uint64_t take = std::min<std::uint64_t>(most->second - 1, sum - total);
    most->second -= static_cast<std::uint32_t>(take);
    sum -= take;
  }
}

// One table a context, from keys context * kSymbols + symbol.
std::vector<Table> build_tables(std::vector<std::uint32_t> keys) {
  std::sort(keys.begin(), keys.end());
  std::vector<Table> tables;
  std::vector<std::pair<int, std::uint32_t>> counts;
  std::size_t i = 0;
  while (i < keys.size()) {
    const std::uint32_t context = keys[i] / kSymbols;
    counts.clear();
    std::uint32_t n = 0;
    std::size_t j = i;
    while (j < keys.size() && keys[j] / kSymbols == context) {
      std::size_t k = j;
      while (k < keys.size() && keys[k] == keys[j]) ++k;
      counts.emplace_back(static_cast<int>(keys[j] % kSymbols), static_cast<std::uint32_t>(k - j));
      n += static_cast<std::uint32_t>(k - j);
      j = k;
    }
    Table t;
    t.context = static_cast<int>(context);
    quantize(t, counts, n);
    tables.push_back(std::move(t));
    i = j;
  }
  return tables;
}

struct Coded {
  std::uint32_t start = 0;
  std::uint32_t freq = 0;
  int precision = 0;
};

// LSB-first bit packing of the raw low bits.
class RawBitWriter {
 public:
  explicit RawBitWriter(std::vector<std::uint8_t>& out) : out_(out) {}
  void put(std::uint64_t v, int n) {
    while (n > 0) {
      const int take = std::min(n, 32);
      acc_ |= (v & ((std::uint64_t{1} << take) - 1)) << count_;
      count_ += take;
      v >>= take;
      n -= take;
      while (count_ >= 8) {
        out_.push_back(static_cast<std::uint8_t>(acc_));
        acc_ >>= 8;
        count_ -= 8;
      }
    }
  }
  void finish() {
    if (count_ > 0) out_.push_back(static_cast<std::uint8_t>(acc_));
  }

 private:
  std::vector<std::uint8_t>& out_;
  std::uint64_t acc_ = 0;
  int count_ = 0;
};

std::vector<std::uint8_t> encode_mode(Mode mode, const std::vector<Split>& splits) {
  std::vector<std::uint32_t> keys;
  keys.reserve(splits.size());
  int previous = 0;
  for (const Split& s : splits) {
    const int context = mode == kByPreviousLength ? previous : 0;
    keys.push_back(static_cast<std::uint32_t>(context * kSymbols + s.symbol));
    previous = s.length;
  }
  const std::vector<Table> tables = build_tables(keys);

  std::vector<std::uint8_t> bytes;
  ByteWriter out(bytes);
  out.u8(mode);
  out.varint(tables.size());
  std::vector<Coded> coded(static_cast<std::size_t>(mode == kByPreviousLength ? kLengths : 1) * kSymbols);
  for (const Table& t : tables) {
    if (mode == kByPreviousLength) out.u8(static_cast<std::uint8_t>(t.context));
    out.u8(static_cast<std::uint8_t>(t.precision));
    out.varint(t.freqs.size());
    std::uint32_t start = 0;
    int last = -1;
    for (const auto& [symbol, freq] : t.freqs) {
      out.varint(static_cast<std::uint64_t>(symbol - last - 1));
      if (t.freqs.size() > 1) out.varint(freq - 1);
      coded[static_cast<std::size_t>(t.context * kSymbols + symbol)] = {start, freq, t.precision};
      start += freq;
      last = symbol;
    }
  }

  // rANS codes last to first so that the decoder reads first to last.
  std::vector<std::uint8_t> stream;
  stream.reserve(splits.size() * 2 + 8);
  std::uint32_t x = kStateLow;
  for (std::size_t j = splits.size(); j-- > 0;) {
    const Coded& c = coded[keys[j]];
    const std::uint32_t x_max = ((kStateLow >> c.precision) << 8) * c.freq;
    while (x >= x_max) {
      stream.push_back(static_cast<std::uint8_t>(x));
      x >>= 8;
    }
    x = ((x / c.freq) << c.precision) + (x % c.freq) + c.start;
  }
  if (!splits.empty()) {
    for (int i = 3; i >= 0; --i) stream.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
  }
  std::reverse(stream.begin(), stream.end());
  out.varint(stream.size());
  out.bytes(stream);

  std::vector<std::uint8_t> raw;
  RawBitWriter bits(raw);
  for (const Split& s : splits) bits.put(s.raw, s.raw_bits);
  bits.finish();
  out.varint(raw.size());
  out.bytes(raw);
  return bytes;
}

// What the decoder finds at a slot of a table: the symbol's frequency and start, and the number it stands
// for (its bit length, the raw bits to read under the leading bits `high`).
struct Entry {
  std::uint16_t freq = 0;
  std::uint16_t start = 0;
  std::uint8_t length = 0;
  std::uint8_t raw_bits = 0;
  std::uint8_t high = 0;
};

class RawBitReader {
 public:
  RawBitReader(std::span<const std::uint8_t> in, ByteReader& errors) : in_(in), errors_(errors) {}

  std::uint64_t read(int n) {  // 1..61 bits
    if (n <= 32) return read32(n);
    const std::uint64_t low = read32(32);
    return low | (read32(n - 32) << 32);
  }
  // Whether exactly the column's bytes were used, the last one padded with zeros.
  bool used_all() const {
    if ((consumed_ + 7) / 8 != in_.size()) return false;
    return consumed_ % 8 == 0 || (in_.back() >> (consumed_ % 8)) == 0;
  }

 private:
  std::uint64_t read32(int n) {
    if (count_ < n) {
      refill();
      if (count_ < n) errors_.fail("raw bits of the entropy-coded column truncated");
    }
    const std::uint64_t v = buf_ & ((std::uint64_t{1} << n) - 1);
    buf_ >>= n;
    count_ -= n;
    consumed_ += static_cast<std::size_t>(n);
    return v;
  }
  // Bits above count_ are always the stream's next ones, so loading them again changes nothing.
  void refill() {
    if constexpr (std::endian::native == std::endian::little) {
      if (in_.size() - pos_ >= 8) {
        std::uint64_t w;
        std::memcpy(&w, in_.data() + pos_, 8);
        buf_ |= w << count_;
        pos_ += static_cast<std::size_t>((63 - count_) >> 3);
        count_ |= 56;
        return;
      }
    }
    while (count_ <= 56 && pos_ < in_.size()) {
      buf_ |= static_cast<std::uint64_t>(in_[pos_++]) << count_;
      count_ += 8;
    }
  }

  std::span<const std::uint8_t> in_;
  ByteReader& errors_;
  std::size_t pos_ = 0;
  std::uint64_t buf_ = 0;
  int count_ = 0;
  std::size_t consumed_ = 0;
};

}  // namespace

void encode_static_entropy_column(std::span<const std::int64_t> values, ByteWriter& out) {
  std::vector<Split> splits;
  splits.reserve(values.size());
  for (const std::int64_t v : values) splits.push_back(split(v));
  std::vector<std::uint8_t> one = encode_mode(kOneTable, splits);
  const std::vector<std::uint8_t> by_length = encode_mode(kByPreviousLength, splits);
  out.bytes(by_length.size() < one.size() ? by_length : one);
}

void decode_static_entropy_column(ByteReader& in, std::span<std::int64_t> out) {
  const std::uint8_t mode = in.u8("entropy column mode");
  if (mode != kOneTable && mode != kByPreviousLength)
    in.fail("unknown entropy column mode " + std::to_string(mode));
  const std::uint64_t table_count = in.varint("entropy column table count");
  if (table_count > (mode == kOneTable ? 1u : static_cast<unsigned>(kLengths)) ||
      (table_count == 0) != out.empty())
    in.fail("entropy column with " + std::to_string(table_count) + " tables for " +
            std::to_string(out.size()) + " numbers");

  std::array<std::int32_t, kLengths> offsets;
  offsets.fill(-1);
  std::array<std::uint8_t, kLengths> precisions{};
  std::vector<Entry> entries;
  int last_context = -1;
  for (std::uint64_t t = 0; t < table_count; ++t) {
    const int context = mode == kByPreviousLength ? in.u8("entropy table context") : 0;
    if (context <= last_context || context >= kLengths) in.fail("entropy table context out of order");
    last_context = context;
    const int precision = in.u8("entropy table precision");
    if (precision > kMaxPrecision) in.fail("entropy table precision " + std::to_string(precision));
    const std::uint32_t total = 1u << precision;
    const std::uint64_t symbols = in.varint("entropy table symbol count");
    if (symbols == 0 || symbols > total || symbols > static_cast<std::uint64_t>(kSymbols))
      in.fail("entropy table of " + std::to_string(symbols) + " symbols");
    const auto offset = static_cast<std::int32_t>(entries.size());
    entries.resize(entries.size() + total);
    std::uint32_t start = 0;
    std::uint64_t symbol = static_cast<std::uint64_t>(-1);
    for (std::uint64_t s = 0; s < symbols; ++s) {
      symbol += in.varint("entropy table symbol") + 1;
      if (symbol >= static_cast<std::uint64_t>(kSymbols) || !valid_symbol(static_cast<int>(symbol)))
        in.fail("entropy table symbol " + std::to_string(symbol));
      const std::uint64_t freq = symbols == 1 ? total : in.varint("entropy table frequency") + 1;
      if (freq > total - start) in.fail("entropy table frequencies over 2^" + std::to_string(precision));
      const int length = static_cast<int>(symbol >> 2);
      const int modelled = modelled_bits(length);
      const Entry e{static_cast<std::uint16_t>(freq), static_cast<std::uint16_t>(start),
                    static_cast<std::uint8_t>(length),
                    static_cast<std::uint8_t>(length >= 2 ? length - 1 - modelled : 0),
                    static_cast<std::uint8_t>(length <= 1 ? length : (1 << modelled) | (symbol & 3))};
      std::fill_n(entries.begin() + offset + start, freq, e);
      start += static_cast<std::uint32_t>(freq);
    }
    if (start != total) in.fail("entropy table frequencies under 2^" + std::to_string(precision));
    if (mode == kOneTable) {
      offsets.fill(offset);
      precisions.fill(static_cast<std::uint8_t>(precision));
    } else {
      offsets[static_cast<std::size_t>(context)] = offset;
      precisions[static_cast<std::size_t>(context)] = static_cast<std::uint8_t>(precision);
    }
  }

  const std::uint64_t stream_length = in.varint("entropy stream length");
  if (stream_length > in.remaining()) in.fail("entropy stream length past the end");
  const std::span<const std::uint8_t> stream =
      in.bytes(static_cast<std::size_t>(stream_length), "entropy stream");
  const std::uint64_t raw_length = in.varint("raw bits length");
  if (raw_length > in.remaining()) in.fail("raw bits length past the end");
  RawBitReader raw(in.bytes(static_cast<std::size_t>(raw_length), "raw bits"), in);
  if (out.empty()) {
    if (!stream.empty() || raw_length != 0) in.fail("entropy stream for an empty column");
    return;
  }
  if (stream.size() < 4) in.fail("entropy stream truncated");
  std::uint32_t x = 0;
  for (int i = 0; i < 4; ++i) x |= static_cast<std::uint32_t>(stream[static_cast<std::size_t>(i)]) << (8 * i);
  if (x < kStateLow || x >= kStateHigh) in.fail("entropy stream state out of range");
  const std::uint8_t* p = stream.data() + 4;
  const std::uint8_t* const end = stream.data() + stream.size();
  int previous = 0;
  for (std::int64_t& o : out) {
    const std::int32_t offset = offsets[static_cast<std::size_t>(previous)];
    if (offset < 0) in.fail("entropy column has no table for bit length " + std::to_string(previous));
    const unsigned precision = precisions[static_cast<std::size_t>(previous)];
    const std::uint32_t slot = x & ((1u << precision) - 1);
    const Entry& e = entries[static_cast<std::size_t>(offset) + slot];
    x = e.freq * (x >> precision) + slot - e.start;
    while (x < kStateLow) {
      if (p == end) in.fail("entropy stream truncated");
      x = (x << 8) | *p++;
    }
    std::uint64_t z = e.high;
    if (e.raw_bits != 0) z = (z << e.raw_bits) | raw.read(e.raw_bits);
    o = unzigzag(z);
    previous = e.length;
  }
  if (x != kStateLow || p != end) in.fail("entropy stream does not end where its numbers do");
  if (!raw.used_all()) in.fail("raw bits do not end where the numbers do");
}

}  // namespace gpuwatch::store
