#include "cli/import_report.h"

#include <cstdio>
#include <ctime>
#include <string>

namespace gpuwatch {
namespace {

std::string fmt(const char* format, double a, double b = 0, double c = 0) {
  char buf[128];
  std::snprintf(buf, sizeof buf, format, a, b, c);
  return buf;
}

std::string bytes_text(double b) {
  if (b >= 1e9) return fmt("%.2f GB", b / 1e9);
  if (b >= 1e6) return fmt("%.1f MB", b / 1e6);
  return fmt("%.0f kB", b / 1e3);
}

std::string rate_text(double samples, double seconds) {
  const double r = seconds > 0 ? samples / seconds : 0;
  if (r >= 1e6) return fmt("%.2f M samples/s", r / 1e6);
  return fmt("%.0f k samples/s", r / 1e3);
}

std::string utc(std::int64_t t_ms) {
  const std::time_t t = static_cast<std::time_t>(t_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

void ImportProgressPrinter::update(const ingest::ImportProgress& p) {
  constexpr double kInterval = 0.1;
  if (last_seconds_ >= 0 && p.seconds - last_seconds_ < kInterval && p.bytes_done < p.bytes_total) return;
  last_seconds_ = p.seconds;
  const double share =
      p.bytes_total > 0 ? static_cast<double>(p.bytes_done) / static_cast<double>(p.bytes_total) : 1;
  const std::string figures = bytes_text(static_cast<double>(p.bytes_done)) + " / " +
                              bytes_text(static_cast<double>(p.bytes_total)) + ", " +
                              rate_text(static_cast<double>(p.samples), p.seconds) + ", file " +
                              std::to_string(p.file_index) + "/" + std::to_string(p.file_count);
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(share * kWidth);
  out_ << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, '.') << "] "
       << fmt("%3.0f%%", 100 * share) << "  " << figures << "\x1b[K" << std::flush;
  drawn_ = true;
}

void ImportProgressPrinter::finish() {
  if (drawn_) out_ << "\n" << std::flush;
  drawn_ = false;
}

void print_import_summary(std::ostream& out, const ingest::ImportSummary& s) {
  out << "files:    " << s.files << " (" << bytes_text(static_cast<double>(s.bytes)) << ")";
  if (s.unreadable_files > 0) out << ", " << s.unreadable_files << " unreadable";
  out << "\nseries:   " << s.series << "\nsamples:  " << s.samples_imported << " imported of "
      << s.samples_read << " read\n";
  if (s.samples_imported > 0) {
    out << "range:    " << utc(s.min_t_ms) << " .. " << utc(s.max_t_ms) << " (" << s.min_t_ms << " .. "
        << s.max_t_ms << " ms)\n";
  }
  if (s.bad_lines > 0) out << "bad lines: " << s.bad_lines << " (reported above, skipped)\n";
  if (s.created_skipped > 0) out << "_created samples skipped: " << s.created_skipped << "\n";
  for (const auto& [reason, r] : s.rejected) {
    out << "rejected: " << r.count << " " << reason << " (first: " << r.example << ")\n";
  }
  out << "time:     " << fmt("%.2f s", s.seconds) << ", "
      << rate_text(static_cast<double>(s.samples_read), s.seconds) << "\n";
}

}  // namespace gpuwatch
