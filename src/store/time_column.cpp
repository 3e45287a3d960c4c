#include "store/time_column.h"

#include <algorithm>
#include <string>

#include "store/byte_io.h"
#include "store/checksum.h"
#include "store/chunk_codec.h"
#include "store/int_column.h"

namespace gpuwatch::store {
namespace {

constexpr std::uint8_t kMagic[3] = {'G', 'W', 'T'};
constexpr std::uint8_t kVersion = 1;
constexpr std::size_t kMinColumnBytes = 3 + 1 + 1 + 1 + 1 + 1 + kChecksumBytes;

struct Header {
  TimeColumnInfo info;
  std::size_t numbers_offset = 0;
};

Header read_header(std::span<const std::uint8_t> column) {
  const ChecksummedBody checked = checksummed_body(column, kMinColumnBytes, "time column");
  const auto body = checked.body;
  Header h;
  h.info.checksum = checked.checksum;
  ByteReader r(body, "time column header");
  for (const std::uint8_t m : kMagic) {
    if (r.u8("magic") != m) r.fail("not a gpuwatch time column (bad magic)");
  }
  if (const std::uint8_t version = r.u8("format version"); version != kVersion) {
    r.fail("unsupported time column version " + std::to_string(version) + " (this build reads " +
           std::to_string(kVersion) + ")");
  }
  const SampleRange range = read_sample_range(r);
  h.info.samples = range.samples;
  h.info.first_ms = range.first_ms;
  h.info.last_ms = range.last_ms;
  h.numbers_offset = r.offset();
  return h;
}

}  // namespace

void write_sample_range(ByteWriter& out, std::span<const std::int64_t> t) {
  out.varint(t.size());
  out.svarint(t.front());
  out.varint(static_cast<std::uint64_t>(t.back()) - static_cast<std::uint64_t>(t.front()));
}

SampleRange read_sample_range(ByteReader& in) {
  const std::uint64_t samples = in.varint("sample count");
  if (samples == 0 || samples > kMaxBlockSamples) {
    in.fail("sample count " + std::to_string(samples) + " outside 1.." + std::to_string(kMaxBlockSamples));
  }
  SampleRange out{static_cast<std::size_t>(samples), in.svarint("first timestamp"), 0};
  out.last_ms = static_cast<std::int64_t>(static_cast<std::uint64_t>(out.first_ms) + in.varint("time span"));
  return out;
}

void check_timestamps(std::span<const std::int64_t> t) {
  if (t.empty()) throw CodecError("a block needs at least one sample");
  if (t.size() > kMaxBlockSamples) {
    throw CodecError("block of " + std::to_string(t.size()) + " samples exceeds the maximum of " +
                     std::to_string(kMaxBlockSamples));
  }
  for (std::size_t i = 1; i < t.size(); ++i) {
    if (t[i] <= t[i - 1]) {
      throw CodecError("timestamps must be strictly increasing: sample " + std::to_string(i) + " has " +
                       std::to_string(t[i]) + " ms after " + std::to_string(t[i - 1]) + " ms");
    }
  }
}

void deltas_of_deltas(std::span<const std::int64_t> t, std::vector<std::int64_t>& out) {
  out.resize(t.empty() ? 0 : t.size() - 1);
  std::uint64_t prev_delta = 0;
  for (std::size_t i = 1; i < t.size(); ++i) {
    const std::uint64_t delta = static_cast<std::uint64_t>(t[i]) - static_cast<std::uint64_t>(t[i - 1]);
    out[i - 1] = static_cast<std::int64_t>(delta - prev_delta);
    prev_delta = delta;
  }
}

void undo_deltas_of_deltas(std::span<std::int64_t> t) {
  std::uint64_t delta = 0;
  for (std::size_t i = 1; i < t.size(); ++i) {
    delta += static_cast<std::uint64_t>(t[i]);
    t[i] = static_cast<std::int64_t>(static_cast<std::uint64_t>(t[i - 1]) + delta);
  }
}

std::vector<std::uint8_t> encode_time_column(std::span<const std::int64_t> t) {
  check_timestamps(t);
  std::vector<std::int64_t> dod;
  deltas_of_deltas(t, dod);
  // Both packings, the smaller kept, as a block's payload does (no zstd: a column of jittered deltas is
  // noise).
  std::vector<std::uint8_t> varints, entropy;
  ByteWriter vw(varints), ew(entropy);
  encode_int_column(dod, vw, IntPacking::kVarint);
  encode_int_column(dod, ew, IntPacking::kEntropy);
  const std::vector<std::uint8_t>& numbers = entropy.size() < varints.size() ? entropy : varints;

  std::vector<std::uint8_t> out;
  out.reserve(numbers.size() + 32);
  ByteWriter w(out);
  for (const std::uint8_t m : kMagic) w.u8(m);
  w.u8(kVersion);
  write_sample_range(w, t);
  w.bytes(numbers);
  w.fixed(crc32_of(out), 4);
  return out;
}

TimeColumnInfo inspect_time_column(std::span<const std::uint8_t> column) {
  return read_header(column).info;
}

void decode_time_column(std::span<const std::uint8_t> column, std::vector<std::int64_t>& out) {
  const Header h = read_header(column);
  ByteReader r(column.first(column.size() - kChecksumBytes), "time column");
  r.bytes(h.numbers_offset, "header");
  out.resize(h.info.samples);
  out[0] = h.info.first_ms;
  decode_int_column(r, std::span<std::int64_t>(out).subspan(1));
  if (r.remaining() != 0) r.fail(std::to_string(r.remaining()) + " unexpected trailing bytes");
  undo_deltas_of_deltas(out);
  if (out.back() != h.info.last_ms) {
    throw CodecError("time column ends at " + std::to_string(out.back()) + " ms but its header says " +
                     std::to_string(h.info.last_ms) + " ms");
  }
}

std::span<const std::int64_t> TimeColumnCache::timestamps(std::int64_t id,
                                                          std::span<const std::uint8_t> column) {
  if (id == 0) return {};
  if (column.empty()) throw CodecError("its time column (row " + std::to_string(id) + ") is missing");
  // Keyed by the stored checksum, read unverified: a column found was verified when it was decoded, and a
  // reused row id with other timestamps has another checksum.
  if (column.size() < kMinColumnBytes)
    throw CodecError("time column of " + std::to_string(column.size()) + " bytes: truncated");
  const std::uint32_t checksum = stored_checksum(column);
  const auto found = std::find_if(entries_.begin(), entries_.end(),
                                  [&](const Entry& e) { return e.id == id && e.checksum == checksum; });
  if (found != entries_.end()) {
    entries_.splice(entries_.begin(), entries_, found);
    return entries_.front().timestamps;
  }
  Entry entry{id, checksum, {}};
  if (entries_.size() >= kKept) {
    entry.timestamps = std::move(entries_.back().timestamps);  // its memory serves the new column
    entries_.pop_back();
  }
  try {
    decode_time_column(column, entry.timestamps);
  } catch (const CodecError& e) {
    throw CodecError("its time column (row " + std::to_string(id) + ") is damaged: " + e.what());
  }
  entries_.push_front(std::move(entry));
  return entries_.front().timestamps;
}

}  // namespace gpuwatch::store
