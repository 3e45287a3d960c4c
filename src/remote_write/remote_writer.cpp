#include "remote_write/remote_writer.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace gpuwatch::remote_write {
namespace {

constexpr std::chrono::milliseconds kMinBackoff{100};
constexpr std::chrono::milliseconds kMaxBackoff{10'000};
constexpr auto kWarnEvery = std::chrono::minutes(1);

// One request of the batch's: protobuf appends the repeated fields of concatenated messages.
std::string merged(const QueuedBatch& batch, const WireFormat& format) {
  if (batch.requests.size() == 1) return batch.requests.front();
  std::string raw;
  for (const auto& request : batch.requests) {
    if (auto r = format.uncompress(request)) raw += *r;  // a damaged record is left out, not sent
  }
  return format.compress(raw);
}

}  // namespace

RemoteWriter::RemoteWriter(const RemoteWriteTarget& target, const std::string& queue_dir,
                           std::shared_ptr<const WireFormat> format)
    : name_(target.name),
      url_(target.url),
      format_(std::move(format)),
      queue_(queue_dir + "/" + target.name + ".sqlite", target.queue_max_size),
      client_(target),
      sender_([this](std::stop_token stop) { run(stop); }) {}

RemoteWriter::~RemoteWriter() {
  sender_.request_stop();
  client_.abort();  // an answer being waited for is given up; the batch stays queued
}

void RemoteWriter::enqueue(const WriteRequestBuilder& request) {
  if (request.samples() == 0) return;
  // Compressed on disk: a sample's labels repeat in every request, and snappy takes most of them out.
  const std::size_t dropped =
      queue_.push(format_->compress(request.serialize()), request.samples(), request.newest_ms());
  if (dropped > 0) dropped_queue_full_ += dropped;
  {
    std::lock_guard lock(mu_);
    pending_ = true;
  }
  wake_.notify_one();
}

bool RemoteWriter::pause(std::stop_token& stop, std::chrono::milliseconds d) {
  std::unique_lock lock(mu_);
  wake_.wait_for(lock, stop, d, [] { return false; });
  return !stop.stop_requested();
}

void RemoteWriter::run(std::stop_token stop) {
  std::chrono::milliseconds backoff = kMinBackoff;
  auto warned_at = std::chrono::steady_clock::time_point{};
  while (!stop.stop_requested()) {
    std::optional<QueuedBatch> batch;
    try {
      batch = queue_.front(kMaxSamplesPerSend);
    } catch (const std::exception& e) {
      spdlog::error("remote write {}: cannot read its queue: {}", name_, e.what());
      if (!pause(stop, kMaxBackoff)) return;
      continue;
    }
    if (!batch) {
      std::unique_lock lock(mu_);
      wake_.wait(lock, stop, [this] { return pending_; });
      pending_ = false;
      continue;
    }
    const std::string body = merged(*batch, *format_);
    const SendOutcome outcome = client_.send(body);
    if (stop.stop_requested()) return;  // an aborted send says nothing about the receiver
    if (outcome.kind == SendOutcome::Kind::kRetry) {
      if (outcome.status == 429) {
        ++failures_throttled_;
      } else if (outcome.status != 0) {
        ++failures_server_;
      } else {
        ++failures_network_;
      }
      const auto now = std::chrono::steady_clock::now();
      if (now - warned_at >= kWarnEvery) {
        spdlog::warn("remote write {}: {}; retrying (the queue holds what is not sent)", name_,
                     outcome.message);
        warned_at = now;
      }
      const auto wait = outcome.retry_after ? std::max(*outcome.retry_after, kMinBackoff) : backoff;
      backoff = std::min(backoff * 2, kMaxBackoff);
      if (!pause(stop, wait)) return;
      continue;
    }
    backoff = kMinBackoff;
    if (outcome.kind == SendOutcome::Kind::kRejected) {
      dropped_rejected_ += batch->samples;
      spdlog::warn("remote write {}: the receiver refused {} sample(s) for good: {}", name_, batch->samples,
                   outcome.message);
    } else {
      samples_sent_ += batch->samples;
      bytes_sent_ += body.size();
      ++requests_sent_;
      newest_sent_ms_.store(std::max(newest_sent_ms_.load(), batch->newest_ms));
    }
    try {
      queue_.pop_through(batch->last_seq);
    } catch (const std::exception& e) {
      spdlog::error("remote write {}: cannot remove sent requests from its queue: {}", name_, e.what());
      if (!pause(stop, kMaxBackoff)) return;
    }
  }
}

RemoteWriteStats RemoteWriter::stats() const {
  RemoteWriteStats s;
  s.name = name_;
  s.queue = queue_.stats();
  s.samples_sent = samples_sent_;
  s.bytes_sent = bytes_sent_;
  s.requests_sent = requests_sent_;
  s.failures_server = failures_server_;
  s.failures_throttled = failures_throttled_;
  s.failures_network = failures_network_;
  s.dropped_rejected = dropped_rejected_;
  s.dropped_queue_full = dropped_queue_full_;
  s.newest_sent_ms = newest_sent_ms_;
  return s;
}

}  // namespace gpuwatch::remote_write
