// Basic authentication against the bcrypt hashes of a web configuration file. bcrypt is slow on purpose
// (tens of milliseconds at cost 10): a credential that verified once is remembered, so a scrape every few
// seconds pays the hash once, not each time. A wrong password is never remembered, and one that was right
// stops working when the file changes (the agent reads it at start).
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch {

class BasicAuth {
 public:
  // Whether a password matches a bcrypt (or any crypt(3)) hash: the HTTP server module's (libxcrypt), see
  // http/event_loop.h.
  using PasswordCheck = std::function<bool(const std::string& password, const std::string& hash)>;
  BasicAuth(std::map<std::string, std::string> users, PasswordCheck matches)
      : users_(std::move(users)), matches_(std::move(matches)) {}
  // The user an "Authorization: Basic ..." header proves, or nullopt (no header, another scheme, unknown
  // user, wrong password). Thread-safe.
  std::optional<std::string> verify(std::string_view authorization) const;

 private:
  std::map<std::string, std::string> users_;  // user -> bcrypt hash
  PasswordCheck matches_;
  mutable std::mutex mu_;
  mutable std::map<std::string, std::string> verified_;  // user -> the password that matched its hash
};

// The check the HTTP server module (gpuwatch-http-server.so, "" = where modules are found) makes: libxcrypt
// is mapped only where a server asks for a password. It keeps the module loaded while it lives. Throws
// std::runtime_error "module_missing: ..." with the path and the loader's reason when the module cannot be
// loaded.
BasicAuth::PasswordCheck load_password_check(const std::string& module_path);

// RFC 4648 base64 (the standard alphabet, with padding); nullopt when `text` is not.
std::optional<std::string> decode_base64(std::string_view text);

}  // namespace gpuwatch
