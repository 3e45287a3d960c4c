#include "store/wal.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>

#include "store/byte_io.h"
#include "store/checksum.h"
#include "store/store_error.h"

namespace gpuwatch::store {
namespace {

constexpr std::uint8_t kEntrySeries = 1;
constexpr std::uint8_t kEntrySample = 2;
constexpr std::size_t kMaxVarintBytes = 10;
// Type, series id, timestamp, value.
constexpr std::size_t kMaxSampleEntryBytes = 1 + 2 * kMaxVarintBytes + 8;
constexpr std::uint8_t kHeader[kWalHeaderBytes] = {'G', 'W', 'W', 'A', 'L', 1, 0, 0};

std::uint32_t read_u32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

void put_u32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// Writes all bytes of `parts`, in order, or throws with the errno's reason.
void write_all(int fd, std::initializer_list<std::span<const std::uint8_t>> parts, const std::string& path) {
  std::vector<iovec> iov;
  for (const auto& part : parts)
    if (!part.empty()) iov.push_back({const_cast<std::uint8_t*>(part.data()), part.size()});
  std::size_t next = 0;
  while (next < iov.size()) {
    const ssize_t n = ::writev(fd, &iov[next], static_cast<int>(iov.size() - next));
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      throw StoreError("writing " + path + ": " + std::strerror(err), reason_from_errno(err));
    }
    // Skip what was written: whole parts, then the start of a partly written one.
    auto done = static_cast<std::size_t>(n);
    while (next < iov.size() && done >= iov[next].iov_len) done -= iov[next++].iov_len;
    if (next < iov.size()) {
      iov[next].iov_base = static_cast<std::uint8_t*>(iov[next].iov_base) + done;
      iov[next].iov_len -= done;
    }
  }
}

// Applies one record's entries; returns a description of what is wrong, or "".
std::string apply_entries(std::uint64_t segment, std::span<const std::uint8_t> payload,
                          const WalVisitor& visitor, std::vector<SeriesId>& defined, std::size_t& samples) {
  try {
    ByteReader r(payload, "record");
    while (r.remaining() > 0) {
      const std::uint8_t type = r.u8("entry type");
      const auto id = static_cast<SeriesId>(r.varint("series id"));
      if (type == kEntrySeries) {
        const auto n = r.varint("labels length");
        if (n > r.remaining()) r.fail("labels longer than the record");
        Labels labels = decode_labels(r.bytes(n, "labels"));
        defined.push_back(id);
        if (visitor.series) visitor.series(segment, id, std::move(labels));
      } else if (type == kEntrySample) {
        const std::int64_t t = r.svarint("timestamp");
        const double v = std::bit_cast<double>(r.fixed(8, "value"));
        if (std::find(defined.begin(), defined.end(), id) == defined.end())
          r.fail("sample of series " + std::to_string(id) + " that this segment never defined");
        ++samples;
        if (visitor.sample) visitor.sample(segment, id, t, v);
      } else {
        r.fail("unknown entry type " + std::to_string(type));
      }
    }
  } catch (const CodecError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

void sync_directory(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd) ::fsync(fd.get());
}

std::vector<std::uint8_t>& WalEntries::room_for(std::size_t bytes) {
  if (chunks_.empty() || chunks_.back().size() + bytes > kWalChunkBytes)
    chunks_.emplace_back().reserve(std::max(bytes, kWalChunkBytes));
  return chunks_.back();
}

void WalEntries::add_series(SeriesId id, const Labels& labels) {
  std::vector<std::uint8_t> encoded;
  encode_labels(labels, encoded);
  auto& chunk = room_for(1 + 2 * kMaxVarintBytes + encoded.size());
  const std::size_t before = chunk.size();
  ByteWriter w(chunk);
  w.u8(kEntrySeries);
  w.varint(id);
  w.varint(encoded.size());
  w.bytes(encoded);
  bytes_ += chunk.size() - before;
}

void WalEntries::add_sample(SeriesId id, std::int64_t t_ms, double value) {
  auto& chunk = room_for(kMaxSampleEntryBytes);
  const std::size_t before = chunk.size();
  ByteWriter w(chunk);
  w.u8(kEntrySample);
  w.varint(id);
  w.svarint(t_ms);
  w.fixed(std::bit_cast<std::uint64_t>(value), 8);
  bytes_ += chunk.size() - before;
}

std::vector<std::vector<std::uint8_t>> WalEntries::take() {
  bytes_ = 0;
  return std::exchange(chunks_, {});
}

std::string wal_dir(const std::string& data_dir) {
  return data_dir + "/wal";
}

std::string segment_path(const std::string& dir, std::uint64_t segment) {
  char name[32];
  std::snprintf(name, sizeof name, "/%08llu", static_cast<unsigned long long>(segment));
  return dir + name;
}

std::vector<std::uint64_t> list_segments(const std::string& dir) {
  std::vector<std::uint64_t> out;
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  if (!d) return out;
  while (const dirent* e = ::readdir(d.get())) {
    const std::string name = e->d_name;
    if (name.empty() || name.size() > 18 || name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    out.push_back(std::stoull(name));
  }
  std::sort(out.begin(), out.end());
  return out;
}

void WalWriter::open_segment(std::uint64_t segment) {
  fd_.reset();
  const std::string path = segment_path(dir_, segment);
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  if (!fd) {
    const int err = errno;
    throw StoreError("opening " + path + ": " + std::strerror(err), reason_from_errno(err));
  }
  struct stat st {};
  ::fstat(fd.get(), &st);
  std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
  if (size < kWalHeaderBytes) {
    if (::ftruncate(fd.get(), 0) != 0 || ::lseek(fd.get(), 0, SEEK_SET) != 0) {
      const int err = errno;
      throw StoreError("resetting " + path + ": " + std::strerror(err), reason_from_errno(err));
    }
    write_all(fd.get(), {std::span<const std::uint8_t>(kHeader)}, path);
    size = kWalHeaderBytes;
    sync_directory(dir_);
  } else {
    ::lseek(fd.get(), static_cast<off_t>(size), SEEK_SET);
  }
  fd_ = std::move(fd);
  segment_ = segment;
  good_size_ = size;
}

void WalWriter::write(std::uint64_t segment, std::span<const std::uint8_t> entries) {
  if (!fd_ || segment != segment_) {
    if (fd_ && dirty_) sync();  // the segment we leave is complete and durable before the next one starts
    open_segment(segment);
  }
  // The record header and the entries go out in one writev: no copy of the entries is made.
  std::uint8_t header[kWalRecordHeaderBytes];
  put_u32(header, static_cast<std::uint32_t>(entries.size()));
  put_u32(header + 4, crc32_of(entries));
  try {
    write_all(fd_.get(), {std::span<const std::uint8_t>(header), entries}, segment_path(dir_, segment_));
  } catch (const StoreError&) {
    // Cut back a partial record so that a later retry appends to complete records only.
    if (::ftruncate(fd_.get(), static_cast<off_t>(good_size_)) != 0) fd_.reset();
    if (fd_) ::lseek(fd_.get(), static_cast<off_t>(good_size_), SEEK_SET);
    throw;
  }
  good_size_ += kWalRecordHeaderBytes + entries.size();
  dirty_ = true;
}

void WalWriter::sync() {
  if (!fd_ || !dirty_) return;
  if (::fdatasync(fd_.get()) != 0) {
    const int err = errno;
    throw StoreError("syncing " + segment_path(dir_, segment_) + ": " + std::strerror(err),
                     reason_from_errno(err));
  }
  dirty_ = false;
}

WalReplayReport replay_wal(const std::string& dir, const WalVisitor& visitor, bool repair) {
  WalReplayReport report;
  const auto segments = list_segments(dir);
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const bool last = i + 1 == segments.size();
    const std::string path = segment_path(dir, segments[i]);
    std::ifstream in(path, std::ios::binary);
    const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                          std::istreambuf_iterator<char>()};
    ++report.segments;
    std::size_t pos = 0;
    std::string problem;
    if (bytes.size() < kWalHeaderBytes && (last || bytes.empty())) {
      // Created, then a crash before its header was whole: nothing was ever written to it.
      report.torn_bytes_dropped += bytes.size();
      if (repair) ::unlink(path.c_str());
      continue;
    }
    if (bytes.size() < kWalHeaderBytes) {
      problem = "segment shorter than its header";
    } else if (!std::equal(kHeader, kHeader + kWalHeaderBytes, bytes.begin())) {
      problem = "not a gpuwatch WAL segment (bad header)";
    } else {
      pos = kWalHeaderBytes;
    }
    std::vector<SeriesId> defined;
    while (problem.empty() && pos < bytes.size()) {
      if (bytes.size() - pos < kWalRecordHeaderBytes) {
        problem = "truncated record header";
        break;
      }
      const std::uint32_t len = read_u32(&bytes[pos]);
      const std::uint32_t crc = read_u32(&bytes[pos + 4]);
      if (len > kWalMaxRecordBytes || bytes.size() - pos - kWalRecordHeaderBytes < len) {
        problem = "truncated record";
        break;
      }
      const std::span<const std::uint8_t> payload(&bytes[pos + kWalRecordHeaderBytes], len);
      if (crc32_of(payload) != crc) {
        problem = "record checksum mismatch";
        break;
      }
      problem = apply_entries(segments[i], payload, visitor, defined, report.samples);
      if (!problem.empty()) break;
      ++report.records;
      pos += kWalRecordHeaderBytes + len;
    }
    if (problem.empty()) continue;
    if (last) {
      report.torn_bytes_dropped += bytes.size() - pos;
      if (repair) ::truncate(path.c_str(), static_cast<off_t>(pos));
    } else {
      report.corruption.push_back(path + " byte " + std::to_string(pos) + ": " + problem +
                                  "; the rest of this segment is skipped");
    }
  }
  return report;
}

}  // namespace gpuwatch::store
