#include "store/chunk_codec.h"

#include <zstd.h>

#include <algorithm>
#include <limits>
#include <string>

#include "store/byte_io.h"
#include "store/checksum.h"
#include "store/int_column.h"
#include "store/time_column.h"

namespace gpuwatch::store {
namespace {

constexpr std::uint8_t kMagic[3] = {'G', 'W', 'C'};
constexpr std::uint8_t kFlagZstd = 0x01;
constexpr std::uint8_t kFlagReference = 0x02;
constexpr std::uint8_t kFlagTimesApart = 0x04;  // version 3: the payload holds no time column
// A block is written at the oldest version that can hold it: older readers keep reading inline-time blocks.
constexpr std::uint8_t kInlineTimesVersion = 2;
constexpr std::size_t kMinBlockBytes = 3 + 1 + 1 + 1 + 4 + kChecksumBytes;
constexpr std::size_t kSmallestPayloadWorthZstd = 32;

// Worst case of the raw payload per sample (two 10-byte varints per run entry, XOR <= 10 bytes),
// which bounds what a decoder allocates for a header's claim.
std::size_t max_raw_payload(std::size_t samples) {
  return 64 + 48 * samples;
}

struct Header {
  BlockInfo info;
  std::size_t payload_offset = 0;
  std::size_t payload_bytes = 0;
  std::size_t raw_payload_bytes = 0;
};

// Checks the checksum first, so that any flipped bit or truncation is reported as such.
Header read_header(std::span<const std::uint8_t> block) {
  const auto body = checksummed_body(block, kMinBlockBytes, "block").body;
  ByteReader r(body, "block header");
  for (const std::uint8_t m : kMagic) {
    if (r.u8("magic") != m) r.fail("not a gpuwatch history block (bad magic)");
  }
  const std::uint8_t version = r.u8("format version");
  if (version < kOldestBlockFormatVersion || version > kBlockFormatVersion) {
    r.fail("unsupported block format version " + std::to_string(version) + " (this build reads " +
           std::to_string(kOldestBlockFormatVersion) + " to " + std::to_string(kBlockFormatVersion) + ")");
  }
  const std::uint8_t flags = r.u8("flags");
  if ((flags & ~(kFlagZstd | kFlagReference | kFlagTimesApart)) != 0 ||
      ((flags & kFlagTimesApart) != 0 && version < 3))
    r.fail("unknown flags " + std::to_string(flags));
  const std::uint8_t encoding = r.u8("value encoding");
  if (encoding > static_cast<std::uint8_t>(ValueEncoding::kXor)) {
    r.fail("unknown value encoding " + std::to_string(encoding));
  }
  Header h;
  h.info.values = static_cast<ValueEncoding>(encoding);
  h.info.zstd = (flags & kFlagZstd) != 0;
  h.info.needs_reference = (flags & kFlagReference) != 0;
  h.info.times_apart = (flags & kFlagTimesApart) != 0;
  const SampleRange range = read_sample_range(r);
  h.info.samples = range.samples;
  h.info.first_ms = range.first_ms;
  h.info.last_ms = range.last_ms;
  const std::uint64_t payload = r.varint("payload length");
  if (h.info.zstd) {
    const std::uint64_t raw = r.varint("uncompressed payload length");
    if (raw > max_raw_payload(h.info.samples)) {
      r.fail("uncompressed payload length " + std::to_string(raw) + " impossible for " +
             std::to_string(h.info.samples) + " samples");
    }
    h.raw_payload_bytes = static_cast<std::size_t>(raw);
  }
  if (payload != r.remaining()) {
    r.fail("payload length " + std::to_string(payload) + " does not match the " +
           std::to_string(r.remaining()) + " bytes present");
  }
  h.payload_offset = r.offset();
  h.payload_bytes = static_cast<std::size_t>(payload);
  if (!h.info.zstd) h.raw_payload_bytes = h.payload_bytes;
  h.info.encoded_bytes = block.size();
  return h;
}

void check_input(std::span<const std::int64_t> t, std::span<const double> v) {
  if (t.size() != v.size()) {
    throw CodecError("block input has " + std::to_string(t.size()) + " timestamps but " +
                     std::to_string(v.size()) + " values");
  }
  check_timestamps(t);
}

}  // namespace

struct BlockEncoder::Zstd {
  struct Free {
    void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
  };
  std::unique_ptr<ZSTD_CCtx, Free> ctx;  // made at the first block worth compressing: the head's never is
  std::vector<std::uint8_t> raw;
  std::vector<std::uint8_t> packed;
  std::vector<std::uint8_t> entropy;
};

ValueEncoding BlockEncoder::encode_payload(const std::vector<std::int64_t>* time_column,
                                           std::span<const double> values, IntPacking packing,
                                           std::vector<std::uint8_t>& raw, ValueContext& context) {
  raw.clear();
  ByteWriter payload(raw);
  if (time_column) encode_int_column(*time_column, payload, packing);
  context.used_reference = false;
  return encode_values(values, payload, packing, context);
}

// Compressed size, or the largest size_t when zstd fails (the caller then keeps the uncompressed payload).
std::size_t BlockEncoder::compress(const std::vector<std::uint8_t>& raw, std::vector<std::uint8_t>& out) {
  out.resize(ZSTD_compressBound(raw.size()));
  const std::size_t size = ZSTD_compressCCtx(zstd_->ctx.get(), out.data(), out.size(), raw.data(), raw.size(),
                                             options_.zstd_level);
  if (ZSTD_isError(size)) return std::numeric_limits<std::size_t>::max();
  out.resize(size);
  return size;
}

struct BlockDecoder::Zstd {
  struct Free {
    void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
  };
  std::unique_ptr<ZSTD_DCtx, Free> ctx;  // made at the first compressed block: the head's chunks are not
  std::vector<std::uint8_t> raw;
};

BlockEncoder::BlockEncoder(EncodeOptions options) : options_(options), zstd_(std::make_unique<Zstd>()) {}
BlockEncoder::~BlockEncoder() = default;
BlockEncoder::BlockEncoder(BlockEncoder&&) noexcept = default;
BlockEncoder& BlockEncoder::operator=(BlockEncoder&&) noexcept = default;

std::vector<std::uint8_t> BlockEncoder::encode(std::span<const std::int64_t> t, std::span<const double> v,
                                               SeriesReference reference, bool times_apart) {
  check_input(t, v);
  ValueContext context;
  context.timestamps_ms = t;
  if (reference.values.size() == t.size() &&
      std::equal(t.begin(), t.end(), reference.timestamps_ms.begin(), reference.timestamps_ms.end())) {
    context.reference = reference.values;
  }

  std::vector<std::int64_t> dod;
  if (!times_apart) deltas_of_deltas(t, dod);
  const std::vector<std::int64_t>* time_column = times_apart ? nullptr : &dod;
  // Varint payload (zstd-compressed when that pays), then an entropy-coded one; keep the smaller.
  ValueEncoding encoding = encode_payload(time_column, v, IntPacking::kVarint, zstd_->raw, context);
  bool used_reference = context.used_reference;
  const std::vector<std::uint8_t>* body = &zstd_->raw;
  std::size_t raw_size = zstd_->raw.size();
  bool packed = false;
  if (raw_size >= kSmallestPayloadWorthZstd) {
    if (options_.zstd_level > 0 && !zstd_->ctx) zstd_->ctx.reset(ZSTD_createCCtx());
    if (options_.zstd_level > 0 && zstd_->ctx &&
        compress(zstd_->raw, zstd_->packed) < raw_size - varint_size(raw_size)) {
      body = &zstd_->packed;
      packed = true;
    }
    if (options_.entropy_coding) {
      const ValueEncoding entropy_encoding =
          encode_payload(time_column, v, IntPacking::kEntropy, zstd_->entropy, context);
      if (zstd_->entropy.size() < body->size() + (packed ? varint_size(raw_size) : 0)) {
        encoding = entropy_encoding;
        used_reference = context.used_reference;
        body = &zstd_->entropy;
        raw_size = body->size();
        packed = false;
      }
    }
  }

  std::vector<std::uint8_t> block;
  block.reserve(body->size() + 40);
  ByteWriter w(block);
  for (const std::uint8_t m : kMagic) w.u8(m);
  w.u8(times_apart ? kBlockFormatVersion : kInlineTimesVersion);
  w.u8(static_cast<std::uint8_t>((packed ? kFlagZstd : 0) | (used_reference ? kFlagReference : 0) |
                                 (times_apart ? kFlagTimesApart : 0)));
  w.u8(static_cast<std::uint8_t>(encoding));
  write_sample_range(w, t);
  w.varint(body->size());
  if (packed) w.varint(raw_size);
  w.bytes(*body);
  w.fixed(crc32_of(block), 4);
  return block;
}

BlockDecoder::BlockDecoder() : zstd_(std::make_unique<Zstd>()) {}
BlockDecoder::~BlockDecoder() = default;
BlockDecoder::BlockDecoder(BlockDecoder&&) noexcept = default;
BlockDecoder& BlockDecoder::operator=(BlockDecoder&&) noexcept = default;

DecodedBlock BlockDecoder::decode(std::span<const std::uint8_t> block, SeriesReference reference,
                                  std::span<const std::int64_t> timestamps) {
  DecodedBlock d;
  decode_into(block, d.timestamps_ms, d.values, reference, timestamps);
  return d;
}

void BlockDecoder::decode_into(std::span<const std::uint8_t> block, std::vector<std::int64_t>& t,
                               std::vector<double>& v, SeriesReference reference,
                               std::span<const std::int64_t> timestamps) {
  const Header h = read_header(block);
  std::span<const std::uint8_t> payload = block.subspan(h.payload_offset, h.payload_bytes);
  if (h.info.zstd) {
    if (!zstd_->ctx) zstd_->ctx.reset(ZSTD_createDCtx());
    if (!zstd_->ctx) throw CodecError("cannot allocate a zstd decompression context");
    zstd_->raw.resize(h.raw_payload_bytes);
    const std::size_t size = ZSTD_decompressDCtx(zstd_->ctx.get(), zstd_->raw.data(), zstd_->raw.size(),
                                                 payload.data(), payload.size());
    if (ZSTD_isError(size) || size != h.raw_payload_bytes) {
      throw CodecError(std::string("block payload does not decompress: ") +
                       (ZSTD_isError(size) ? ZSTD_getErrorName(size) : "length differs from the header"));
    }
    payload = zstd_->raw;
  }
  const std::size_t n = h.info.samples;
  t.resize(n);
  v.resize(n);
  ByteReader r(payload, "block payload");
  if (h.info.times_apart) {
    if (timestamps.size() != n || timestamps.front() != h.info.first_ms ||
        timestamps.back() != h.info.last_ms) {
      throw CodecError("block timestamps are stored apart: decoding needs its time column of " +
                       std::to_string(n) + " samples in [" + std::to_string(h.info.first_ms) + ", " +
                       std::to_string(h.info.last_ms) + "] ms");
    }
    std::copy(timestamps.begin(), timestamps.end(), t.begin());
  } else {
    t[0] = h.info.first_ms;
    decode_int_column(r, std::span<std::int64_t>(t).subspan(1));
    undo_deltas_of_deltas(t);
  }
  ValueContext context;
  context.timestamps_ms = t;
  if (h.info.needs_reference) {
    if (reference.values.size() != n ||
        !std::equal(t.begin(), t.end(), reference.timestamps_ms.begin(), reference.timestamps_ms.end())) {
      throw CodecError("block values are coded against a reference series: decoding needs that series' " +
                       std::to_string(n) + " samples at the block's timestamps");
    }
    context.reference = reference.values;
  }
  decode_values(h.info.values, r, v, context);
  if (r.remaining() != 0) r.fail(std::to_string(r.remaining()) + " unexpected trailing bytes");
  if (t[n - 1] != h.info.last_ms) {
    throw CodecError("block time column ends at " + std::to_string(t[n - 1]) + " ms but the header says " +
                     std::to_string(h.info.last_ms) + " ms");
  }
}

void BlockDecoder::decode_points(std::span<const std::uint8_t> block, std::vector<Point>& out,
                                 SeriesReference reference, std::span<const std::int64_t> timestamps) {
  decode_into(block, timestamps_ms_, values_, reference, timestamps);
  out.reserve(out.size() + values_.size());
  for (std::size_t k = 0; k < values_.size(); ++k) out.push_back(Point{timestamps_ms_[k], values_[k]});
}

BlockInfo inspect_block(std::span<const std::uint8_t> block) {
  return read_header(block).info;
}

std::vector<std::uint8_t> encode_block(std::span<const std::int64_t> timestamps_ms,
                                       std::span<const double> values, EncodeOptions options,
                                       SeriesReference reference) {
  return BlockEncoder(options).encode(timestamps_ms, values, reference);
}

DecodedBlock decode_block(std::span<const std::uint8_t> block, SeriesReference reference,
                          std::span<const std::int64_t> timestamps) {
  return BlockDecoder().decode(block, reference, timestamps);
}

}  // namespace gpuwatch::store
