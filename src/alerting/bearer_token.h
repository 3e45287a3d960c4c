// The token of an "Authorization: Bearer <token>" header (RFC 6750). The scheme name is case-insensitive
// (RFC 7235 2.1): "bearer", "Bearer" and "BEARER" all name it.
#pragma once

#include <optional>
#include <string_view>

namespace gpuwatch::alerting {

// The credentials after the scheme and the spaces that follow it; nullopt for another scheme or none.
std::optional<std::string_view> bearer_token(std::string_view authorization);

}  // namespace gpuwatch::alerting
