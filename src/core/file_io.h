// Whole files, read and written the one way the agent does it: reads say why they failed, and a durable write
// either leaves the old content or the new one on disk, even across a power cut (temporary file in the same
// directory, fsync, rename over the target, fsync of the directory).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch {

// The whole file; nullopt when it cannot be opened or read, or is larger than max_bytes, with the reason
// ("path: cannot read: No such file or directory") in `error` when given.
std::optional<std::string> read_file(const std::string& path, std::string* error = nullptr,
                                     std::size_t max_bytes = std::size_t{1} << 30);

// Replaces `path` with `bytes` durably (see above). Returns "" or what failed, naming the file; on failure
// the previous content is untouched and no temporary file is left behind.
std::string write_file_durably(const std::string& path, std::string_view bytes);

}  // namespace gpuwatch
