#include "http/basic_auth.h"

#include <memory>
#include <stdexcept>
#include <variant>

#include "core/optional_module.h"
#include "core/constant_time_equal.h"
#include "http/event_loop.h"

namespace gpuwatch {

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
    if (const auto known = verified_.find(user);
        known != verified_.end() && constant_time_equal(known->second, password))
      return user;
  }
  if (!matches_(password, hash->second)) return std::nullopt;
  std::lock_guard lock(mu_);
  verified_[user] = password;
  return user;
}

BasicAuth::PasswordCheck load_password_check(const std::string& module_path) {
  auto opened = OptionalModule::open(module_path, http::kEventLoopModule, http::kPasswordEntry);
  if (auto* why = std::get_if<std::string>(&opened))
    throw std::runtime_error("module_missing: the HTTP server module: " + *why);
  auto module = std::make_shared<OptionalModule>(std::move(std::get<OptionalModule>(opened)));
  return [module](const std::string& password, const std::string& hash) {
    return module->entry<http::PasswordMatches>()(password, hash);
  };
}

}  // namespace gpuwatch
