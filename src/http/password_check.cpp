// The HTTP server module's password check (http/event_loop.h): bcrypt through libxcrypt, which only a server
// with basic-auth users needs, so no other process maps it.
#include <crypt.h>

#include <cstring>
#include <memory>
#include <type_traits>

#include "core/constant_time_equal.h"
#include "http/event_loop.h"

extern "C" bool gpuwatch_http_password_matches_v1(const std::string& password, const std::string& hash) {
  auto data = std::make_unique<crypt_data>();  // 32 KiB: not on the event thread's stack
  std::memset(data.get(), 0, sizeof(crypt_data));
  const char* result = crypt_r(password.c_str(), hash.c_str(), data.get());
  // libxcrypt answers a string starting with '*' on failure, never the hash.
  return result != nullptr && result[0] != '*' && gpuwatch::constant_time_equal(result, hash);
}

// The type the loader casts the symbol to is the one this definition has.
static_assert(std::is_same_v<decltype(gpuwatch_http_password_matches_v1), gpuwatch::http::PasswordMatches>);
