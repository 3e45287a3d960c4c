#include "cli/one_shot_process.h"

#include <malloc.h>
#include <sched.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace gpuwatch {

void settle_one_shot_process() {
  mallopt(M_ARENA_MAX, 1);
  if (const int cpu = sched_getcpu(); cpu >= 0) {
    cpu_set_t here;
    CPU_ZERO(&here);
    CPU_SET(cpu, &here);
    sched_setaffinity(0, sizeof here, &here);  // inherited by every thread started from now on
  }
}

void end_one_shot_process(int exit_code) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(exit_code);
}

}  // namespace gpuwatch
