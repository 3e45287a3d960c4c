// Basic authentication against the bcrypt hashes of a web configuration file. bcrypt is slow on purpose
// (tens of milliseconds at cost 10): a credential that verified once is remembered, so a scrape every few
// seconds pays the hash once, not each time. A wrong password is never remembered, and one that was right
// stops working when the file changes (the agent reads it at start).
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch {

class BasicAuth {
 public:
  explicit BasicAuth(std::map<std::string, std::string> users) : users_(std::move(users)) {}
  // The user an "Authorization: Basic ..." header proves, or nullopt (no header, another scheme, unknown
  // user, wrong password). Thread-safe.
  std::optional<std::string> verify(std::string_view authorization) const;

 private:
  std::map<std::string, std::string> users_;  // user -> bcrypt hash
  mutable std::mutex mu_;
  mutable std::map<std::string, std::string> verified_;  // user -> the password that matched its hash
};

// RFC 4648 base64 (the standard alphabet, with padding); nullopt when `text` is not.
std::optional<std::string> decode_base64(std::string_view text);

// Whether `password` matches the bcrypt (or any crypt(3)) `hash`, through libxcrypt.
bool password_matches(const std::string& password, const std::string& hash);

}  // namespace gpuwatch
