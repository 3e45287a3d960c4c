#include "http/basic_auth.h"

#include <crypt.h>

#include <cstring>
#include <memory>

namespace gpuwatch {
namespace {

bool same(std::string_view a, std::string_view b) {
  // Time independent of where they differ: a password is compared here.
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

std::optional<std::string> decode_base64(std::string_view text) {
  static constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  unsigned bits = 0;
  int count = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '=') {
      if (i + 2 < text.size() || (i + 1 < text.size() && text[i + 1] != '=')) return std::nullopt;
      break;
    }
    const auto v = kAlphabet.find(c);
    if (v == std::string_view::npos) return std::nullopt;
    bits = (bits << 6) | static_cast<unsigned>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xff);
    }
  }
  return out;
}

bool password_matches(const std::string& password, const std::string& hash) {
  auto data = std::make_unique<crypt_data>();  // 32 KiB: not on the event thread's stack
  std::memset(data.get(), 0, sizeof(crypt_data));
  const char* result = crypt_r(password.c_str(), hash.c_str(), data.get());
  // libxcrypt answers a string starting with '*' on failure, never the hash.
  return result != nullptr && result[0] != '*' && same(result, hash);
}

std::optional<std::string> BasicAuth::verify(std::string_view authorization) const {
  const auto space = authorization.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  std::string scheme(authorization.substr(0, space));
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme != "basic") return std::nullopt;
  std::string_view encoded = authorization.substr(space + 1);
  while (!encoded.empty() && encoded.front() == ' ') encoded.remove_prefix(1);
  const auto decoded = decode_base64(encoded);
  if (!decoded) return std::nullopt;
  const auto colon = decoded->find(':');
  if (colon == std::string::npos) return std::nullopt;
  const std::string user = decoded->substr(0, colon);
  const std::string password = decoded->substr(colon + 1);
  const auto hash = users_.find(user);
  if (hash == users_.end()) return std::nullopt;
  {
    std::lock_guard lock(mu_);
    if (const auto known = verified_.find(user); known != verified_.end() && same(known->second, password))
      return user;
  }
  if (!password_matches(password, hash->second)) return std::nullopt;
  std::lock_guard lock(mu_);
  verified_[user] = password;
  return user;
}

}  // namespace gpuwatch
