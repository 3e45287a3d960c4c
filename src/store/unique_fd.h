// The store's file helpers: UniqueFd (from core) and directory syncs.
#pragma once

#include <string>

#include "core/unique_fd.h"

namespace gpuwatch::store {

using gpuwatch::UniqueFd;

// fsyncs a directory so that files created or removed in it survive a power loss; errors are ignored
// (some filesystems refuse fsync on directories, and nothing better can be done).
void sync_directory(const std::string& path);

}  // namespace gpuwatch::store
