#include "agent/heap_trim.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gpuwatch {

bool HeapTrim::maybe_trim(Clock::time_point now) {
  if (last_ == Clock::time_point{}) {
    last_ = now;
    return false;
  }
  if (now - last_ < every_) return false;
  last_ = now;
#if defined(__GLIBC__)
  malloc_trim(0);
  return true;
#else
  return false;
#endif
}

}  // namespace gpuwatch
