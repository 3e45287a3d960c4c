// The write-ahead log: append-only segment files wal/00000001, wal/00000002, ... in the data dir. A segment
// starts with an 8-byte header ("GWWAL", version 1, two zero bytes) followed by records:
//   u32 payload length | u32 CRC-32 of the payload | payload (entries)
// Entries: 1 = series (varint id, varint length, labels as encode_labels writes them); 2 = sample (varint id,
// svarint t_ms, 8-byte little-endian IEEE-754 value). Every series id used in a segment is defined earlier in
// the same segment, so each segment replays on its own and old ones can be deleted independently.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "store/label_index.h"
#include "store/unique_fd.h"

namespace gpuwatch::store {

inline constexpr std::size_t kWalHeaderBytes = 8;
inline constexpr std::size_t kWalRecordHeaderBytes = 8;
inline constexpr std::uint32_t kWalMaxRecordBytes = 64u << 20;

// A chunk of entries fills up to this many bytes (more only for a single entry that is larger) and becomes
// one record: the buffer grows a chunk at a time, never by doubling, and every chunk is the same size, so the
// allocator reuses the ones freed after each write.
inline constexpr std::size_t kWalChunkBytes = 64u << 10;

// Entries appended since the last take, built in memory by the appending thread, in chunks of
// kWalChunkBytes; each chunk is a record of its own.
class WalEntries {
 public:
  void add_series(SeriesId id, const Labels& labels);
  void add_sample(SeriesId id, std::int64_t t_ms, double value);
  bool empty() const { return bytes_ == 0; }
  // Bytes of entries held, in all chunks.
  std::size_t size() const { return bytes_; }
  // The chunks in the order appended; the buffer is empty afterwards.
  std::vector<std::vector<std::uint8_t>> take();

 private:
  // The chunk to append `bytes` more to: the last one, or a new one when they would not fit.
  std::vector<std::uint8_t>& room_for(std::size_t bytes);
  std::vector<std::vector<std::uint8_t>> chunks_;
  std::size_t bytes_ = 0;
};

// Writes records to segment files. Not thread-safe: one flusher at a time.
class WalWriter {
 public:
  explicit WalWriter(std::string dir) : dir_(std::move(dir)) {}
  // Appends one record to `segment` (created with its header when new; segments only grow). On a failed
  // write the file is cut back to its last complete record and StoreError (with the errno's reason) is
  // thrown; the caller may retry the same record later.
  void write(std::uint64_t segment, std::span<const std::uint8_t> entries);
  // fdatasync of the segment written last. Throws StoreError.
  void sync();

 private:
  void open_segment(std::uint64_t segment);
  std::string dir_;
  UniqueFd fd_;
  std::uint64_t segment_ = 0;
  std::uint64_t good_size_ = 0;  // bytes of complete records in the open segment
  bool dirty_ = false;
};

std::string wal_dir(const std::string& data_dir);
std::string segment_path(const std::string& wal_dir, std::uint64_t segment);
// Segment numbers present in the directory, ascending.
std::vector<std::uint64_t> list_segments(const std::string& wal_dir);

// What replay saw. Damage in the last segment is a torn write (a crash mid-record): it is cut off. Damage
// anywhere else is corruption: reported, the rest of that segment skipped.
struct WalReplayReport {
  std::size_t segments = 0;
  std::size_t records = 0;
  std::size_t samples = 0;
  std::uint64_t torn_bytes_dropped = 0;
  std::vector<std::string> corruption;  // one line each: file, byte offset, what
};

struct WalVisitor {
  std::function<void(std::uint64_t segment, SeriesId id, Labels labels)> series;
  std::function<void(std::uint64_t segment, SeriesId id, std::int64_t t_ms, double value)> sample;
};

// Reads every segment in order. With `repair`, a torn tail of the last segment is truncated away.
WalReplayReport replay_wal(const std::string& wal_dir, const WalVisitor& visitor, bool repair);

}  // namespace gpuwatch::store
